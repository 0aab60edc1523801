// Accepted of a Gateway listener of protocol TLS, Passthrough or Terminate (the stream section, docs/adr/0022 and
// docs/adr/0032): on 443 or a port the operator lists; a Terminate listener needs its tls.certificateRefs.
import type { Listener } from './api.js';
import type { Outcome } from './listeners.js';
import { onSniFront, unlisted, type PortOptions } from './ports.js';

/** `gateway`: the listener's Gateway, `namespace/name` (its own entries of --gateway-port-map). */
export function tlsAcceptance(l: Listener, ports: PortOptions, gateway: string): Outcome {
  const mode = l.tls?.mode ?? 'Terminate';
  if (mode !== 'Passthrough' && mode !== 'Terminate') return [false, 'UnsupportedValue', `tls.mode ${JSON.stringify(String(mode).slice(0, 40))} is not Terminate or Passthrough`];
  if (!Number.isInteger(l.port) || l.port < 1 || l.port > 65535) return [false, 'PortUnavailable', `port ${String(l.port)} is not a port number 1-65535`];
  // 443 is the HTTPS port's SNI front; any other port must be one the operator lists (model/gateway/ports.ts).
  const off = onSniFront(ports, l.port, gateway) ? undefined : unlisted(ports, 'TLS', l.port, gateway);
  if (off !== undefined) return [false, 'PortUnavailable', off];
  if (l.hostname !== undefined && !sniName(l.hostname.toLowerCase()))
    return [false, 'UnsupportedValue', `hostname: ${JSON.stringify(l.hostname.slice(0, 80))} is not a DNS name or a *. wildcard of one`];
  const how = mode === 'Terminate' ? ', Portico terminates TLS with the listener certificate: docs/adr/0032' : '';
  return [true, 'Accepted', `the listener is served by the stream section (ssl_preread picks the route by SNI${how})`];
}

/**
 * An SNI name a TLS listener or TLSRoute may give: a DNS name, or `*.` and a DNS name of one label or more (`*.com`
 * is valid for the specification); the stream section's maps take nothing else (render/escape.ts sniHost).
 */
export function sniName(host: string): boolean {
  const label = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
  return host.length <= 253 && new RegExp(`^(\\*\\.)?${label}(\\.${label})*$`).test(host);
}

/** Portico terminates TLS for this listener with its certificateRefs: HTTPS, and TLS in mode Terminate (the default). */
export function terminates(l: Listener): boolean {
  return (l.protocol === 'HTTPS' || l.protocol === 'TLS') && (l.tls?.mode ?? 'Terminate') === 'Terminate';
}
