// Real HTTP backends on 127.0.0.1 for tests and the demo: each answers with its id and what it received.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

export interface Echo {
  id: string;
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Backend {
  readonly id: string;
  readonly port: number;
  readonly server: Server;
  /** Requests received so far. */
  readonly seen: Echo[];
  close(): Promise<void>;
}

/** Starts one echo backend (HTTP + WebSocket echo) on 127.0.0.1; port 0 picks a free one. */
export async function startBackend(id: string, port = 0): Promise<Backend> {
  const seen: Echo[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const echo: Echo = { id, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      if (seen.length < 100_000) seen.push(echo);
      res.writeHead(200, { 'content-type': 'application/json', 'x-backend': id });
      res.end(JSON.stringify(echo));
    });
  });
  server.keepAliveTimeout = 65_000;
  const wss = new WebSocketServer({ server });
  wss.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => {
      ws.send(isBinary ? data : `${id}:${String(data)}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const actual = (server.address() as AddressInfo).port;
  return {
    id,
    port: actual,
    server,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const c of wss.clients) c.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
