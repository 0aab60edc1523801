// Renders the stream section's Gateway servers (TCPRoute, UDPRoute: docs/adr/0023): per served listener, an upstream
// of the route's backends' endpoints with their weights and a server on the listener's local port.
import type { GatewayStreamServer } from '../model/gateway/l4-routes.js';
import { cidr, int } from './escape.js';
import { l4JsProxyLines, type L4JsOptions } from './stream-l4-js.js';

/** `listen` lines for a local port with a tail (` udp`), one per traffic address (render/stream.ts). */
export type Listens = (port: number, tail: string) => string[];

function server(address: string, port: number, weight: number): string {
  const host = address.includes(':') ? `[${cidr(address)}]` : cidr(address);
  return `        server ${host}:${int(port)}${weight === 1 ? '' : ` weight=${int(weight)}`};`;
}

/** A name in a comment: anything but a Kubernetes name's characters is shown as `?` (a comment ends at a newline). */
function label(name: string): string {
  return name.slice(0, 253).replace(/[^A-Za-z0-9_.\/-]/g, '?');
}

/** A Gateway server's upstream name: unique per protocol and local port. */
function gatewayUpstreamName(s: GatewayStreamServer): string {
  return `portico_gw_${s.protocol}_${int(s.port)}`;
}

/** A static upstream of the server's endpoints; a route without any keeps its port bound with a `down` server. */
function staticUpstream(s: GatewayStreamServer): string[] {
  const peers = s.backends.flatMap((b) => b.endpoints.map((e) => server(e.address, e.port, b.weight)));
  return [`    upstream ${gatewayUpstreamName(s)} {`, ...(peers.length > 0 ? peers : ['        server 127.0.0.1:1 down;']), '    }'];
}

/**
 * The Gateway servers' lines. With njs (`js`), the peer comes from the listener's peers table (render/stream-l4-js.ts):
 * no endpoint in nginx.conf. Without, a static upstream, whose endpoint changes reload. Either way a route left
 * without any endpoint has its connections closed at once (as a tcp-services entry without endpoints).
 */
export function gatewayStreamLines(servers: readonly GatewayStreamServer[] | undefined, listens: Listens, js?: L4JsOptions): string[] {
  return (servers ?? []).flatMap((s) => {
    const udp = s.protocol === 'udp';
    return [
      `    # ${s.protocol.toUpperCase()} listener ${label(s.listener.gateway)}/${label(s.listener.name)} port ${int(s.listener.port)}: ${s.kind} ${label(s.route)}`,
      ...(js ? [] : staticUpstream(s)),
      '    server {',
      ...listens(s.port, udp ? ' udp' : ''),
      ...(js ? l4JsProxyLines(s, js) : [`        proxy_pass ${gatewayUpstreamName(s)};`]),
      ...(udp ? ['        proxy_responses 1;'] : []),
      '    }',
    ];
  });
}
