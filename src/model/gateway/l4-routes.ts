// TCPRoutes and UDPRoutes → the stream section's Gateway servers (docs/adr/0023): one stream server per served TCP or
// UDP listener with a route, its connections spread over the route's backends by weight (an nginx `weight=` per
// endpoint), endpoints as EndpointSlices give them (a change reloads nginx, as for tcp-services: docs/adr/0013).
import type { ModelOptions, Snapshot } from '../input.js';
import type { BackendIndex } from '../backends.js';
import type { AddProblem, Endpoint, ObjectRef } from '../types.js';
import { byName } from '../lookup.js';
import { nsKey, refKey } from '../keys.js';
import { granted } from './grants.js';
import { L4_PROTOCOL, type L4Kind, type L4Route } from './l4-api.js';
import { l4ByAge, l4Context, l4Parents, l4RoutesOf, listenerId, type L4Context, type L4Listener } from './l4.js';
import { localPort, type PortOptions } from './ports.js';
import { ourGateways, refOf } from './attach.js';
import { judgeListeners, unsupportedAddress, type JudgedListener } from './listeners.js';
import { judgeListenerSets } from './listenerset.js';
import type { StreamModel, StreamOptions } from '../stream.js';
import type { L4Flags } from './l4.js';

type Outcome = readonly [ok: boolean, reason: string, message: string];

/** One weighted backend of a Gateway stream server. */
export interface GatewayStreamBackend {
  readonly service: string;
  readonly servicePort: number;
  readonly weight: number;
  readonly endpoints: readonly Endpoint[];
}

/** One served TCP or UDP listener and the route that serves it. */
export interface GatewayStreamServer {
  readonly protocol: 'tcp' | 'udp';
  /** The local port nginx listens on (model/gateway/ports.ts). */
  readonly port: number;
  readonly listener: { readonly gateway: string; readonly name: string; readonly port: number };
  readonly route: string;
  readonly kind: L4Kind;
  readonly backends: readonly GatewayStreamBackend[];
}

/**
 * ResolvedRefs of a TCPRoute or UDPRoute: each backendRef a Service (InvalidKind), in its namespace or granted by a
 * ReferenceGrant there (RefNotPermitted), existing with that port (BackendNotFound), of the route's protocol
 * (UnsupportedProtocol). `field` names the backendRef.
 */
function l4BackendCheck(route: L4Route, kind: L4Kind, snapshot: Snapshot): (Outcome & { readonly field?: string })[] {
  const ns = route.metadata?.namespace ?? 'default';
  const out: (Outcome & { field?: string })[] = [];
  (route.spec?.rules ?? []).forEach((rule, i) => {
    (rule.backendRefs ?? []).forEach((b, j) => {
      const field = `spec.rules[${i}].backendRefs[${j}]`;
      const fail = (reason: string, message: string): void => {
        out.push(Object.assign([false, reason, `${field}: ${message}`] as const, { field }));
      };
      if ((b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service') {
        fail('InvalidKind', `${b.group ?? ''}/${b.kind ?? ''} is not a Service`);
        return;
      }
      const to = b.namespace ?? ns;
      if (to !== ns && !granted(snapshot.referenceGrants ?? [], { namespace: ns, kind }, to, 'Service', b.name)) {
        fail('RefNotPermitted', `no ReferenceGrant in namespace ${to} lets ${kind}s of ${ns} refer to Service ${b.name}`);
        return;
      }
      const svc = byName(snapshot.services, to, b.name);
      if (!svc) {
        fail('BackendNotFound', `Service ${to}/${b.name} not found`);
        return;
      }
      const port = (svc.spec?.ports ?? []).find((p) => p.port === b.port);
      if (!port) {
        fail('BackendNotFound', `Service ${to}/${b.name} has no port ${String(b.port)}`);
        return;
      }
      if ((port.protocol ?? 'TCP') !== L4_PROTOCOL[kind]) {
        fail('UnsupportedProtocol', `port ${String(b.port)} of Service ${to}/${b.name} is ${port.protocol ?? 'TCP'}, not ${L4_PROTOCOL[kind]}`);
        return;
      }
      return undefined;
    });
  });
  return out;
}

/** ResolvedRefs as a condition outcome: the first failure, else ResolvedRefs. */
export function l4ResolvedRefs(route: L4Route, kind: L4Kind, snapshot: Snapshot): Outcome {
  const first = l4BackendCheck(route, kind, snapshot)[0];
  return first ? [first[0], first[1], first[2]] : [true, 'ResolvedRefs', 'every backendRef resolved'];
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * nginx weights per endpoint so that each backend gets its share of connections whatever its number of endpoints:
 * weight × (lcm of the endpoint counts) / its count, reduced; rounded (at least 1) when the lcm grows past 1000.
 */
function endpointWeights(backends: readonly { readonly weight: number; readonly endpoints: readonly Endpoint[] }[]): number[] {
  const counts = backends.map((b) => Math.max(1, b.endpoints.length));
  let lcm = counts.reduce((m, n) => (m * n) / gcd(m, n), 1);
  const exact = lcm <= 1000;
  if (!exact) lcm = 1000;
  const raw = backends.map((b, i) => (b.weight * lcm) / (counts[i] ?? 1));
  const ints = raw.map((w) => Math.max(1, Math.round(w)));
  const g = ints.reduce((x, y) => gcd(x, y), 0) || 1;
  return ints.map((w) => w / g);
}

interface Sink {
  readonly problem: AddProblem;
  readonly index: BackendIndex;
}

/** The backends of a route (all rules), weight 0 and unresolved ones left out, each left out with a Problem. */
function backendsOf(route: L4Route, kind: L4Kind, snapshot: Snapshot, sink: Sink): GatewayStreamBackend[] {
  const ref: ObjectRef = { kind, namespace: route.metadata?.namespace ?? 'default', name: route.metadata?.name ?? '' };
  const failed = new Map(l4BackendCheck(route, kind, snapshot).map((f) => [f.field ?? '', f]));
  const out: { service: string; servicePort: number; weight: number; endpoints: readonly Endpoint[] }[] = [];
  (route.spec?.rules ?? []).forEach((rule, i) => {
    (rule.backendRefs ?? []).forEach((b, j) => {
      const field = `spec.rules[${i}].backendRefs[${j}]`;
      const weight = b.weight ?? 1;
      if (!Number.isInteger(weight) || weight < 0 || weight > 1_000_000) {
        sink.problem(ref, `${field}.weight`, 'must be an integer 0-1000000; the backend gets no connections', 'degraded');
        return;
      }
      if (weight === 0) return;
      const f = failed.get(field);
      if (f) {
        sink.problem(ref, field, `${f[1]}: ${f[2].slice(field.length + 2)}; the backend gets no connections`, 'degraded');
        return;
      }
      const ns = b.namespace ?? ref.namespace;
      const r = sink.index.resolve(ns, { serviceName: b.name, portNumber: b.port, portName: undefined }, field);
      if (!r.ok) {
        sink.problem(ref, r.field, `${r.reason}; the backend gets no connections`, 'degraded');
        return;
      }
      if (r.upstream.endpoints.length === 0) sink.problem(ref, field, `Service ${ns}/${b.name} has no ready endpoint; it gets no connections`, 'degraded');
      else out.push({ service: refKey(ns, b.name), servicePort: b.port ?? 0, weight, endpoints: r.upstream.endpoints });
    });
  });
  const weights = endpointWeights(out);
  return out.map((b, i) => ({ ...b, weight: weights[i] ?? 1 }));
}

/**
 * The Gateway stream servers of one build. Each served TCP/UDP listener is served by the oldest route attached through
 * it (the specification's rule for conflicting routes); a newer one stays Accepted and counted in attachedRoutes but
 * gets no connections there, which a Warning says. A route attached nowhere gets a Warning with the reason.
 */
function gatewayStreamServers(snapshot: Snapshot, listeners: readonly L4Listener[], ours: ReadonlySet<string>, ctx: L4Context, sink: Sink): GatewayStreamServer[] {
  const out: GatewayStreamServer[] = [];
  const holder = new Map<string, string>();
  for (const kind of ['TCPRoute', 'UDPRoute'] as const) {
    for (const route of [...l4RoutesOf(snapshot, kind)].sort(l4ByAge)) {
      const ref: ObjectRef = { kind, namespace: route.metadata?.namespace ?? 'default', name: route.metadata?.name ?? '' };
      const parents = l4Parents(route, kind, listeners, ours);
      for (const p of parents) if (!p.accepted[0]) sink.problem(ref, `spec.parentRefs[${p.index}]`, `${p.accepted[1]}: ${p.accepted[2]}`);
      const via = [...new Map(parents.flatMap((p) => p.via).map((j) => [listenerId(j.gateway, j.listener.name, j.set), j])).values()];
      if (via.length === 0) continue;
      const backends = backendsOf(route, kind, snapshot, sink);
      if (backends.length === 0) sink.problem(ref, 'spec.rules', 'no backend to connect to: connections are closed', 'degraded');
      for (const j of via) {
        const id = listenerId(j.gateway, j.listener.name, j.set);
        const older = holder.get(id);
        if (older !== undefined) {
          sink.problem(ref, 'spec.parentRefs', `listener ${id} is served by the older ${kind} ${older}; this route gets no connections there`, 'degraded');
          continue;
        }
        holder.set(id, nsKey(route));
        const port = localPort(ctx.ports, j.listener.protocol, j.listener.port, `${j.gateway.namespace}/${j.gateway.name}`);
        out.push({
          protocol: kind === 'TCPRoute' ? 'tcp' : 'udp',
          port,
          listener: { gateway: refKey(j.gateway.namespace, j.gateway.name), name: j.set ? `${refKey(j.set.namespace, j.set.name)}/${j.listener.name}` : j.listener.name, port: j.listener.port },
          route: nsKey(route),
          kind,
          backends,
        });
      }
    }
  }
  return out.sort((a, b) => a.protocol.localeCompare(b.protocol) || a.port - b.port);
}

/**
 * Every listener of Portico's Gateways and of the ListenerSets they admit, judged with the TCP/UDP port context (served
 * or not: l4Parents reads both); `ours`: those Gateways and the ListenerSets naming them (l4.ts parentKey).
 */
export function judgedListeners(snapshot: Snapshot, controllerName: string, ctx: L4Context): { listeners: JudgedListener[]; ours: Set<string> } {
  const gateways = ourGateways(snapshot, controllerName).filter((g) => unsupportedAddress(g) === undefined);
  const sets = gateways.flatMap((g) => judgeListenerSets(g, refOf('Gateway', g), snapshot, { l4: ctx }));
  return {
    listeners: [...gateways.flatMap((g) => judgeListeners(g, refOf('Gateway', g), snapshot, { l4: ctx })), ...sets.flatMap((s) => s.listeners)],
    ours: new Set([...ourGateways(snapshot, controllerName).map((g) => nsKey(g)), ...sets.map((s) => `ListenerSet ${refKey(s.set.namespace, s.set.name)}`)]),
  };
}

/** The flags' part of the TCP/UDP port context, from the model options. */
export function l4FlagsOf(opts: { readonly gateway?: { readonly ports?: PortOptions }; readonly stream?: Pick<StreamOptions, 'reservedPorts' | 'tcp' | 'udp'> }): L4Flags {
  return { ...(opts.gateway?.ports ? { ports: opts.gateway.ports } : {}), reserved: opts.stream?.reservedPorts ?? [], tcp: opts.stream?.tcp, udp: opts.stream?.udp };
}

/** The stream section with the Gateway servers added (a section of its own when there was none), or as it was. */
export function withGatewayStream(stream: StreamModel | undefined, servers: readonly GatewayStreamServer[]): StreamModel | undefined {
  if (servers.length === 0) return stream;
  return { ...(stream ?? { services: [], passthrough: undefined }), gateway: servers };
}

/** The TCP/UDP port context of a build, or undefined without --enable-gateway-api (model/build.ts). */
export function l4ContextOf(snapshot: Snapshot, opts: ModelOptions): L4Context | undefined {
  return opts.gateway ? l4Context(snapshot, opts.gateway.controllerName, l4FlagsOf(opts)) : undefined;
}

/** The Gateway stream servers of a build (model/build.ts); none without --enable-gateway-api. */
export function gatewayStream(snapshot: Snapshot, opts: ModelOptions, ctx: L4Context | undefined, sink: Sink): GatewayStreamServer[] {
  if (!opts.gateway || !ctx) return [];
  const { listeners, ours } = judgedListeners(snapshot, opts.gateway.controllerName, ctx);
  return gatewayStreamServers(snapshot, listeners, ours, ctx, sink);
}
