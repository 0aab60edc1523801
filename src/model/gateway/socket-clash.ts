// One local TCP port, one kind of server: nginx's http section (HTTP and HTTPS listeners) and its stream section (TCP
// listeners, TLS listeners off the HTTPS port's SNI front) cannot both listen on it, and a Gateway that mapped both
// there would fail the whole reload. The oldest Gateway's listener (then the first in spec.listeners) keeps the port;
// a listener of the other section there is PortUnavailable. UDP listeners bind UDP sockets and never clash with these.
import type { ObjectRef } from '../types.js';
import type { Listener } from './api.js';
import { localPort, onSniFront, unlisted, type PortOptions } from './ports.js';

/** Which nginx section serves a listener's TCP socket. */
type Section = 'http' | 'stream';

/** Local TCP port → the first listener that takes it, oldest Gateway first. */
export type SocketClaims = ReadonlyMap<number, { readonly section: Section; readonly gateway: string; readonly listener: string; readonly protocol: string; readonly port: number }>;

/** The section and local port of a listener's own TCP socket, or undefined when it opens none (UDP, unlisted, the SNI front). */
function socketOf(l: Listener, ports: PortOptions, gateway: string): { section: Section; local: number } | undefined {
  const section: Section | undefined = l.protocol === 'HTTP' || l.protocol === 'HTTPS' ? 'http' : l.protocol === 'TCP' || l.protocol === 'TLS' ? 'stream' : undefined;
  if (section === undefined || unlisted(ports, l.protocol, l.port, gateway) !== undefined) return undefined;
  // a TLS listener on 443 is served through --https-port's SNI front unless an entry gives it a local port of its own
  if (l.protocol === 'TLS' && onSniFront(ports, l.port, gateway)) return undefined;
  return { section, local: localPort(ports, l.protocol, l.port, gateway) };
}

/** The claims of these Gateways' listeners (already sorted oldest first), each Gateway's in spec.listeners order. */
export function socketClaims(gateways: readonly { readonly ref: ObjectRef; readonly listeners: readonly Listener[] }[], ports: PortOptions): SocketClaims {
  const out = new Map<number, { section: Section; gateway: string; listener: string; protocol: string; port: number }>();
  for (const { ref, listeners } of gateways) {
    const gateway = `${ref.namespace}/${ref.name}`;
    for (const l of listeners) {
      const s = socketOf(l, ports, gateway);
      if (s !== undefined && !out.has(s.local)) out.set(s.local, { section: s.section, gateway, listener: l.name, protocol: l.protocol, port: l.port });
    }
  }
  return out;
}

/** PortUnavailable's message when the listener's local port is held by a listener of the other nginx section, else undefined. */
export function socketClash(l: Listener, gateway: ObjectRef, claims: SocketClaims, ports: PortOptions): string | undefined {
  const s = socketOf(l, ports, `${gateway.namespace}/${gateway.name}`);
  const c = s === undefined ? undefined : claims.get(s.local);
  if (s === undefined || c === undefined || c.section === s.section) return undefined;
  const at = s.local === l.port ? `port ${String(l.port)}` : `port ${String(l.port)} (local port ${String(s.local)}, --gateway-port-map)`;
  return (
    `${at} is not served: listener ${c.listener} (${c.protocol}, port ${String(c.port)}) of Gateway ${c.gateway}, older or first, serves it; ` +
    'an HTTP or HTTPS listener and a TCP or TLS listener cannot share a local port (map one of them to another local port)'
  );
}
