// Portico's own HTTP server on --healthz-port: /healthz, /metrics, and the /debug pages (never keys; loopback only).
import { createServer, type Server, type ServerResponse } from 'node:http';
import { BlockList, isIP } from 'node:net';
import type { Logger } from '../log.js';
import type { Dashboard } from './dashboard.js';

export interface ServerSources {
  healthy(): boolean;
  /** nginx.conf as served, then the route table as comment lines when hosts are routed by Lua (inspect/route-table.ts). */
  debugConfig(): string;
  /** The route table JSON pushed to /configuration/routes; '' with --enable-dynamic-routes=false (then 404). */
  debugRoutes?(): string;
  debugBackends(): string;
  /** Hosts, subjects, issuers and expiry of the certificates served; never keys. */
  debugCerts?(): string;
  /** Prometheus text; undefined until metrics exist. */
  metrics?(): Promise<string>;
  /** Gateway API status as Portico computes it (inspect/gateway.ts); absent with --enable-gateway-api=false. */
  debugGateway?(): string;
  /** The inspector's JSON document (`portico status` and friends read it on /debug/state). */
  state?(): Promise<string>;
  /** /dashboard and its files (--enable-dashboard). */
  dashboard?: Dashboard;
}

function send(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
  res.end(body);
}

function route(path: string, src: ServerSources): [number, string, string] {
  switch (path) {
    case '/healthz':
      return src.healthy() ? [200, 'text/plain', 'ok\n'] : [503, 'text/plain', 'nginx is not serving the current configuration\n'];
    case '/debug/config':
      return [200, 'text/plain', src.debugConfig()];
    case '/debug/routes': {
      const routes = src.debugRoutes?.() ?? '';
      return routes === '' ? [404, 'text/plain', 'not found: no route table (--enable-dynamic-routes=false, or no sync yet)\n'] : [200, 'application/json', `${routes}\n`];
    }
    case '/debug/backends':
      return [200, 'application/json', src.debugBackends()];
    case '/debug/certs':
      return src.debugCerts ? [200, 'application/json', src.debugCerts()] : [404, 'text/plain', 'not found\n'];
    case '/debug/gateway':
      return src.debugGateway ? [200, 'application/json', src.debugGateway()] : [404, 'text/plain', 'not found: the Gateway API is off (--enable-gateway-api=false)\n'];
    default:
      return [404, 'text/plain', 'not found\n'];
  }
}

/** Where the server listens and who may read /debug/*: --healthz-port, --healthz-host ('' = all), --debug-remote-access. */
export interface ServerOptions {
  readonly port: number;
  readonly host: string;
  readonly debugRemoteAccess: boolean;
}

const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Pure: whether a peer address (IPv4, IPv6 in any notation, or IPv4-mapped IPv6) is loopback. */
export function isLoopbackPeer(address: string | undefined): boolean {
  const family = address === undefined ? 0 : isIP(address);
  return family !== 0 && LOOPBACK.check(address ?? '', family === 4 ? 'ipv4' : 'ipv6');
}

/** Pure: the refusal of a /debug page to `peer`, or undefined when it may read it. */
export function debugRefusal(path: string, peer: string | undefined, remoteAllowed: boolean): string | undefined {
  if (!path.startsWith('/debug/') || remoteAllowed || isLoopbackPeer(peer)) return undefined;
  return (
    `/debug/* answers only loopback peers (127.0.0.1, ::1), not ${peer ?? 'an unknown peer'}: ` +
    'read it from inside the pod (kubectl exec, or kubectl port-forward), or start Portico with --debug-remote-access\n'
  );
}

/** Starts the server; resolves once it listens. */
export async function startServer(o: ServerOptions, src: ServerSources, log: Logger): Promise<Server> {
  const { port, host } = o;
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain', 'method not allowed\n');
      return;
    }
    const refused = debugRefusal(path, req.socket.remoteAddress, o.debugRemoteAccess);
    if (refused !== undefined) {
      send(res, 403, 'text/plain', refused);
      return;
    }
    if (src.dashboard?.handle(path, res)) return;
    if (path === '/debug/state' && src.state) {
      src
        .state()
        .then((text) => {
          send(res, 200, 'application/json', text);
        })
        .catch((err: unknown) => {
          send(res, 500, 'text/plain', `${String(err)}\n`);
        });
      return;
    }
    if (path === '/metrics' && src.metrics) {
      src
        .metrics()
        .then((text) => {
          send(res, 200, 'text/plain; version=0.0.4', text);
        })
        .catch((err: unknown) => {
          send(res, 500, 'text/plain', `${String(err)}\n`);
        });
      return;
    }
    const [status, type, body] = route(path, src);
    send(res, status, type, body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host || undefined, () => {
      server.off('error', reject);
      resolve();
    });
  });
  log.info({ port, host: host || '*', debugRemoteAccess: o.debugRemoteAccess }, 'health and debug server listening');
  return server;
}
