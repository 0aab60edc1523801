// TCP and UDP listeners and the TCPRoutes and UDPRoutes on them (docs/adr/0023): where a listener is served (its
// local port, unless Portico or a tcp/udp-services entry holds that port), which routes attach through each parentRef
// and with which reason, and which one route serves a listener (the oldest: one listener is one stream server).
import type { Snapshot } from '../input.js';
import type { ObjectRef } from '../types.js';
import { byClaimAge } from '../hosts.js';
import { refKey } from '../keys.js';
import type { ParentReference, Listener } from './api.js';
import { GATEWAY_GROUP } from './api.js';
import { l4KindOf, L4_PROTOCOL, type L4Kind, type L4Route } from './l4-api.js';
import { DEFAULT_PORTS, localPort, unlisted, type PortOptions } from './ports.js';
import { socketClaims, type SocketClaims } from './socket-clash.js';
import { portListeners } from './listenerset.js';

type Outcome = readonly [ok: boolean, reason: string, message: string];

/** What the flags say about ports: where listener ports are served, Portico's own ports, the stream ConfigMaps. */
export interface L4Flags {
  readonly ports?: PortOptions;
  readonly reserved?: readonly number[];
  readonly tcp?: { readonly namespace: string; readonly name: string } | undefined;
  readonly udp?: { readonly namespace: string; readonly name: string } | undefined;
}

/** The local ports TCP and UDP listeners may not take, and which listener holds each local port it takes. */
export interface L4Context {
  readonly ports: PortOptions;
  /** Portico's own ports (traffic, healthz, status, default server, webhook). */
  readonly reserved: readonly number[];
  /** The ports the tcp-services and udp-services ConfigMaps take. */
  readonly taken: { readonly TCP: readonly number[]; readonly UDP: readonly number[] };
  /** `TCP:port` / `UDP:port` (local) → the listener (`namespace/gateway/listener`) that holds it: oldest Gateway first. */
  readonly holders: ReadonlyMap<string, string>;
  /** Local TCP port → the nginx section (http or stream) whose listener holds it (model/gateway/socket-clash.ts). */
  readonly sockets?: SocketClaims;
}

/** The part of a judged listener attachment reads (model/gateway/listeners.ts JudgedListener). */
export interface L4Listener {
  readonly gateway: ObjectRef;
  /** The ListenerSet that added the listener (model/gateway/listenerset.ts): routes name it, not the Gateway. */
  readonly set?: ObjectRef;
  readonly listener: Listener;
  readonly field: string;
  readonly selected?: ReadonlySet<string>;
  readonly supportedKinds: readonly { readonly group?: string; readonly kind: string }[];
  readonly refusal?: string;
}

/** `namespace/gateway/listener`, or `namespace/gateway/setNamespace/set/listener` for a ListenerSet's (names are unique per ListenerSet only). */
export const listenerId = (gateway: ObjectRef, name: string, set?: ObjectRef): string =>
  set ? `${gateway.namespace}/${gateway.name}/${set.namespace}/${set.name}/${name}` : `${gateway.namespace}/${gateway.name}/${name}`;

function configMapPorts(snapshot: Snapshot, ref: L4Flags['tcp']): number[] {
  if (!ref) return [];
  const cm = snapshot.configMaps.find((c) => c.metadata?.namespace === ref.namespace && c.metadata.name === ref.name);
  return Object.keys(cm?.data ?? {})
    .filter((k) => /^[0-9]{1,5}$/.test(k))
    .map(Number);
}

/** Why a local port is not free for a listener of `protocol` before any Gateway takes it, or undefined. */
function blocked(ctx: Omit<L4Context, 'holders'>, protocol: 'TCP' | 'UDP', port: number): string | undefined {
  if (ctx.reserved.includes(port) || port === ctx.ports.httpPort || port === ctx.ports.httpsPort) return `local port ${port} is one of Portico's own ports`;
  if (ctx.taken[protocol].includes(port)) return `local port ${port} is taken by the ${protocol.toLowerCase()}-services ConfigMap`;
  return undefined;
}

/** The context of one build, from the snapshot (Gateways of `controllerName`'s classes, the stream ConfigMaps) and the flags. */
export function l4Context(snapshot: Snapshot, controllerName: string, flags: L4Flags = {}): L4Context {
  const base = { ports: flags.ports ?? DEFAULT_PORTS, reserved: flags.reserved ?? [], taken: { TCP: configMapPorts(snapshot, flags.tcp), UDP: configMapPorts(snapshot, flags.udp) } };
  const classes = new Set((snapshot.gatewayClasses ?? []).filter((c) => c.spec?.controllerName === controllerName).map((c) => c.metadata?.name ?? ''));
  const gateways = (snapshot.gateways ?? [])
    .filter((g) => classes.has(g.spec?.gatewayClassName ?? ''))
    .map((g) => ({ g, ref: { kind: 'Gateway', namespace: g.metadata?.namespace ?? 'default', name: g.metadata?.name ?? '' }, created: g.metadata?.creationTimestamp }))
    .sort(byClaimAge);
  const holders = new Map<string, string>();
  // a Gateway's ListenerSets' listeners take ports after its own, at its age (model/gateway/listenerset.ts portListeners)
  const withSets = gateways.map(({ g, ref }) => ({ ref, listeners: portListeners(g, snapshot) }));
  for (const { ref, listeners } of withSets) {
    const gw = `${ref.namespace}/${ref.name}`;
    for (const { listener: l, set } of listeners) {
      const kind = l4KindOf(l.protocol);
      if (!kind) continue;
      const protocol = L4_PROTOCOL[kind];
      const local = localPort(base.ports, l.protocol, l.port, gw);
      const key = `${protocol}:${local}`;
      if (unlisted(base.ports, l.protocol, l.port, gw) === undefined && blocked(base, protocol, local) === undefined && !holders.has(key)) holders.set(key, listenerId(ref, l.name, set));
    }
  }
  return {
    ...base,
    holders,
    sockets: socketClaims(
      withSets.map(({ ref, listeners }) => ({ ref, listeners: listeners.map((p) => p.listener) })),
      base.ports,
    ),
  };
}

/** Accepted of a TCP or UDP listener: its local port free of Portico's own, the stream ConfigMaps' and older Gateways'. */
export function l4Acceptance(l: Listener, gateway: ObjectRef, ctx: L4Context, set?: ObjectRef): Outcome {
  const protocol = l.protocol === 'UDP' ? 'UDP' : 'TCP';
  const gw = `${gateway.namespace}/${gateway.name}`;
  const local = localPort(ctx.ports, l.protocol, l.port, gw);
  const off = unlisted(ctx.ports, l.protocol, l.port, gw);
  if (off !== undefined) return [false, 'PortUnavailable', off];
  const why = blocked(ctx, protocol, local);
  const holder = ctx.holders.get(`${protocol}:${local}`);
  const at = local === l.port ? `port ${l.port}` : `port ${l.port} (local port ${local}, --gateway-port-map)`;
  if (why !== undefined) return [false, 'PortUnavailable', `${at} is not served: ${why}`];
  if (holder !== undefined && holder !== listenerId(gateway, l.name, set)) {
    return [false, 'PortUnavailable', `${at} is not served: listener ${holder} of an older Gateway serves ${protocol} on it`];
  }
  return [true, 'Accepted', `served by nginx's stream module on local ${protocol} ${at}`];
}

/** Does the listener's allowedRoutes.namespaces admit a route from `ns`? */
function namespaceAllows(j: L4Listener, ns: string): boolean {
  const from = j.listener.allowedRoutes?.namespaces?.from ?? 'Same';
  // Same: the namespace of the ListenerSet that added the listener, else of its Gateway
  return from === 'All' || (from === 'Same' && ns === (j.set ?? j.gateway).namespace) || (from === 'Selector' && j.selected?.has(ns) === true);
}

/** Does this parentRef name this listener (group, kind, namespace, name, sectionName, port)? A ListenerSet's only through the ListenerSet. */
function names(p: ParentReference, ns: string, j: L4Listener): boolean {
  const parent = j.set ?? j.gateway;
  if ((p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP || (p.kind ?? 'Gateway') !== (j.set ? 'ListenerSet' : 'Gateway')) return false;
  if ((p.namespace ?? ns) !== parent.namespace || p.name !== parent.name) return false;
  return (p.sectionName === undefined || p.sectionName === j.listener.name) && (p.port === undefined || p.port === j.listener.port);
}

/** Does the listener admit routes of this kind from this namespace (served or not)? */
function l4Allows(j: L4Listener, kind: L4Kind, ns: string): boolean {
  return j.supportedKinds.some((k) => (k.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && k.kind === kind) && namespaceAllows(j, ns);
}

/** One parentRef of a route on Portico's Gateways: Accepted, and the served listeners it attaches through. */
export interface L4Parent {
  readonly parentRef: ParentReference;
  readonly index: number;
  readonly accepted: Outcome;
  readonly via: readonly L4Listener[];
}

/** The key of a parentRef in `ours`: `namespace/name` for a Gateway, `ListenerSet namespace/name` for a ListenerSet, else undefined. */
function parentKey(p: ParentReference, ns: string): string | undefined {
  if ((p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP) return undefined;
  const kind = p.kind ?? 'Gateway';
  const key = refKey(p.namespace ?? ns, p.name);
  return kind === 'Gateway' ? key : kind === 'ListenerSet' ? `ListenerSet ${key}` : undefined;
}

/**
 * Each parentRef naming a Gateway of Portico's or a ListenerSet of one (`ours`: parentKey()), judged against every listener of those
 * Gateways, served or not: a listener of another protocol is NotAllowedByListeners even when it is not served.
 */
export function l4Parents(route: L4Route, kind: L4Kind, listeners: readonly L4Listener[], ours: ReadonlySet<string>): L4Parent[] {
  const ns = route.metadata?.namespace ?? 'default';
  const out: L4Parent[] = [];
  (route.spec?.parentRefs ?? []).forEach((p, index) => {
    const key = parentKey(p, ns);
    if (key === undefined || !ours.has(key)) return;
    const named = listeners.filter((j) => names(p, ns, j));
    const allowed = named.filter((j) => l4Allows(j, kind, ns));
    const served = allowed.filter((j) => j.refusal === undefined);
    const accepted: Outcome =
      named.length === 0
        ? [false, 'NoMatchingParent', 'no listener of the Gateway matches the parentRef (sectionName, port)']
        : allowed.length === 0
          ? [false, 'NotAllowedByListeners', `the listeners named do not allow ${kind}s from namespace ${ns} (${kind} attaches to ${L4_PROTOCOL[kind]} listeners only)`]
          : served.length === 0
            ? [false, 'NoMatchingParent', `the listener is not served: ${allowed[0]?.refusal ?? ''}`]
            : [true, 'Accepted', 'the route is attached'];
    out.push({ parentRef: p, index, accepted, via: served });
  });
  return out;
}

/** The routes of a kind in the snapshot. */
export function l4RoutesOf(snapshot: Snapshot, kind: L4Kind): readonly L4Route[] {
  return (kind === 'TCPRoute' ? snapshot.tcpRoutes : snapshot.udpRoutes) ?? [];
}

/** attachedRoutes of a listener: the routes of its kind that name it and that it admits (older and newer alike). */
export function l4AttachedCount(j: L4Listener, snapshot: Snapshot): number {
  const kind = l4KindOf(j.listener.protocol);
  if (!kind) return 0;
  return l4RoutesOf(snapshot, kind).filter((r) => {
    const ns = r.metadata?.namespace ?? 'default';
    return l4Allows(j, kind, ns) && (r.spec?.parentRefs ?? []).some((p) => names(p, ns, j));
  }).length;
}

/** Oldest first (creationTimestamp, then namespace/name): the specification's order between routes on one listener. */
export function l4ByAge(a: L4Route, b: L4Route): number {
  const ref = (r: L4Route): ObjectRef => ({ kind: 'Route', namespace: r.metadata?.namespace ?? 'default', name: r.metadata?.name ?? '' });
  return byClaimAge({ ref: ref(a), created: a.metadata?.creationTimestamp }, { ref: ref(b), created: b.metadata?.creationTimestamp });
}
