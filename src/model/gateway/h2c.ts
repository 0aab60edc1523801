// HTTP/2 cleartext with prior knowledge (h2c) on Gateway HTTP listeners: which listeners admit GRPCRoute. Only the
// operator makes a local port h2c (--gateway-h2c-ports): nginx 1.22's `listen ... http2` on a plain port refuses
// HTTP/1.x there, so a Gateway or route that could turn it on would break every HTTP/1.1 client of the port
// (docs/adr/0029). A listener only learns whether its port already is h2c.
import { localPort, type PortOptions } from './ports.js';

/** Does nginx speak h2c on the local port of an HTTP listener on `port` of Gateway `gateway` (`namespace/name`)? Never for another protocol. */
export function h2cListener(o: PortOptions, protocol: string, port: number, gateway: string): boolean {
  return protocol === 'HTTP' && (o.h2c ?? []).includes(localPort(o, protocol, port, gateway));
}

/** Why an HTTP listener does not admit GRPCRoute (InvalidRouteKinds, NotAllowedByListeners), for messages. */
export const GRPC_ON_HTTP = 'GRPCRoute is served on HTTPS listeners (HTTP/2 by ALPN) and on HTTP listeners whose local port --gateway-h2c-ports makes HTTP/2 cleartext (docs/adr/0029)';
