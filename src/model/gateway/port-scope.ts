// Which listen sockets a route's matches are served on. nginx serves every host on every port it listens on, so a
// route that reaches a host through some listener ports only carries them (GatewayMatch.ports) and Lua skips it on
// the others (lua/portico/gateway.lua): a route of the 8080 listener is not served on 80 and the reverse.
import type { Attachment, ServedListener } from './attach.js';
import { gatewayKey, localPort, type PortOptions } from './ports.js';

/** Every local port nginx serves HTTP on: --http-port, --https-port and each served listener's. */
export function listenSockets(served: readonly ServedListener[], ports: PortOptions): number[] {
  const all = new Set([ports.httpPort, ports.httpsPort, ...served.map((s) => localPort(ports, s.listener.protocol, s.listener.port, gatewayKey(s.gateway)))]);
  return [...all].sort((a, b) => a - b);
}

/**
 * For each host of a route, the local ports it is served on, when not every listen socket; none when every listener
 * is on the traffic ports (then the HTTPS-only scheme of model/gateway/translate.ts keeps them apart, as before). A
 * route of an HTTP listener of port 80 keeps --https-port too: HTTP listeners' routes are answered over HTTPS as well
 * (docs/gateway-api.md, a known difference), so adding a listener elsewhere never takes a plain route off 443.
 */
export function portScopes(via: readonly Attachment[], ports: PortOptions, sockets: readonly number[]): ReadonlyMap<string, readonly number[]> {
  const out = new Map<string, readonly number[]>();
  if (sockets.every((p) => p === ports.httpPort || p === ports.httpsPort)) return out;
  const by = new Map<string, Set<number>>();
  for (const a of via) {
    const { protocol, port } = a.listener.listener;
    const local = localPort(ports, protocol, port, gatewayKey(a.listener.gateway));
    for (const h of a.hosts) {
      const set = by.get(h) ?? new Set<number>();
      by.set(h, set);
      set.add(local);
      if (local === ports.httpPort) set.add(ports.httpsPort);
    }
  }
  for (const [h, set] of by)
    if (!sockets.every((p) => set.has(p)))
      out.set(
        h,
        [...set].sort((a, b) => a - b),
      );
  return out;
}
