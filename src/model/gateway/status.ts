// The status Portico's Gateway API objects should carry (GatewayClass Accepted; HTTPRoute per-parent Accepted and ResolvedRefs), from the snapshot.
//
// Pure: conditions carry no lastTransitionTime (kube/gateway-status.ts keeps the old one or stamps the write).
import type { Snapshot } from '../input.js';
import { byName } from '../lookup.js';
import { GATEWAY_GROUP, type Condition, type HTTPRoute, type ParentReference } from './api.js';
import { allows, intersectHosts, refersTo, refOf, servedListeners, type ServedListener } from './attach.js';
import { granted } from './grants.js';

/** One entry of HTTPRoute status.parents. */
export interface RouteParentStatus {
  readonly parentRef: ParentReference;
  readonly controllerName: string;
  readonly conditions: readonly Condition[];
}

export interface DesiredGatewayStatus {
  /** Portico's GatewayClasses: name → conditions. */
  readonly classes: ReadonlyMap<string, readonly Condition[]>;
  /** Every HTTPRoute, keyed `namespace/name` → Portico's parent entries (empty: Portico writes none, and removes its old ones). */
  readonly routes: ReadonlyMap<string, readonly RouteParentStatus[]>;
}

const cond = (type: string, ok: boolean, reason: string, message: string, observedGeneration: number | undefined): Condition => ({
  type, status: ok ? 'True' : 'False', reason, message, ...(observedGeneration !== undefined ? { observedGeneration } : {}),
});

/** Accepted for one parentRef of a route: attached through some listener, or the specification's reason why not. */
function accepted(route: HTTPRoute, p: ParentReference, listeners: readonly ServedListener[]): [boolean, string, string] {
  const ns = route.metadata?.namespace ?? 'default';
  const named = listeners.filter((s) => refersTo(p, ns, s));
  if (named.length === 0) return [false, 'NoMatchingParent', 'no served listener matches the parentRef (sectionName, port, or a listener Portico does not serve: see the Gateway\'s Warnings)'];
  const allowed = named.filter((s) => allows(s, ns));
  if (allowed.length === 0) return [false, 'NotAllowedByListeners', `the listeners named do not allow routes from namespace ${ns}`];
  if (!allowed.some((s) => intersectHosts(s.listener.hostname, route.spec?.hostnames ?? []).length > 0)) {
    return [false, 'NoMatchingListenerHostname', 'no hostname of the route intersects the listeners\' hostnames'];
  }
  return [true, 'Accepted', 'the route is attached'];
}

/** ResolvedRefs of a route: every backendRef a Service that exists and may be referred to. */
function resolvedRefs(route: HTTPRoute, snapshot: Snapshot): [boolean, string, string] {
  const grants = snapshot.referenceGrants ?? [];
  const ns = route.metadata?.namespace ?? 'default';
  for (const [i, rule] of (route.spec?.rules ?? []).entries()) {
    for (const [j, b] of (rule.backendRefs ?? []).entries()) {
      const where = `spec.rules[${i}].backendRefs[${j}]`;
      if ((b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service') return [false, 'InvalidKind', `${where}: ${b.group ?? ''}/${b.kind ?? ''} is not a Service`];
      const to = b.namespace ?? ns;
      if (to !== ns && !granted(grants, { namespace: ns }, to, 'Service', b.name)) {
        return [false, 'RefNotPermitted', `${where}: no ReferenceGrant in namespace ${to} lets HTTPRoutes of ${ns} refer to Service ${b.name}`];
      }
      if (!byName(snapshot.services, to, b.name)) return [false, 'BackendNotFound', `${where}: Service ${to}/${b.name} not found`];
    }
  }
  return [true, 'ResolvedRefs', 'every backendRef resolved'];
}

/** Is this parentRef a Gateway of one of Portico's GatewayClasses? */
function ours(p: ParentReference, routeNs: string, gateways: ReadonlySet<string>): boolean {
  return (p.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && (p.kind ?? 'Gateway') === 'Gateway' && gateways.has(`${p.namespace ?? routeNs}/${p.name}`);
}

export function desiredGatewayStatus(snapshot: Snapshot, controllerName: string): DesiredGatewayStatus {
  const classes = new Map<string, readonly Condition[]>();
  for (const c of snapshot.gatewayClasses ?? []) {
    if (c.spec?.controllerName !== controllerName) continue;
    classes.set(c.metadata?.name ?? '', [cond('Accepted', true, 'Accepted', `handled by ${controllerName}`, c.metadata?.generation)]);
  }
  const gateways = new Set((snapshot.gateways ?? []).filter((g) => classes.has(g.spec?.gatewayClassName ?? ''))
    .map((g) => `${g.metadata?.namespace ?? 'default'}/${g.metadata?.name ?? ''}`));
  const { served } = servedListeners(snapshot, controllerName);
  const routes = new Map<string, readonly RouteParentStatus[]>();
  for (const route of snapshot.httpRoutes ?? []) {
    const ref = refOf('HTTPRoute', route);
    const generation = route.metadata?.generation;
    const refs = resolvedRefs(route, snapshot);
    const parents = (route.spec?.parentRefs ?? []).filter((p) => ours(p, ref.namespace, gateways)).map((p): RouteParentStatus => {
      const a = accepted(route, p, served);
      return { parentRef: p, controllerName, conditions: [cond('Accepted', ...a, generation), cond('ResolvedRefs', ...refs, generation)] };
    });
    routes.set(`${ref.namespace}/${ref.name}`, parents);
  }
  return { classes, routes };
}
