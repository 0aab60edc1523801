// HTTPRoutes → path rules of the model, beside the Ingress ones: attached routes, their matches and their Service backends.
import type { IngressBackend } from 'kubernetes-types/networking/v1.js';
import type { Snapshot } from '../input.js';
import { checkPath } from '../names.js';
import { normalizePath, type PathRule } from '../routes.js';
import type { ObjectRef, Problem, Target } from '../types.js';
import { type HTTPBackendRef, type HTTPRoute, type HTTPRouteMatch, type ReferenceGrant } from './api.js';
import { attach, refOf, servedListeners, type Attachment } from './attach.js';
import { granted } from './grants.js';
import { gatewayTlsHosts, type GatewayTlsHost } from './tls.js';

/** What translation writes into: the model builder's path tables (model/build.ts), its backend resolution and its Problems. */
export interface GatewaySink {
  readonly rules: Map<string, Map<string, PathRule>>;
  problem(object: ObjectRef, field: string, reason: string, severity?: Problem['severity']): void;
  /** A Service backend resolved in `namespace` (target policy included), or undefined with a Problem on `ref`. */
  target(ref: ObjectRef, backend: IngressBackend, field: string, up?: undefined, namespace?: string): Target | undefined;
  refusal(ref: ObjectRef, host: string): string | undefined;
}

export interface GatewayOptions {
  /** --gateway-controller-name. */
  readonly controllerName: string;
}

/** Oldest first, then namespace/name: the specification's tie-break between routes. */
function byAge(a: HTTPRoute, b: HTTPRoute): number {
  const ta = a.metadata?.creationTimestamp ?? '9999';
  const tb = b.metadata?.creationTimestamp ?? '9999';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
  const kb = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** Why a match cannot be served exactly yet, or undefined (docs/adr/0011: headers, query and method need the Lua route table). */
function unsupportedMatch(m: HTTPRouteMatch): string | undefined {
  if (m.headers?.length) return 'header matches are not supported yet; the match is not served (serving it without them would take requests it does not ask for)';
  if (m.queryParams?.length) return 'query parameter matches are not supported yet; the match is not served';
  if (m.method !== undefined) return 'method matches are not supported yet; the match is not served';
  if (m.path?.type === 'RegularExpression') return 'RegularExpression paths are not supported yet; the match is not served';
  return undefined;
}

/** The one Service backend of a rule, resolved, or undefined with a Problem naming why. */
function backendOf(sink: GatewaySink, ref: ObjectRef, refs: readonly HTTPBackendRef[], field: string, grants: readonly ReferenceGrant[]): Target | undefined {
  const live = refs.filter((r) => r.weight !== 0);
  if (live.length !== 1) {
    sink.problem(ref, `${field}.backendRefs`, live.length === 0 ? 'a rule without a backend with weight > 0 is not served yet (the specification answers 500)' : 'more than one backendRef (weighted split) is not supported yet');
    return undefined;
  }
  const b = live[0] as HTTPBackendRef;
  const i = refs.indexOf(b);
  if ((b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service') { sink.problem(ref, `${field}.backendRefs[${i}]`, `InvalidKind: ${b.group ?? ''}/${b.kind ?? ''} is not a Service`); return undefined; }
  if (b.port === undefined) { sink.problem(ref, `${field}.backendRefs[${i}].port`, 'a Service backendRef needs a port'); return undefined; }
  const ns = b.namespace ?? ref.namespace;
  if (ns !== ref.namespace && !granted(grants, { namespace: ref.namespace }, ns, 'Service', b.name)) {
    sink.problem(ref, `${field}.backendRefs[${i}]`, `RefNotPermitted: no ReferenceGrant in namespace ${ns} lets HTTPRoutes of ${ref.namespace} refer to Service ${b.name}`);
    return undefined;
  }
  return sink.target(ref, { service: { name: b.name, port: { number: b.port } } }, `${field}.backendRefs[${i}]`, undefined, ns);
}

function addRoute(sink: GatewaySink, route: HTTPRoute, hosts: readonly string[], grants: readonly ReferenceGrant[]): void {
  const ref = refOf('HTTPRoute', route);
  (route.spec?.rules ?? []).forEach((rule, i) => {
    const field = `spec.rules[${i}]`;
    if (rule.filters?.length || rule.backendRefs?.some((b) => b.filters?.length)) { sink.problem(ref, `${field}.filters`, 'filters are not supported yet; the rule is not served'); return; }
    if (rule.timeouts) { sink.problem(ref, `${field}.timeouts`, 'timeouts are not supported yet; the rule is not served'); return; }
    const target = backendOf(sink, ref, rule.backendRefs ?? [], field, grants);
    if (!target) return;
    const matches = rule.matches?.length ? rule.matches : [{ path: { type: 'PathPrefix' as const, value: '/' } }];
    matches.forEach((m, j) => {
      const why = unsupportedMatch(m);
      if (why) { sink.problem(ref, `${field}.matches[${j}]`, why); return; }
      const raw = m.path?.value ?? '/';
      const bad = checkPath(raw);
      if (bad) { sink.problem(ref, `${field}.matches[${j}].path.value`, bad); return; }
      const type = m.path?.type === 'Exact' ? 'Exact' : 'Prefix';
      const path = normalizePath(raw, type);
      for (const host of hosts) {
        const refused = sink.refusal(ref, host);
        if (refused) { sink.problem(ref, 'spec.hostnames', refused); continue; }
        const table = sink.rules.get(host) ?? new Map<string, PathRule>();
        sink.rules.set(host, table);
        const key = `${type} ${path}`;
        if (!table.has(key)) table.set(key, { path, type, target });
      }
    });
  });
}

/**
 * Adds every HTTPRoute attached to a listener of Portico's Gateways, oldest first (an older route keeps a path it
 * shares), and returns the TLS hosts of the HTTPS listeners for model/tls.ts.
 */
export function addGatewayRoutes(sink: GatewaySink, snapshot: Snapshot, opts: GatewayOptions): GatewayTlsHost[] {
  const { served, refused } = servedListeners(snapshot, opts.controllerName);
  for (const r of refused) sink.problem(r.gateway, r.field, r.reason);
  const grants = snapshot.referenceGrants ?? [];
  const attachments: Attachment[] = [];
  for (const route of [...(snapshot.httpRoutes ?? [])].sort(byAge)) {
    const a = attach(route, served);
    if ('reason' in a) {
      if ((route.spec?.parentRefs ?? []).length > 0 && served.length > 0 && !a.reason.startsWith('NoMatchingParent')) sink.problem(refOf('HTTPRoute', route), 'spec.parentRefs', a.reason);
      continue;
    }
    attachments.push(...a.via);
    addRoute(sink, route, a.hosts, grants);
  }
  return gatewayTlsHosts(served, attachments, grants);
}
