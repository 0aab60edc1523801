// A local OTLP/HTTP receiver for the tracing tests: a plain HTTP server on 127.0.0.1 that keeps the spans POSTed to
// /v1/traces (JSON), and a collector that accepts connections and never answers.
import { createServer, type Server } from 'node:http';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface Attr {
  readonly key: string;
  readonly value: { readonly stringValue?: string; readonly intValue?: number | string };
}

export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: number;
  readonly startTimeUnixNano: string;
  readonly endTimeUnixNano: string;
  readonly attributes: readonly Attr[];
  readonly status?: { readonly code?: number };
  /** service.name of its resource. */
  readonly service: string;
}

export interface Receiver {
  readonly port: number;
  readonly spans: ReceivedSpan[];
  /** Requests that were not a POST of JSON to /v1/traces. */
  readonly wrong: string[];
  close(): Promise<void>;
}

interface Body {
  resourceSpans?: { resource?: { attributes?: Attr[] }; scopeSpans?: { spans?: Omit<ReceivedSpan, 'service'>[] }[] }[];
}

/** The value of a span's attribute, as a string ('' when absent). */
export function attr(s: ReceivedSpan, key: string): string {
  const v = s.attributes.find((a) => a.key === key)?.value;
  return v === undefined ? '' : String(v.stringValue ?? v.intValue ?? '');
}

export async function startReceiver(): Promise<Receiver> {
  const spans: ReceivedSpan[] = [];
  const wrong: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces' || req.headers['content-type'] !== 'application/json') {
        wrong.push(`${req.method ?? ''} ${req.url ?? ''} ${req.headers['content-type'] ?? ''}`);
        res.writeHead(400).end();
        return;
      }
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Body;
      for (const rs of body.resourceSpans ?? []) {
        const service = rs.resource?.attributes?.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
        for (const ss of rs.scopeSpans ?? []) for (const s of ss.spans ?? []) if (spans.length < 100_000) spans.push({ ...s, service });
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    spans,
    wrong,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** A collector that accepts connections, reads, and never answers. */
export async function startSilentCollector(): Promise<{ port: number; connections: () => number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let seen = 0;
  const server: TcpServer = createTcpServer((sock) => {
    seen++;
    sockets.add(sock);
    sock.on('data', () => undefined);
    sock.on('error', () => undefined);
    sock.on('close', () => sockets.delete(sock));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
