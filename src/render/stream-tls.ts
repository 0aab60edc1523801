// Renders TLSRoutes in the stream section (docs/adr/0022): SNI map entries of the HTTPS port's front for port 443,
// and for every other TLS listener port a server with ssl_preread whose unmatched SNI is closed. A host of a Terminate
// listener goes through a unix socket server that terminates TLS (render/stream-tls-terminate.ts, docs/adr/0032).
import type { StreamModel } from '../model/stream.js';
import type { TlsBackend, TlsRouteHost } from '../model/gateway/tlsroute.js';
import { cidr, int, quote, sniHost } from './escape.js';
import { terminator } from './stream-tls-terminate.js';

/** Where the TLSRoute servers listen and the unix sockets of the front live. */
export interface TlsRenderOptions {
  readonly workDir: string;
  /** `listen` lines for a port (render/stream.ts, the traffic addresses). */
  readonly listens: (port: number) => string[];
}

const socket = (o: TlsRenderOptions, name: string): string => `unix:${o.workDir.replace(/\/$/, '')}/${name}`;

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/**
 * Each endpoint's `weight=`: a backendRef's weight shared among its endpoints, so the backendRefs get their shares
 * whatever their endpoint counts (exact when the least common multiple of the counts stays small, else rounded).
 */
export function endpointWeights(backends: readonly TlsBackend[]): number[][] {
  const live = backends.filter((b) => b.endpoints.length > 0);
  let l = 1;
  for (const b of live) l = Math.min((l * b.endpoints.length) / gcd(l, b.endpoints.length), 1_000_000);
  const raw = backends.map((b) => b.endpoints.map(() => Math.max(1, Math.round((b.weight * l) / b.endpoints.length))));
  const g = raw.flat().reduce((a, b) => gcd(a, b), 0) || 1;
  return raw.map((ws) => ws.map((w) => w / g));
}

function upstream(name: string, backends: readonly TlsBackend[]): string[] {
  const weights = endpointWeights(backends);
  const servers = backends.flatMap((b, i) =>
    b.endpoints.map((e, j) => {
      const w = weights[i]?.[j] ?? 1;
      const addr = e.address.includes(':') ? `[${cidr(e.address)}]` : cidr(e.address);
      return `        server ${addr}:${int(e.port)}${w === 1 ? '' : ` weight=${int(w)}`};`;
    }),
  );
  // no endpoint at all: a `down` server, so the connection is closed at once and nginx -t still passes
  return [`    upstream ${name} {`, ...(servers.length > 0 ? servers : ['        server 127.0.0.1:1 down;']), '    }'];
}

const comment = (h: TlsRouteHost): string => `    # TLSRoute ${h.route.namespace}/${h.route.name}: ${h.host || '(every SNI)'}`;

/** The front's map entries (inside `map $ssl_preread_server_name ... { hostnames; ... }` of render/stream.ts). */
export function tlsFrontMap(s: StreamModel): string[] {
  return (s.tlsRoutes?.front ?? []).map((h, i) => `        ${sniHost(h.host)} portico_tls_${int(i)};`);
}

/**
 * The front's per-host blocks: the front sends a PROXY line to every target, so each host gets a unix socket server
 * that takes the line off again before its weighted upstream (the backend gets the client's bytes unchanged).
 */
export function tlsFrontBlocks(s: StreamModel, o: TlsRenderOptions): string[] {
  return (s.tlsRoutes?.front ?? []).flatMap((h, i) => [
    comment(h),
    ...upstream(`portico_tls_backend_${int(i)}`, h.backends),
    `    upstream portico_tls_${int(i)} { server ${quote(socket(o, `tls-${int(i)}.sock`))}; }`,
    ...(h.terminate
      ? terminator(socket(o, `tls-${int(i)}.sock`), h.terminate, `portico_tls_backend_${int(i)}`, true)
      : ['    server {', `        listen ${quote(socket(o, `tls-${int(i)}.sock`))} proxy_protocol;`, `        proxy_pass portico_tls_backend_${int(i)};`, '    }']),
  ]);
}

/** A server per TLS listener port other than 443: ssl_preread, the SNI map, an SNI no route takes closed. */
export function tlsPortServers(s: StreamModel, o: TlsRenderOptions): string[] {
  const ports = s.tlsRoutes?.ports ?? [];
  if (ports.length === 0) return [];
  return [
    '    upstream portico_tls_closed { server 127.0.0.1:1 down; }',
    ...ports.flatMap((p) => {
      const name = (i: number): string => `portico_tls_${int(p.port)}_${int(i)}`;
      const every = p.hosts.findIndex((h) => h.host === '');
      return [
        `    # TLS listener port ${int(p.listenerPort)} on ${int(p.port)}`,
        `    map $ssl_preread_server_name $portico_tls_${int(p.port)} {`,
        '        hostnames;',
        `        default ${every >= 0 ? name(every) : 'portico_tls_closed'};`,
        ...p.hosts.flatMap((h, i) => (h.host === '' ? [] : [`        ${sniHost(h.host)} ${name(i)};`])),
        '    }',
        ...p.hosts.flatMap((h, i) => {
          if (!h.terminate) return [comment(h), ...upstream(name(i), h.backends)];
          // Terminate: the preread server passes the connection to a socket that terminates TLS, then to the backends.
          const sock = socket(o, `tls-${int(p.port)}-${int(i)}.sock`);
          return [comment(h), `    upstream ${name(i)} { server ${quote(sock)}; }`, ...upstream(`${name(i)}_backend`, h.backends), ...terminator(sock, h.terminate, `${name(i)}_backend`, false)];
        }),
        '    server {',
        ...o.listens(p.port),
        '        ssl_preread on;',
        `        proxy_pass $portico_tls_${int(p.port)};`,
        '    }',
      ];
    }),
  ];
}
