// The status Portico's Gateway API objects should carry, from the snapshot: GatewayClass Accepted; Gateway Accepted,
// Programmed, addresses and per-listener status; HTTPRoute, GRPCRoute and TLSRoute per-parent Accepted and ResolvedRefs.
//
// Pure: conditions carry no lastTransitionTime (kube/gateway-status.ts keeps the old one or stamps the write).
import { gatewayTlsConditions } from '../model/gateway/backend-client-cert.js';
import { ruleProtocol } from '../model/gateway/app-protocol.js';
import { h2cListener } from '../model/gateway/h2c.js';
import type { Snapshot } from '../model/input.js';
import { byName } from '../model/lookup.js';
import { GATEWAY_GROUP, type Condition, type Gateway, type GRPCRoute, type HTTPRoute, type ParentReference, type RouteGroupKind, type TLSRoute } from '../model/gateway/api.js';
import { allows, attach, intersectHosts, ourGateways, refersTo, refOf, servedListeners, type RouteKind, type ServedListener } from '../model/gateway/attach.js';
import { kindConflicts, listenerKey, routeKey, type AttachedRoute } from '../model/gateway/kind-conflicts.js';
import { granted } from '../model/gateway/grants.js';
import { judgeListeners, unsupportedAddress, type JudgedListener, type Outcome } from '../model/gateway/listeners.js';
import { nsKey, refKey } from '../model/keys.js';
import { supportedVersion, type BundleReading } from './gateway-version.js';
import { classParameters, gatewayParameters } from '../model/gateway/parameters.js';
import { backendTlsPolicyStatus, type PolicyAncestorStatus } from './backend-tls.js';
import { l4KindOf } from '../model/gateway/l4-api.js';
import { l4AttachedCount, l4Context, type L4Context, type L4Flags } from '../model/gateway/l4.js';
import { l4RouteStatuses } from './gateway-l4.js';
import { portJudge, type ListenerPortPolicy, type PortJudge } from '../model/gateway/listener-ports.js';
import { listenerSetStatuses, type ListenerSetStatus } from './listenerset.js';
import { withSetListeners } from '../model/gateway/listenerset.js';
import { localPort, trafficPort } from '../model/gateway/ports.js';
import { claimedAddresses, staticClaims, type GatewayAddress, type StaticClaims } from './gateway-addresses.js';

/** One entry of HTTPRoute status.parents. */
export interface RouteParentStatus {
  readonly parentRef: ParentReference;
  readonly controllerName: string;
  readonly conditions: readonly Condition[];
}

export type { GatewayAddress } from './gateway-addresses.js';

/** Ingress status addresses (status/address.ts) as Gateway status.addresses: IPs as IPAddress, names as Hostname. */
export function gatewayAddresses(list: readonly ({ readonly ip: string } | { readonly hostname: string })[] | undefined): GatewayAddress[] | undefined {
  return list?.map((a): GatewayAddress => ('ip' in a ? { type: 'IPAddress', value: a.ip } : { type: 'Hostname', value: a.hostname }));
}

/** One entry of Gateway status.listeners. */
export interface ListenerStatus {
  readonly name: string;
  readonly supportedKinds: readonly RouteGroupKind[];
  readonly attachedRoutes: number;
  readonly conditions: readonly Condition[];
}

/** Gateway status: `addresses` absent when they are unknown (the writer then leaves them as they are). */
export interface GatewayStatus {
  readonly addresses?: readonly GatewayAddress[];
  readonly conditions: readonly Condition[];
  readonly listeners: readonly ListenerStatus[];
  /** The ListenerSets whose listeners the Gateway takes (status/listenerset.ts); absent when none names it. */
  readonly attachedListenerSets?: number;
}

export interface DesiredGatewayStatus {
  /** Portico's GatewayClasses: name → conditions. */
  readonly classes: ReadonlyMap<string, readonly Condition[]>;
  /** Gateways of Portico's classes, keyed `namespace/name`. */
  readonly gateways: ReadonlyMap<string, GatewayStatus>;
  /** Every HTTPRoute, keyed `namespace/name` → Portico's parent entries (empty: Portico writes none, and removes its old ones). */
  readonly routes: ReadonlyMap<string, readonly RouteParentStatus[]>;
  /** Every GRPCRoute, the same way. */
  readonly grpcRoutes: ReadonlyMap<string, readonly RouteParentStatus[]>;
  /** Every BackendTLSPolicy, keyed `namespace/name` → Portico's ancestor entries (status/backend-tls.ts). */
  readonly backendTlsPolicies: ReadonlyMap<string, readonly PolicyAncestorStatus[]>;
  /** Every TLSRoute, the same way. */
  readonly tlsRoutes: ReadonlyMap<string, readonly RouteParentStatus[]>;
  /** Every TCPRoute and UDPRoute, the same way (status/gateway-l4.ts). */
  readonly tcpRoutes?: ReadonlyMap<string, readonly RouteParentStatus[]>;
  readonly udpRoutes?: ReadonlyMap<string, readonly RouteParentStatus[]>;
  /** Every ListenerSet naming one of Portico's Gateways, keyed `namespace/name` (status/listenerset.ts). */
  readonly listenerSets?: ReadonlyMap<string, ListenerSetStatus>;
}

const cond = (type: string, ok: boolean, reason: string, message: string, observedGeneration: number | undefined): Condition => ({
  type,
  status: ok ? 'True' : 'False',
  reason,
  message,
  ...(observedGeneration !== undefined ? { observedGeneration } : {}),
});

const outcome = (type: string, o: Outcome, generation: number | undefined): Condition => cond(type, o[0], o[1], o[2], generation);

/** Programmed of a listener: served, and every reference it needs resolved (unsupported extra route kinds aside). */
function programmed(j: JudgedListener, ports: PortJudge): Outcome {
  if (j.refusal !== undefined) return [false, 'Invalid', `not served: ${j.refusal}`];
  if (j.supportedKinds.length === 0)
    return [
      false,
      'Invalid',
      'allowedRoutes.kinds admits no route kind Portico serves (HTTPRoute; GRPCRoute on HTTPS and on HTTP with --gateway-h2c-ports; TLSRoute on TLS; TCPRoute on TCP, UDPRoute on UDP)',
    ];
  if (l4KindOf(j.listener.protocol)) return [true, 'Programmed', j.accepted[2]];
  if (!j.resolvedRefs[0] && j.resolvedRefs[1] !== 'InvalidRouteKinds') return [false, 'Invalid', `${j.resolvedRefs[2]}; its hostnames are answered with the default certificate`];
  if (j.listener.protocol === 'TLS') return [true, 'Programmed', `served by the stream section on ${j.listener.port === 443 ? '--https-port' : `the local port of ${j.listener.port}`}`];
  const { protocol, port } = j.listener;
  const gw = `${j.gateway.namespace}/${j.gateway.name}`;
  const traffic = trafficPort(ports.policy.ports, protocol, port, gw);
  const flag = traffic && protocol === 'HTTP' ? ' (--http-port)' : traffic ? ' (--https-port)' : '';
  const h2c = h2cListener(ports.policy.ports, protocol, port, gw) ? ', HTTP/2 cleartext only (--gateway-h2c-ports)' : '';
  return [true, 'Programmed', `served on local port ${String(localPort(ports.policy.ports, protocol, port, gw))}${flag}${h2c}`];
}

/** spec.tls conditions (model/gateway/backend-client-cert.ts): ResolvedRefs, InsecureFrontendValidationMode. */
const tlsConditions = (g: Gateway, snapshot: Snapshot, generation: number | undefined): Condition[] => gatewayTlsConditions(g, snapshot).map(([t, o]) => outcome(t, o, generation));

/** The status of one Gateway: listeners judged, routes attached to each, addresses as Ingress status computes them. */
function gatewayStatus(
  g: Gateway,
  snapshot: Snapshot,
  addresses: readonly GatewayAddress[] | undefined,
  how: { readonly l4: L4Context; readonly ports: PortJudge; readonly claims: StaticClaims },
): GatewayStatus {
  const generation = g.metadata?.generation;
  const judged = judgeListeners(g, refOf('Gateway', g), snapshot, how);
  const unsupported = unsupportedAddress(g);
  const parameters = gatewayParameters(g);
  const listeners = judged.map((j): ListenerStatus => {
    const counts = (list: readonly (HTTPRoute | GRPCRoute | TLSRoute)[], kind: RouteKind): number =>
      list.filter((r) => {
        const ns = r.metadata?.namespace ?? 'default';
        // The specification counts a route only where it is accepted: allowed, named, and a hostname intersects.
        return allows(j, ns, kind) && (r.spec?.parentRefs ?? []).some((p) => refersTo(p, ns, j)) && intersectHosts(j.listener.hostname, r.spec?.hostnames ?? []).length > 0;
      }).length;
    const attachedRoutes =
      counts(snapshot.httpRoutes ?? [], 'HTTPRoute') + counts(snapshot.grpcRoutes ?? [], 'GRPCRoute') + counts(snapshot.tlsRoutes ?? [], 'TLSRoute') + l4AttachedCount(j, snapshot);
    return {
      name: j.listener.name,
      supportedKinds: j.supportedKinds,
      attachedRoutes,
      conditions: [
        outcome('Accepted', j.accepted, generation),
        outcome('Programmed', unsupported || parameters ? [false, 'Invalid', `the Gateway is not served (${parameters ? parameters.field : 'spec.addresses'})`] : programmed(j, how.ports), generation),
        outcome('ResolvedRefs', j.resolvedRefs, generation),
        outcome('Conflicted', j.conflicted, generation),
      ],
    };
  });
  const valid = judged.filter((j) => j.refusal === undefined).length;
  const accepted: Outcome = parameters
    ? [false, 'InvalidParameters', `${parameters.field}: ${parameters.reason.replace(/^InvalidParameters: /, '')}`]
    : unsupported
      ? [false, 'UnsupportedAddress', `spec.addresses[${unsupported.index}]: type ${unsupported.type} is not supported (IPAddress, Hostname); the Gateway is not served`]
      : valid === judged.length
        ? [true, 'Accepted', 'every listener is valid']
        : [valid > 0, 'ListenersNotValid', `${judged.length - valid} of ${judged.length} listeners are not served (see status.listeners)`];
  // a Gateway refused whole is served nowhere: bound to no address (status/gateway-addresses.ts, docs/adr/0037)
  const claim = unsupported || parameters ? { addresses: [] } : claimedAddresses(g, addresses, how.claims);
  const prog: Outcome = !accepted[0]
    ? [false, 'Invalid', 'the Gateway is not accepted']
    : claim.problem
      ? claim.problem
      : listeners.some((l) => l.conditions[1]?.status === 'True')
        ? [true, 'Programmed', "nginx serves the Gateway's listeners"]
        : [false, 'Invalid', 'no listener is programmed'];
  return {
    ...(claim.addresses !== undefined ? { addresses: claim.addresses } : {}),
    conditions: [outcome('Accepted', accepted, generation), outcome('Programmed', prog, generation), ...tlsConditions(g, snapshot, generation)],
    listeners,
  };
}

/**
 * Accepted for one parentRef of a route: attached through some listener, or the specification's reason why not.
 * `conflicts`: the listeners (listenerKey) where an older route of the other kind keeps the route's hostnames.
 */
function accepted(
  route: HTTPRoute | GRPCRoute | TLSRoute,
  kind: RouteKind,
  p: ParentReference,
  listeners: readonly ServedListener[],
  conflicts?: ReadonlyMap<string, string>,
): [boolean, string, string] {
  const ns = route.metadata?.namespace ?? 'default';
  const named = listeners.filter((s) => refersTo(p, ns, s));
  if (named.length === 0) return [false, 'NoMatchingParent', "no served listener matches the parentRef (sectionName, port, or a listener Portico does not serve: see the Gateway's Warnings)"];
  const allowed = named.filter((s) => allows(s, ns, kind));
  if (allowed.length === 0) {
    const why = kind === 'GRPCRoute' ? ' (GRPCRoute attaches to HTTPS listeners only: docs/adr/0020)' : '';
    return [false, 'NotAllowedByListeners', `the listeners named do not allow ${kind}s from namespace ${ns}${why}`];
  }
  const matching = allowed.filter((s) => intersectHosts(s.listener.hostname, route.spec?.hostnames ?? []).length > 0);
  if (matching.length === 0) return [false, 'NoMatchingListenerHostname', "no hostname of the route intersects the listeners' hostnames"];
  const free = matching.filter((s) => !conflicts?.has(listenerKey(s)));
  if (free.length === 0) {
    const why = conflicts?.get(listenerKey(matching[0] as ServedListener)) ?? '';
    return [false, 'NotAllowedByListeners', why.replace(/^NotAllowedByListeners: /, '')];
  }
  return [true, 'Accepted', 'the route is attached'];
}

/** ResolvedRefs of a route: every backendRef a Service that exists and may be referred to. */
function resolvedRefs(route: HTTPRoute | GRPCRoute | TLSRoute, kind: RouteKind, snapshot: Snapshot): [boolean, string, string] {
  const grants = snapshot.referenceGrants ?? [];
  const ns = route.metadata?.namespace ?? 'default';
  for (const [i, rule] of (route.spec?.rules ?? []).entries()) {
    for (const [j, b] of (rule.backendRefs ?? []).entries()) {
      const where = `spec.rules[${i}].backendRefs[${j}]`;
      if ((b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service') return [false, 'InvalidKind', `${where}: ${b.group ?? ''}/${b.kind ?? ''} is not a Service`];
      const to = b.namespace ?? ns;
      if (to !== ns && !granted(grants, { namespace: ns, kind }, to, 'Service', b.name)) {
        return [false, 'RefNotPermitted', `${where}: no ReferenceGrant in namespace ${to} lets ${kind}s of ${ns} refer to Service ${b.name}`];
      }
      const service = byName(snapshot.services, to, b.name);
      if (!service) return [false, 'BackendNotFound', `${where}: Service ${to}/${b.name} not found`];
    }
    const protocol = kind === 'HTTPRoute' ? ruleProtocol(snapshot.services, ns, rule.backendRefs ?? []) : 'http';
    if (typeof protocol === 'object') return [false, 'UnsupportedProtocol', `spec.rules[${i}].backendRefs: ${protocol.reason.replace(/^UnsupportedProtocol: /, '')}`];
  }
  return [true, 'ResolvedRefs', 'every backendRef resolved'];
}

/** Is this parentRef a Gateway of one of Portico's GatewayClasses, or a ListenerSet of one (`sets`: `namespace/name`)? */
function ours(p: ParentReference, routeNs: string, gateways: ReadonlySet<string>, sets: ReadonlySet<string> = new Set()): boolean {
  if ((p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP) return false;
  const key = `${p.namespace ?? routeNs}/${p.name}`;
  return (p.kind ?? 'Gateway') === 'Gateway' ? gateways.has(key) : p.kind === 'ListenerSet' && sets.has(key);
}

/**
 * Everything Portico's status writer (kube/gateway-status.ts) and /debug/gateway show. `addresses`: the Gateway
 * addresses (--publish-status-address, else the --publish-service Service, else the nodes), or undefined when unknown;
 * `bundle`: the CRDs' annotations (kube/gateway-crds.ts) and --gateway-api-experimental-features, or undefined when not
 * read (no SupportedVersion then; status/gateway-version.ts). `ports`: where HTTP and HTTPS listeners are served
 * (model/gateway/listener-ports.ts); `l4Flags`: the same for TCP and UDP listeners (model/gateway/l4.ts).
 * `staticAddresses`: --gateway-static-addresses, the addresses a Gateway's spec.addresses may claim besides Portico's
 * own (status/gateway-addresses.ts).
 * `partial`: routes (`namespace/name`) the model serves only in part, with why (a match refused on a shared host,
 * docs/adr/0017): their parents carry PartiallyInvalid (reason UnsupportedValue), as the specification's condition for
 * a route some of whose rules or matches are not served.
 */
export function desiredGatewayStatus(
  snapshot: Snapshot,
  controllerName: string,
  addresses?: readonly GatewayAddress[],
  bundle?: BundleReading,
  {
    partial = new Map(),
    ports,
    l4Flags,
    staticAddresses = [],
  }: { readonly partial?: ReadonlyMap<string, string>; readonly ports?: ListenerPortPolicy; readonly l4Flags?: L4Flags; readonly staticAddresses?: readonly string[] } = {},
): DesiredGatewayStatus {
  const l4 = l4Context(snapshot, controllerName, l4Flags);
  const classes = new Map<string, readonly Condition[]>();
  const version = bundle ? supportedVersion(bundle) : undefined;
  for (const c of snapshot.gatewayClasses ?? []) {
    if (c.spec?.controllerName !== controllerName) continue;
    const generation = c.metadata?.generation;
    const acceptedClass = classParameters(c) ?? [true, 'Accepted', `handled by ${controllerName}`];
    classes.set(c.metadata?.name ?? '', [outcome('Accepted', acceptedClass, generation), ...(version ? [outcome('SupportedVersion', version, generation)] : [])]);
  }
  const mine = ourGateways(snapshot, controllerName);
  const gateways = new Set(mine.map((g) => nsKey(g)));
  const judge = portJudge(
    mine.map((g) => withSetListeners(g, snapshot)),
    ports,
  );
  const claims = staticClaims(
    mine.filter((g) => !unsupportedAddress(g) && !gatewayParameters(g)),
    staticAddresses,
  );
  const gatewayStatuses = new Map(mine.map((g) => [nsKey(g), gatewayStatus(g, snapshot, addresses, { l4, ports: judge, claims })] as const));
  const { served, sets } = servedListeners(snapshot, controllerName, l4, ports);
  const setKeys = new Set(sets.map((s) => refKey(s.set.namespace, s.set.name)));
  const { listenerSets, attachedListenerSets } = listenerSetStatuses(sets, snapshot);
  for (const [key, n] of attachedListenerSets) {
    const g = gatewayStatuses.get(key);
    if (g) gatewayStatuses.set(key, { ...g, attachedListenerSets: n });
  }
  const all: AttachedRoute[] = [
    ...(snapshot.httpRoutes ?? []).map((route) => ({ route, kind: 'HTTPRoute' as const, attached: attach(route, served) })),
    ...(snapshot.grpcRoutes ?? []).map((route) => ({ route, kind: 'GRPCRoute' as const, attached: attach(route, served, 'GRPCRoute') })),
  ];
  const conflicts = kindConflicts(all);
  const statusOf = (route: HTTPRoute | GRPCRoute | TLSRoute, kind: RouteKind): readonly RouteParentStatus[] => {
    const ref = refOf(kind, route);
    const generation = route.metadata?.generation;
    const refs = resolvedRefs(route, kind, snapshot);
    return (route.spec?.parentRefs ?? [])
      .filter((p) => ours(p, ref.namespace, gateways, setKeys))
      .map((p): RouteParentStatus => {
        const a = accepted(route, kind, p, served, conflicts.get(routeKey(ref)));
        // `partial` names HTTPRoutes (a match refused on a shared host); a GRPCRoute's such Problems are Warnings only.
        const why = kind === 'HTTPRoute' ? partial.get(refKey(ref.namespace, ref.name)) : undefined;
        const part = why !== undefined && a[0] ? [cond('PartiallyInvalid', true, 'UnsupportedValue', why, generation)] : [];
        return { parentRef: p, controllerName, conditions: [cond('Accepted', ...a, generation), cond('ResolvedRefs', ...refs, generation), ...part] };
      });
  };
  const routes = new Map((snapshot.httpRoutes ?? []).map((r) => [nsKey(r), statusOf(r, 'HTTPRoute')] as const));
  const grpcRoutes = new Map((snapshot.grpcRoutes ?? []).map((r) => [nsKey(r), statusOf(r, 'GRPCRoute')] as const));
  const tlsRoutes = new Map((snapshot.tlsRoutes ?? []).map((r) => [nsKey(r), statusOf(r, 'TLSRoute')] as const));
  return {
    classes,
    gateways: gatewayStatuses,
    routes,
    grpcRoutes,
    tlsRoutes,
    backendTlsPolicies: backendTlsPolicyStatus(snapshot, controllerName, served),
    ...l4RouteStatuses(snapshot, controllerName, l4Flags),
    listenerSets,
  };
}
