// The echo server's h2c port, for local mode: an HTTP/2 cleartext server (prior knowledge, no HTTP/1.1) answering the
// request it saw and where it runs as JSON, as the conformance echo server answers on its h2c port. It backs
// infra-backend-v1's Service port of appProtocol kubernetes.io/h2c (base.ts) in HTTPRouteBackendProtocolH2C.
import { createServer, type Http2Server, type Http2ServerRequest } from 'node:http2';
import type { AddressInfo } from 'node:net';
import type { EchoAnswer } from './echo.js';

export interface H2cEcho {
  readonly port: number;
  close(): Promise<void>;
}

function answerOf(req: Http2ServerRequest, namespace: string, pod: string): EchoAnswer {
  const headers: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(req.headers)) if (!name.startsWith(':') && name !== 'host' && value !== undefined) headers[name] = Array.isArray(value) ? value : [value];
  return { path: req.url, host: req.authority, method: req.method, proto: `HTTP/${req.httpVersion}`, headers, namespace, pod };
}

/** Starts the h2c echo of `service` in `namespace` on a free 127.0.0.1 port; its pod is `<service>-<podSuffix>`. */
export async function startH2cEcho(service: string, namespace: string, podSuffix = 'pod-0'): Promise<H2cEcho> {
  const pod = `${service}-${podSuffix}`;
  const server: Http2Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answerOf(req, namespace, pod)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
