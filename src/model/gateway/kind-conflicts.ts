// A GRPCRoute and an HTTPRoute never share a hostname on one listener (the GRPCRoute specification, "cross serving"):
// where they would, the older route keeps the listener and the newer is not attached through it.
import { byClaimAge } from '../hosts.js';
import type { ObjectRef } from '../types.js';
import type { GRPCRoute, HTTPRoute } from './api.js';
import { intersectHosts, refOf, type attach, type RouteKind, type ServedListener } from './attach.js';

/** One route with where it attached (model/gateway/attach.ts attach) or why not. */
export interface AttachedRoute {
  readonly route: HTTPRoute | GRPCRoute;
  readonly kind: RouteKind;
  readonly attached: ReturnType<typeof attach>;
}

/** `namespace/gateway/listener`: one listener of one Gateway (a ListenerSet's: `namespace/gateway/set-namespace/set/listener`). */
export function listenerKey(s: ServedListener): string {
  const set = s.set ? `${s.set.namespace}/${s.set.name}/` : '';
  return `${s.gateway.namespace}/${s.gateway.name}/${set}${s.listener.name}`;
}

/** `Kind:namespace/name`: routes of both kinds may share a name. */
export function routeKey(ref: ObjectRef): string {
  return `${ref.kind}:${ref.namespace}/${ref.name}`;
}

/** Do two hostnames served on one listener ('' = every host) share a request host? */
function overlaps(a: string, b: string): boolean {
  return a === '' || b === '' || intersectHosts(a, [b]).length > 0;
}

/**
 * For each route refused somewhere: listener key → the reason (the older route of the other kind that keeps it).
 * Routes are taken oldest first (creationTimestamp, then namespace/name), as the specification orders them.
 */
export function kindConflicts(routes: readonly AttachedRoute[]): Map<string, Map<string, string>> {
  const kept = new Map<string, { ref: ObjectRef; hosts: readonly string[] }[]>();
  const out = new Map<string, Map<string, string>>();
  const aged = routes.map((r) => ({ ...r, ref: refOf(r.kind, r.route), created: r.route.metadata?.creationTimestamp })).sort(byClaimAge);
  for (const r of aged) {
    if ('reason' in r.attached) continue;
    for (const a of r.attached.via) {
      const key = listenerKey(a.listener);
      const here = kept.get(key) ?? [];
      kept.set(key, here);
      const other = here.find((o) => o.ref.kind !== r.kind && o.hosts.some((h) => a.hosts.some((x) => overlaps(h, x))));
      if (!other) {
        here.push({ ref: r.ref, hosts: a.hosts });
        continue;
      }
      const mine = out.get(routeKey(r.ref)) ?? new Map<string, string>();
      out.set(routeKey(r.ref), mine);
      mine.set(
        key,
        `NotAllowedByListeners: listener ${a.listener.listener.name} of Gateway ${a.listener.gateway.namespace}/${a.listener.gateway.name} serves these hostnames for the older ${other.ref.kind} ${other.ref.namespace}/${other.ref.name}; a GRPCRoute and an HTTPRoute never share a hostname on one listener`,
      );
    }
  }
  return out;
}

/** The routes with the attachments kindConflicts refused taken away (a route left with none is not attached, and says why). */
export function withoutConflicts(routes: readonly AttachedRoute[], refused: ReadonlyMap<string, ReadonlyMap<string, string>>): AttachedRoute[] {
  return routes.map((r) => {
    const mine = refused.get(routeKey(refOf(r.kind, r.route)));
    if (!mine || 'reason' in r.attached) return r;
    const via = r.attached.via.filter((a) => !mine.has(listenerKey(a.listener)));
    if (via.length === 0) return { ...r, attached: { reason: [...mine.values()][0] ?? 'NotAllowedByListeners' } };
    return { ...r, attached: { hosts: [...new Set(via.flatMap((a) => a.hosts))].sort(), via } };
  });
}
