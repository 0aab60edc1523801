// The status of ListenerSets naming Portico's Gateways (model/gateway/listenerset.ts): Accepted and Programmed
// (NotAllowed where the Gateway's allowedListeners refuse the namespace), per-listener conditions and attachedRoutes,
// and each Gateway's attachedListenerSets. Pure, as status/gateway.ts.
import type { Snapshot } from '../model/input.js';
import type { Condition, GRPCRoute, HTTPRoute, ListenerSet, TLSRoute } from '../model/gateway/api.js';
import { allows, intersectHosts, refersTo, type RouteKind } from '../model/gateway/attach.js';
import { l4AttachedCount } from '../model/gateway/l4.js';
import type { JudgedListener, Outcome } from '../model/gateway/listeners.js';
import type { JudgedListenerSet } from '../model/gateway/listenerset.js';
import { byName } from '../model/lookup.js';
import { refKey } from '../model/keys.js';
import type { ListenerStatus } from './gateway.js';

/** ListenerSet status: conditions and one entry per listener (none for a ListenerSet not allowed). */
export interface ListenerSetStatus {
  readonly conditions: readonly Condition[];
  readonly listeners: readonly ListenerStatus[];
}

const condition = (type: string, o: Outcome, generation: number | undefined): Condition => ({
  type,
  status: o[0] ? 'True' : 'False',
  reason: o[1],
  message: o[2],
  ...(generation !== undefined ? { observedGeneration: generation } : {}),
});

/** The routes attached through one listener: named through its ListenerSet, allowed there, a hostname in common. */
function attachedRoutes(j: JudgedListener, snapshot: Snapshot): number {
  const count = (list: readonly (HTTPRoute | GRPCRoute | TLSRoute)[], kind: RouteKind): number =>
    list.filter((r) => {
      const ns = r.metadata?.namespace ?? 'default';
      return allows(j, ns, kind) && (r.spec?.parentRefs ?? []).some((p) => refersTo(p, ns, j)) && intersectHosts(j.listener.hostname, r.spec?.hostnames ?? []).length > 0;
    }).length;
  return count(snapshot.httpRoutes ?? [], 'HTTPRoute') + count(snapshot.grpcRoutes ?? [], 'GRPCRoute') + count(snapshot.tlsRoutes ?? [], 'TLSRoute') + l4AttachedCount(j, snapshot);
}

/** One listener's entry: Accepted, Programmed (served, its certificates resolved), ResolvedRefs, Conflicted. */
function listenerStatus(j: JudgedListener, snapshot: Snapshot, generation: number | undefined): ListenerStatus {
  const programmed: Outcome =
    j.refusal !== undefined
      ? [false, j.conflicted[0] ? j.conflicted[1] : 'Invalid', `not served: ${j.refusal}`]
      : !j.resolvedRefs[0] && j.resolvedRefs[1] !== 'InvalidRouteKinds'
        ? [false, 'Invalid', `${j.resolvedRefs[2]}; its hostnames are answered with the default certificate`]
        : [true, 'Programmed', "served with its Gateway's listeners"];
  // a listener refused for a conflict is not Accepted either: only the winner of a port and hostname is served
  const accepted: Outcome = j.conflicted[0] ? [false, j.conflicted[1], j.conflicted[2]] : j.accepted;
  return {
    name: j.listener.name,
    supportedKinds: j.supportedKinds,
    attachedRoutes: attachedRoutes(j, snapshot),
    conditions: [
      condition('Accepted', accepted, generation),
      condition('Programmed', programmed, generation),
      condition('ResolvedRefs', j.resolvedRefs, generation),
      condition('Conflicted', j.conflicted, generation),
    ],
  };
}

/**
 * Every judged ListenerSet's status keyed `namespace/name`, and per Gateway (`namespace/name`) the number of its
 * ListenerSets that are accepted.
 */
export function listenerSetStatuses(
  sets: readonly JudgedListenerSet[],
  snapshot: Snapshot,
): { readonly listenerSets: ReadonlyMap<string, ListenerSetStatus>; readonly attachedListenerSets: ReadonlyMap<string, number> } {
  const listenerSets = new Map<string, ListenerSetStatus>();
  const attachedListenerSets = new Map<string, number>();
  for (const s of sets) {
    const gw = refKey(s.gateway.namespace, s.gateway.name);
    attachedListenerSets.set(gw, (attachedListenerSets.get(gw) ?? 0) + (s.accepted[0] ? 1 : 0));
    const generation = byName<ListenerSet>(snapshot.listenerSets ?? [], s.set.namespace, s.set.name)?.metadata?.generation;
    const listeners = s.listeners.map((j) => listenerStatus(j, snapshot, generation));
    const programmed: Outcome = !s.accepted[0]
      ? [false, s.accepted[1], s.accepted[2]]
      : listeners.some((l) => l.conditions[1]?.status === 'True')
        ? [true, 'Programmed', "nginx serves the ListenerSet's listeners"]
        : [false, 'Invalid', 'no listener is programmed'];
    listenerSets.set(refKey(s.set.namespace, s.set.name), { conditions: [condition('Accepted', s.accepted, generation), condition('Programmed', programmed, generation)], listeners });
  }
  return { listenerSets, attachedListenerSets };
}
