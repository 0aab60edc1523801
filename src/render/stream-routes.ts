// Renders the stream section's Gateway servers (TCPRoute, UDPRoute: docs/adr/0023): per served listener, an upstream
// of the route's backends' endpoints with their weights and a server on the listener's local port.
import type { GatewayStreamServer } from '../model/gateway/l4-routes.js';
import { cidr, int } from './escape.js';

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

/**
 * The Gateway servers' lines. A route left without any endpoint keeps its port bound with a `down` server, so
 * connections are closed at once (as a tcp-services entry without endpoints).
 */
export function gatewayStreamLines(servers: readonly GatewayStreamServer[] | undefined, listens: Listens): string[] {
  return (servers ?? []).flatMap((s) => {
    const name = gatewayUpstreamName(s);
    const peers = s.backends.flatMap((b) => b.endpoints.map((e) => server(e.address, e.port, b.weight)));
    const udp = s.protocol === 'udp';
    return [
      `    # ${s.protocol.toUpperCase()} listener ${label(s.listener.gateway)}/${label(s.listener.name)} port ${int(s.listener.port)}: ${s.kind} ${label(s.route)}`,
      `    upstream ${name} {`,
      ...(peers.length > 0 ? peers : ['        server 127.0.0.1:1 down;']),
      '    }',
      '    server {',
      ...listens(s.port, udp ? ' udp' : ''),
      `        proxy_pass ${name};`,
      ...(udp ? ['        proxy_responses 1;'] : []),
      '    }',
    ];
  });
}
