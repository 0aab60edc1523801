// BackendTLSPolicy status: one ancestor entry per Gateway of Portico's that a route attached to reaches a targeted
// Service through, with Accepted and ResolvedRefs (the specification's reasons). Pure, like status/gateway.ts.
import type { Snapshot } from '../model/input.js';
import { GATEWAY_GROUP, type Condition, type GRPCRoute, type HTTPRoute, type ParentReference } from '../model/gateway/api.js';
import { attach, type ServedListener } from '../model/gateway/attach.js';
import { BackendTlsIndex } from '../model/gateway/backend-tls.js';
import { refKey } from '../model/keys.js';

/** One entry of BackendTLSPolicy status.ancestors. */
export interface PolicyAncestorStatus {
  readonly ancestorRef: ParentReference;
  readonly controllerName: string;
  readonly conditions: readonly Condition[];
}

/** `namespace/service` → the Gateways (`namespace/name`) whose attached routes send requests to it. */
function gatewaysBehind(snapshot: Snapshot, served: readonly ServedListener[]): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const routes: [HTTPRoute | GRPCRoute, 'HTTPRoute' | 'GRPCRoute'][] = [
    ...(snapshot.httpRoutes ?? []).map((r) => [r, 'HTTPRoute'] as [HTTPRoute, 'HTTPRoute']),
    ...(snapshot.grpcRoutes ?? []).map((r) => [r, 'GRPCRoute'] as [GRPCRoute, 'GRPCRoute']),
  ];
  for (const [route, kind] of routes) {
    const a = attach(route, served, kind);
    if ('reason' in a) continue;
    const ns = route.metadata?.namespace ?? 'default';
    const gateways = new Set(a.via.map((v) => refKey(v.listener.gateway.namespace, v.listener.gateway.name)));
    for (const rule of route.spec?.rules ?? []) {
      for (const b of rule.backendRefs ?? []) {
        if ((b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service') continue;
        const key = refKey(b.namespace ?? ns, b.name);
        const set = out.get(key) ?? new Set<string>();
        for (const g of gateways) set.add(g);
        out.set(key, set);
      }
    }
  }
  return out;
}

/** Every BackendTLSPolicy, keyed `namespace/name` → Portico's ancestor entries (empty: none of its targets is reached). */
export function backendTlsPolicyStatus(snapshot: Snapshot, controllerName: string, served: readonly ServedListener[]): Map<string, readonly PolicyAncestorStatus[]> {
  const behind = gatewaysBehind(snapshot, served);
  const out = new Map<string, readonly PolicyAncestorStatus[]>();
  const byPolicy = new Map((snapshot.backendTLSPolicies ?? []).map((p) => [refKey(p.metadata?.namespace ?? 'default', p.metadata?.name ?? ''), p] as const));
  for (const j of new BackendTlsIndex(snapshot).judgements()) {
    const key = refKey(j.policy.namespace, j.policy.name);
    const services = (byPolicy.get(key)?.spec?.targetRefs ?? []).filter((t) => (t.group ?? '') === '' && t.kind === 'Service').map((t) => refKey(j.policy.namespace, t.name));
    const gateways = [...new Set(services.flatMap((s) => [...(behind.get(s) ?? [])]))].sort();
    const gen = j.generation !== undefined ? { observedGeneration: j.generation } : {};
    const conditions: Condition[] = [
      { type: 'Accepted', status: j.accepted[0] ? 'True' : 'False', reason: j.accepted[1], message: j.accepted[2], ...gen },
      { type: 'ResolvedRefs', status: j.resolvedRefs[0] ? 'True' : 'False', reason: j.resolvedRefs[1], message: j.resolvedRefs[2], ...gen },
    ];
    out.set(
      key,
      gateways.map((g) => {
        const [namespace = '', name = ''] = g.split('/');
        return { ancestorRef: { group: GATEWAY_GROUP, kind: 'Gateway', namespace, name }, controllerName, conditions };
      }),
    );
  }
  return out;
}
