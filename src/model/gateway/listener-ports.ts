// Which HTTP and HTTPS listener ports Portico can serve, and the local ports nginx opens for them: a listener port is
// served on its local port (model/gateway/ports.ts) unless that port is Portico's own or a tcp/udp-services entry's.
import type { Snapshot } from '../input.js';
import type { Gateway, Listener } from './api.js';
import { DEFAULT_PORTS, gatewayKey, localPort, trafficPort, unlisted, type PortOptions } from './ports.js';

/** What a listener's local port may not be: Portico's own ports (besides the traffic ports) and the stream ConfigMaps. */
export interface ListenerPortPolicy {
  readonly ports: PortOptions;
  /** Portico's own ports other than --http-port and --https-port, each with the flag that sets it. */
  readonly own: readonly (readonly [port: number, flag: string])[];
  /** The --tcp-services-configmap and --udp-services-configmap: each port key of theirs is taken. */
  readonly stream: readonly { readonly namespace: string; readonly name: string; readonly flag: string }[];
}

/** A model or status built without flags (a test, a tool): nginx's own ports, ingress-nginx's default own ports. */
const DEFAULT_LISTENER_PORTS: ListenerPortPolicy = Object.freeze<ListenerPortPolicy>({
  ports: DEFAULT_PORTS,
  own: [
    [8181, '--default-server-port'],
    [8443, '--validating-webhook'],
    [10246, '--status-port'],
    [10254, '--healthz-port'],
  ],
  stream: [],
});

/** The listener port served on --http-port or --https-port: HTTP 80 or HTTPS 443 that no per-Gateway entry moves (or moves there). */
function onTrafficPort(ports: PortOptions, protocol: string, port: number, gateway: string): boolean {
  if (trafficPort(ports, protocol, port, gateway)) return true;
  const local = localPort(ports, protocol, port, gateway);
  return (protocol === 'HTTP' && port === 80 && local === ports.httpPort) || (protocol === 'HTTPS' && port === 443 && local === ports.httpsPort);
}

/**
 * Why an HTTP or HTTPS listener's port cannot be served (PortUnavailable's message), or undefined. `snap` gives the
 * stream ConfigMaps' keys; `gateway` the listener's Gateway, `namespace/name`.
 */
export function portUnavailable(l: Listener, gateway: string, policy: ListenerPortPolicy, snap: Pick<Snapshot, 'configMaps'>): string | undefined {
  if (onTrafficPort(policy.ports, l.protocol, l.port, gateway)) return undefined;
  const off = unlisted(policy.ports, l.protocol, l.port, gateway);
  if (off !== undefined) return off;
  const local = localPort(policy.ports, l.protocol, l.port, gateway);
  const at = local === l.port ? `port ${String(l.port)}` : `port ${String(l.port)} (local port ${String(local)}, --gateway-port-map)`;
  if (local === policy.ports.httpPort) return `${at} is --http-port, which serves HTTP listeners of port 80 only; map it to another local port with --gateway-port-map`;
  if (local === policy.ports.httpsPort) return `${at} is --https-port, which serves HTTPS listeners of port 443 only; map it to another local port with --gateway-port-map`;
  const own = policy.own.find(([p]) => p === local);
  if (own) return `${at} is Portico's own (${own[1]}); map it to another local port with --gateway-port-map`;
  for (const s of policy.stream) {
    const cm = snap.configMaps.find((c) => c.metadata?.namespace === s.namespace && c.metadata.name === s.name);
    if (Object.hasOwn(cm?.data ?? {}, String(local))) return `${at} is taken by the ${s.flag} ConfigMap ${s.namespace}/${s.name} (key ${String(local)})`;
  }
  return undefined;
}

/** Which listener first claims each local port off the traffic ports, across Portico's Gateways (oldest Gateway first). */
export type PortClaims = ReadonlyMap<number, { readonly protocol: string; readonly port: number; readonly gateway: string }>;

/** The policy and the claims one judgement of listeners reads (model/gateway/listeners.ts). */
export interface PortJudge {
  readonly policy: ListenerPortPolicy;
  readonly claims: PortClaims;
}

function olderFirst(a: Gateway, b: Gateway): number {
  const ta = a.metadata?.creationTimestamp ?? '9999';
  const tb = b.metadata?.creationTimestamp ?? '9999';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = `${a.metadata?.namespace ?? ''}/${a.metadata?.name ?? ''}`;
  const kb = `${b.metadata?.namespace ?? ''}/${b.metadata?.name ?? ''}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/** The claims of these Gateways' HTTP and HTTPS listeners: the oldest Gateway's first listener on a local port keeps it. */
export function portJudge(gateways: readonly Gateway[], policy: ListenerPortPolicy = DEFAULT_LISTENER_PORTS): PortJudge {
  const claims = new Map<number, { protocol: string; port: number; gateway: string }>();
  for (const g of [...gateways].sort(olderFirst)) {
    const gateway = `${g.metadata?.namespace ?? 'default'}/${g.metadata?.name ?? ''}`;
    for (const l of g.spec?.listeners ?? []) {
      if ((l.protocol !== 'HTTP' && l.protocol !== 'HTTPS') || onTrafficPort(policy.ports, l.protocol, l.port, gateway)) continue;
      if (unlisted(policy.ports, l.protocol, l.port, gateway) !== undefined) continue; // not opened: claims nothing
      const local = localPort(policy.ports, l.protocol, l.port, gateway);
      if (!claims.has(local)) claims.set(local, { protocol: l.protocol, port: l.port, gateway });
    }
  }
  return { policy, claims };
}

/** PortUnavailable of a listener whose local port an older Gateway's listener of another protocol or port holds. */
export function portClaimed(l: Listener, gateway: string, judge: PortJudge): string | undefined {
  if (onTrafficPort(judge.policy.ports, l.protocol, l.port, gateway)) return undefined;
  const local = localPort(judge.policy.ports, l.protocol, l.port, gateway);
  const c = judge.claims.get(local);
  // the same listener port of one Gateway: Conflicted (ProtocolConflict) says it
  if (!c || (c.port === l.port && (c.protocol === l.protocol || c.gateway === gateway))) return undefined;
  return `local port ${String(local)} serves the ${c.protocol} listener port ${String(c.port)} of the older Gateway ${c.gateway}; one local port serves one protocol and listener port`;
}

/** A served listener and its Gateway (model/gateway/attach.ts ServedListener). */
type ListenerOf = { readonly listener: Listener; readonly gateway: { readonly namespace: string; readonly name: string } };

/** The local ports of served listeners besides --http-port and --https-port, by protocol, sorted: nginx's extra listen sockets. */
export interface ExtraPorts {
  readonly http: readonly number[];
  readonly https: readonly number[];
}

/** The extra listen sockets of these served listeners (HTTP and HTTPS; a port both would claim stays its first protocol's). */
export function extraPorts(listeners: readonly ListenerOf[], ports: PortOptions): ExtraPorts {
  const http = new Set<number>();
  const https = new Set<number>();
  for (const { listener: l, gateway } of listeners) {
    const gw = gatewayKey(gateway);
    if (onTrafficPort(ports, l.protocol, l.port, gw)) continue;
    const local = localPort(ports, l.protocol, l.port, gw);
    if (l.protocol === 'HTTP' && !https.has(local)) http.add(local);
    if (l.protocol === 'HTTPS' && !http.has(local)) https.add(local);
  }
  const sorted = (s: Set<number>): number[] => [...s].sort((a, b) => a - b);
  return { http: sorted(http), https: sorted(https) };
}

/** Local port → listener port of the served listeners off the traffic ports: the port a RequestRedirect keeps (lua/portico/gateway.lua). */
export function listenerPortsOf(listeners: readonly ListenerOf[], ports: PortOptions): Record<string, number> {
  const out: Record<string, number> = {};
  for (const { listener: l, gateway } of listeners) {
    const gw = gatewayKey(gateway);
    if (onTrafficPort(ports, l.protocol, l.port, gw)) continue;
    const local = String(localPort(ports, l.protocol, l.port, gw));
    out[local] ??= l.port;
  }
  return out;
}

/** The policy of a model's Gateway options: their ports, and their reserved ports (else the defaults'). */
export function policyOf(g: { readonly ports?: PortOptions; readonly reserved?: Pick<ListenerPortPolicy, 'own' | 'stream'> } | undefined): ListenerPortPolicy {
  return { ports: g?.ports ?? DEFAULT_PORTS, own: g?.reserved?.own ?? DEFAULT_LISTENER_PORTS.own, stream: g?.reserved?.stream ?? [] };
}
