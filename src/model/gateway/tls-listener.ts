// Accepted of a Gateway listener of protocol TLS: Passthrough on any port (the stream section, docs/adr/0022);
// Terminate is not served, as the specification lets an implementation say with UnsupportedValue.
import { checkHost } from '../names.js';
import type { Listener } from './api.js';
import type { Outcome } from './listeners.js';

export function tlsAcceptance(l: Listener): Outcome {
  if ((l.tls?.mode ?? 'Terminate') !== 'Passthrough') {
    return [false, 'UnsupportedValue', 'tls.mode Terminate is not supported on a TLS listener (Passthrough only: docs/adr/0022)'];
  }
  if (!Number.isInteger(l.port) || l.port < 1 || l.port > 65535) return [false, 'PortUnavailable', `port ${String(l.port)} is not a port number 1-65535`];
  const bad = l.hostname !== undefined ? checkHost(l.hostname.toLowerCase()) : undefined;
  if (bad) return [false, 'UnsupportedValue', `hostname: ${bad}`];
  return [true, 'Accepted', 'the listener is served by the stream section (ssl_preread picks the route by SNI)'];
}
