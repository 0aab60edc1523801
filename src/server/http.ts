// Portico's own HTTP server on --healthz-port: /healthz and the /debug pages (never keys).
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { Logger } from '../log.js';

export interface ServerSources {
  healthy(): boolean;
  debugConfig(): string;
  debugBackends(): string;
  /** Hosts, subjects, issuers and expiry of the certificates served; never keys. */
  debugCerts?(): string;
  /** Prometheus text; undefined until metrics exist. */
  metrics?(): Promise<string>;
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
    case '/debug/backends':
      return [200, 'application/json', src.debugBackends()];
    case '/debug/certs':
      return src.debugCerts ? [200, 'application/json', src.debugCerts()] : [404, 'text/plain', 'not found\n'];
    default:
      return [404, 'text/plain', 'not found\n'];
  }
}

/** Starts the server; resolves once it listens. */
export async function startServer(port: number, host: string, src: ServerSources, log: Logger): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      send(res, 405, 'text/plain', 'method not allowed\n');
      return;
    }
    if (path === '/metrics' && src.metrics) {
      src.metrics().then((text) => { send(res, 200, 'text/plain; version=0.0.4', text); })
        .catch((err: unknown) => { send(res, 500, 'text/plain', `${String(err)}\n`); });
      return;
    }
    const [status, type, body] = route(path, src);
    send(res, status, type, body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host || undefined, () => { server.off('error', reject); resolve(); });
  });
  log.info({ port, host: host || '*' }, 'health and debug server listening');
  return server;
}
