// What nginx's Lua side dropped from a push, as Problems on the Ingresses it came from (it keeps the rest serving).
import type { Rejected } from '../nginx/process.js';
import type { Model, ObjectRef, Problem } from '../model/types.js';
import { refKey } from '../model/keys.js';

function ingressesWhere(model: Model, pick: (host: string, upstream: string | undefined) => boolean): ObjectRef[] {
  const refs = new Map<string, ObjectRef>();
  for (const s of model.servers) {
    for (const l of s.locations) {
      if (l.target.kind === 'upstream' && pick(s.host, l.target.upstream)) refs.set(refKey(l.target.ingress.namespace, l.target.ingress.name), l.target.ingress);
    }
  }
  return [...refs.values()];
}

/**
 * One Problem per Ingress behind each dropped backend (by upstream name) or certificate (by host). Lua checks what
 * the model already checked (test/lua/validity.test.ts compares both), so this list is empty unless they disagree.
 */
export function rejectedProblems(model: Model, backends: readonly Rejected[], certificates: readonly Rejected[]): Problem[] {
  const out: Problem[] = [];
  for (const r of backends) {
    for (const object of ingressesWhere(model, (_h, u) => u === r.name)) {
      out.push({ object, field: 'spec', reason: `nginx refused backend ${r.name} and serves it with no endpoints: ${r.reason}`, severity: 'degraded' });
    }
  }
  for (const r of certificates) {
    for (const object of ingressesWhere(model, (h) => h === r.name)) {
      out.push({ object, field: 'spec.tls', reason: `nginx refused the certificate of ${r.name}; the default certificate is served: ${r.reason}`, severity: 'degraded' });
    }
  }
  return out;
}
