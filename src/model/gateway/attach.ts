// Which listeners of Portico's Gateways an HTTPRoute attaches to, and the hostnames it serves there (Gateway API semantics).
import type { Snapshot } from '../input.js';
import type { ObjectRef } from '../types.js';
import { GATEWAY_GROUP, type Gateway, type GRPCRoute, type HTTPRoute, type Listener, type ParentReference, type TLSRoute } from './api.js';

/** The route kinds Portico serves. */
export type RouteKind = 'HTTPRoute' | 'GRPCRoute' | 'TLSRoute';
import { judgeListeners, unsupportedAddress } from './listeners.js';
import { classParameters, gatewayParameters } from './parameters.js';
import { l4Context, type L4Context } from './l4.js';
import { portJudge, type ListenerPortPolicy } from './listener-ports.js';
import { judgeListenerSets, parentNotAccepted, withSetListeners, type JudgedListenerSet, type ListenerSetRef } from './listenerset.js';

/** A listener Portico serves: HTTP or HTTPS on its local port (model/gateway/listener-ports.ts; 80 on --http-port, 443 on --https-port). */
export interface ServedListener {
  readonly gateway: ObjectRef;
  /** The ListenerSet that added the listener (model/gateway/listenerset.ts); absent: the Gateway's own. Routes name it, not the Gateway. */
  readonly set?: ListenerSetRef;
  readonly listener: Listener;
  /** `spec.listeners[i]` of the Gateway, for Problems. */
  readonly field: string;
  /** allowedRoutes.namespaces.from Selector: the namespaces whose labels it selects. */
  readonly selected?: ReadonlySet<string>;
  /** allowedRoutes.kinds admits HTTPRoute (absent: true). */
  readonly routeKinds?: boolean;
  /** allowedRoutes.kinds admits GRPCRoute (absent: false; HTTPS listeners, and HTTP ones on an h2c port: docs/adr/0029). */
  readonly grpcKinds?: boolean;
  /** allowedRoutes.kinds admits TLSRoute (absent: false; TLS listeners only). */
  readonly tlsKinds?: boolean;
}

export function refOf(kind: string, obj: { metadata?: { namespace?: string; name?: string } }): ObjectRef {
  return { kind, namespace: obj.metadata?.namespace ?? 'default', name: obj.metadata?.name ?? '' };
}

/** The Gateways of Portico's GatewayClasses, in the snapshot's order. */
export function ourGateways(snapshot: Snapshot, controllerName: string): Gateway[] {
  // a class naming parameters is not accepted (InvalidParameters, model/gateway/parameters.ts): its Gateways are not ours to serve
  const classes = new Set((snapshot.gatewayClasses ?? []).filter((c) => c.spec?.controllerName === controllerName && !classParameters(c)).map((c) => c.metadata?.name ?? ''));
  return (snapshot.gateways ?? []).filter((g) => classes.has(g.spec?.gatewayClassName ?? ''));
}

/**
 * The listeners of Portico's Gateways it serves, and the reasons others (or parts of them: unsupported route kinds)
 * are not.
 */
export function servedListeners(
  snapshot: Snapshot,
  controllerName: string,
  l4?: L4Context,
  ports?: ListenerPortPolicy,
): { served: ServedListener[]; refused: { gateway: ObjectRef; field: string; reason: string }[]; sets: JudgedListenerSet[] } {
  const served: ServedListener[] = [];
  const sets: JudgedListenerSet[] = [];
  const refused: { gateway: ObjectRef; field: string; reason: string }[] = [];
  const gateways = ourGateways(snapshot, controllerName);
  // admitted ListenerSets' listeners claim local ports as their Gateway's (model/gateway/listenerset.ts)
  const judge = portJudge(
    gateways.map((g) => withSetListeners(g, snapshot)),
    ports,
  );
  for (const g of gateways) {
    const address = unsupportedAddress(g);
    if (address) {
      refused.push({
        gateway: refOf('Gateway', g),
        field: `spec.addresses[${address.index}].type`,
        reason: `UnsupportedAddress: type ${address.type} is not supported (IPAddress, Hostname); the Gateway is not served`,
      });
      sets.push(...parentNotAccepted(snapshot, refOf('Gateway', g), `spec.addresses[${address.index}].type ${address.type} is not supported`));
      continue;
    }
    const parameters = gatewayParameters(g);
    if (parameters) {
      refused.push({ gateway: refOf('Gateway', g), ...parameters });
      sets.push(...parentNotAccepted(snapshot, refOf('Gateway', g), parameters.field));
      continue;
    }
    const how = { l4: l4 ?? l4Context(snapshot, controllerName), ports: judge };
    const own = judgeListeners(g, refOf('Gateway', g), snapshot, how);
    // ListenerSets' listeners join their Gateway's after its own (model/gateway/listenerset.ts); their Problems are the ListenerSet's
    const added = judgeListenerSets(g, refOf('Gateway', g), snapshot, how);
    for (const s of added) if (!s.accepted[0] && s.listeners.length === 0) refused.push({ gateway: s.set, field: 'spec.parentRef', reason: `${s.accepted[1]}: ${s.accepted[2]}` });
    sets.push(...added);
    for (const j of [...own, ...added.flatMap((s) => s.listeners)]) {
      const about = j.set ? { kind: j.set.kind, namespace: j.set.namespace, name: j.set.name } : j.gateway;
      for (const [field, reason] of j.warnings) refused.push({ gateway: about, field, reason });
      if (j.refusal !== undefined) refused.push({ gateway: about, field: j.refusalField ?? j.field, reason: j.refusal });
      else served.push(j);
    }
  }
  return { served, refused, sets };
}

/** `*.example.com` matches `a.example.com` and `a.b.example.com`, never `example.com` (Gateway API wildcards take one or more labels). */
function wildcardMatches(wild: string, host: string): boolean {
  return host.endsWith(wild.slice(1)) && host.length > wild.length - 1;
}

/**
 * The hostnames a route serves on a listener: the intersection of the route's hostnames and the listener's hostname.
 * Neither set: every host (''). Empty result: the route does not attach (NoMatchingListenerHostname).
 */
export function intersectHosts(listener: string | undefined, route: readonly string[]): string[] {
  const l = listener?.toLowerCase();
  if (route.length === 0) return [l ?? ''];
  const out = new Set<string>();
  for (const raw of route) {
    const h = raw.toLowerCase();
    if (l === undefined) out.add(h);
    else if (h === l) out.add(h);
    else if (l.startsWith('*.') && !h.startsWith('*.') && wildcardMatches(l, h)) out.add(h);
    else if (h.startsWith('*.') && !l.startsWith('*.') && wildcardMatches(h, l)) out.add(l);
    else if (h.startsWith('*.') && l.startsWith('*.')) {
      if (wildcardMatches(l, h.slice(2))) out.add(h);
      else if (wildcardMatches(h, l.slice(2))) out.add(l);
    }
  }
  return [...out].sort();
}

/** Does this parentRef name this listener of this Gateway (kind, namespace, name, sectionName, port)? */
export function refersTo(p: ParentReference, routeNs: string, s: ServedListener): boolean {
  // a ListenerSet's listeners are named through the ListenerSet only, never through their Gateway
  const parent = s.set ?? s.gateway;
  if ((p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP || (p.kind ?? 'Gateway') !== (s.set ? 'ListenerSet' : 'Gateway')) return false;
  if ((p.namespace ?? routeNs) !== parent.namespace || p.name !== parent.name) return false;
  if (p.sectionName !== undefined && p.sectionName !== s.listener.name) return false;
  return p.port === undefined || p.port === s.listener.port;
}

/** Does the listener's allowedRoutes admit a route of this kind and namespace (from Same, All, Selector; kinds)? */
export function allows(s: ServedListener, routeNs: string, kind: RouteKind = 'HTTPRoute'): boolean {
  if (kind === 'HTTPRoute' ? s.routeKinds === false : (kind === 'GRPCRoute' ? s.grpcKinds : s.tlsKinds) !== true) return false;
  const from = s.listener.allowedRoutes?.namespaces?.from ?? 'Same';
  return from === 'All' || (from === 'Same' && routeNs === (s.set ?? s.gateway).namespace) || (from === 'Selector' && s.selected?.has(routeNs) === true);
}

/** Where a route attached: the listener and the hosts the route serves through it. */
export interface Attachment {
  readonly listener: ServedListener;
  readonly hosts: readonly string[];
  /** The route that attached. */
  readonly route: ObjectRef;
}

/** The hosts a route serves across all its parentRefs (and through which listeners), or the reason it attaches to nothing. */
export function attach(route: HTTPRoute | GRPCRoute | TLSRoute, listeners: readonly ServedListener[], kind: RouteKind = 'HTTPRoute'): { hosts: string[]; via: Attachment[] } | { reason: string } {
  const ns = route.metadata?.namespace ?? 'default';
  const hosts = new Set<string>();
  let named = false;
  let allowed = false;
  const via: Attachment[] = [];
  for (const p of route.spec?.parentRefs ?? []) {
    for (const s of listeners.filter((x) => refersTo(p, ns, x))) {
      named = true;
      if (!allows(s, ns, kind)) continue;
      allowed = true;
      const here = intersectHosts(s.listener.hostname, route.spec?.hostnames ?? []);
      if (here.length > 0) via.push({ listener: s, hosts: here, route: refOf(kind, route) });
      for (const h of here) hosts.add(h);
    }
  }
  if (hosts.size > 0) return { hosts: [...hosts].sort(), via };
  if (!named) return { reason: "NoMatchingParent: no parentRef names a served listener of a Gateway of Portico's GatewayClass" };
  if (!allowed)
    return {
      reason: `NotAllowedByListeners: the listeners named do not allow ${kind === 'GRPCRoute' ? 'GRPCRoutes (HTTPS listeners, or HTTP listeners on an --gateway-h2c-ports port: docs/adr/0029) or routes' : 'routes'} from this namespace`,
    };
  return { reason: "NoMatchingListenerHostname: no hostname of the route intersects the listeners' hostnames" };
}
