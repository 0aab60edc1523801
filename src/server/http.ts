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

/** Starts the server; resolves once it listens. */
export async function startServer(port: number, host: string, src: ServerSources, log: Logger): Promise<Server> {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'text/plain', 'method not allowed\n');
    switch (path) {
      case '/healthz':
        return src.healthy() ? send(res, 200, 'text/plain', 'ok\n') : send(res, 503, 'text/plain', 'nginx is not serving the current configuration\n');
      case '/debug/config':
        return send(res, 200, 'text/plain', src.debugConfig());
      case '/debug/backends':
        return send(res, 200, 'application/json', src.debugBackends());
      case '/debug/certs':
        if (src.debugCerts) send(res, 200, 'application/json', src.debugCerts());
        else send(res, 404, 'text/plain', 'not found\n');
        return;
      case '/metrics':
        if (src.metrics) {
          src.metrics().then((text) => { send(res, 200, 'text/plain; version=0.0.4', text); })
            .catch((err: unknown) => { send(res, 500, 'text/plain', `${String(err)}\n`); });
          return;
        }
        return send(res, 404, 'text/plain', 'not found\n');
      default:
        return send(res, 404, 'text/plain', 'not found\n');
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host || undefined, () => { server.off('error', reject); resolve(); });
  });
  log.info({ port, host: host || '*' }, 'health and debug server listening');
  return server;
}
