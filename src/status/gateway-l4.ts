// The status of TCPRoutes and UDPRoutes on Portico's Gateways (docs/adr/0023): per parentRef naming one of them,
// Accepted (NoMatchingParent, NotAllowedByListeners) and ResolvedRefs (InvalidKind, RefNotPermitted, BackendNotFound,
// UnsupportedProtocol). A route newer than the one serving its listener stays Accepted, as the specification's
// conformance tests ask: the listener counts both, and only the oldest gets connections (a Warning says so).
import type { Snapshot } from '../model/input.js';
import type { Condition, ParentReference } from '../model/gateway/api.js';
import type { L4Kind } from '../model/gateway/l4-api.js';
import { l4Context, l4Parents, l4RoutesOf, type L4Flags } from '../model/gateway/l4.js';
import { judgedListeners, l4ResolvedRefs } from '../model/gateway/l4-routes.js';
import { nsKey } from '../model/keys.js';

/** One entry of a route's status.parents (as status/gateway.ts RouteParentStatus). */
interface ParentStatus {
  readonly parentRef: ParentReference;
  readonly controllerName: string;
  readonly conditions: readonly Condition[];
}

function cond(type: string, o: readonly [boolean, string, string], generation: number | undefined): Condition {
  return { type, status: o[0] ? 'True' : 'False', reason: o[1], message: o[2], ...(generation !== undefined ? { observedGeneration: generation } : {}) };
}

/** Every TCPRoute and UDPRoute keyed `namespace/name` → Portico's parent entries (empty: none of its Gateways named). */
export function l4RouteStatuses(
  snapshot: Snapshot,
  controllerName: string,
  flags: L4Flags | undefined,
): { readonly tcpRoutes: ReadonlyMap<string, readonly ParentStatus[]>; readonly udpRoutes: ReadonlyMap<string, readonly ParentStatus[]> } {
  const ctx = l4Context(snapshot, controllerName, flags);
  const { listeners, ours } = judgedListeners(snapshot, controllerName, ctx);
  const of = (kind: L4Kind): Map<string, ParentStatus[]> =>
    new Map(
      l4RoutesOf(snapshot, kind).map((route) => {
        const generation = route.metadata?.generation;
        const refs = l4ResolvedRefs(route, kind, snapshot);
        const parents = l4Parents(route, kind, listeners, ours).map((p) => ({
          parentRef: p.parentRef,
          controllerName,
          conditions: [cond('Accepted', p.accepted, generation), cond('ResolvedRefs', refs, generation)],
        }));
        return [nsKey(route), parents] as const;
      }),
    );
  return { tcpRoutes: of('TCPRoute'), udpRoutes: of('UDPRoute') };
}
