// The Gateway API side of one build, attached once: served listeners, each HTTPRoute's and GRPCRoute's attachment, and from them the
// claims on host names for host ownership (model/hosts.ts).
import type { Snapshot } from '../input.js';
import type { HostClaim } from '../hosts.js';
import type { ObjectRef } from '../types.js';
import { attach, ourGateways, refOf, servedListeners, type ServedListener } from './attach.js';
import { kindConflicts, withoutConflicts, type AttachedRoute } from './kind-conflicts.js';
import { nsKey, refKey } from '../keys.js';
import { attachTlsRoutes, type AttachedTlsRoute } from './tlsroute-attach.js';
import type { L4Context } from './l4.js';
import type { ListenerPortPolicy } from './listener-ports.js';

/** Portico's served listeners (and why others are not), and every HTTPRoute and GRPCRoute with where it attached or why not. */
export interface GatewayAttachments {
  readonly served: readonly ServedListener[];
  readonly refused: readonly { readonly gateway: ObjectRef; readonly field: string; readonly reason: string }[];
  readonly routes: readonly AttachedRoute[];
  /** TLSRoutes, attached to TLS listeners only (model/gateway/tlsroute.ts). */
  readonly tlsRoutes: readonly AttachedTlsRoute[];
}

/** Computed once per build; read by gatewayClaims and by model/gateway/translate.ts addGatewayRoutes. */
export function attachRoutes(snapshot: Snapshot, controllerName: string, l4?: L4Context, ports?: ListenerPortPolicy): GatewayAttachments {
  const { served, refused } = servedListeners(snapshot, controllerName, l4, ports);
  const routes: AttachedRoute[] = [
    ...(snapshot.httpRoutes ?? []).map((route) => ({ route, kind: 'HTTPRoute' as const, attached: attach(route, served) })),
    ...(snapshot.grpcRoutes ?? []).map((route) => ({ route, kind: 'GRPCRoute' as const, attached: attach(route, served, 'GRPCRoute') })),
  ];
  return { served, refused, routes: withoutConflicts(routes, kindConflicts(routes)), tlsRoutes: attachTlsRoutes(snapshot, served) };
}

/**
 * Each served listener with a hostname claims it at its Gateway's age; each HTTPRoute attached to a served listener
 * claims the hostnames it serves there at its own age. A listener or route without hostnames claims no name.
 */
export function gatewayClaims(snapshot: Snapshot, controllerName: string, g: GatewayAttachments): HostClaim[] {
  const created = new Map(ourGateways(snapshot, controllerName).map((gw) => [nsKey(gw), gw.metadata?.creationTimestamp]));
  const out: HostClaim[] = [];
  for (const s of g.served) {
    const host = s.listener.hostname?.toLowerCase();
    // a ListenerSet's listener claims its hostname in the ListenerSet's namespace, at the ListenerSet's age
    const by = s.set
      ? { ref: { kind: s.set.kind, namespace: s.set.namespace, name: s.set.name }, created: s.set.created }
      : { ref: s.gateway, created: created.get(refKey(s.gateway.namespace, s.gateway.name)) };
    if (host) out.push({ ...by, hosts: [host] });
  }
  for (const { route, kind, attached } of [...g.routes, ...g.tlsRoutes]) {
    if ('reason' in attached) continue;
    out.push({ ref: refOf(kind, route), created: route.metadata?.creationTimestamp, hosts: attached.hosts.filter((h) => h !== '') });
  }
  return out;
}
