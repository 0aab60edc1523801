// bench/hitless's load: keepalive HTTP clients, long-lived WebSocket and HTTP/2 connections, large downloads; counts.
import http2 from 'node:http2';
import { Agent, request } from 'node:http';
import WebSocket from 'ws';
import { sleep } from './lib.js';

export interface Counts {
  requests: number;
  /** Requests that failed for the client, after the one retry RFC 9112 9.3.1 allows (see `resets`). */
  failed: number;
  /**
   * Resets on a reused keepalive connection before any response byte: the server closed an idle connection as the
   * request was written (nginx's old workers do at a reload). RFC 9112 9.3.1 lets a client retry such an idempotent
   * request on a new connection, browsers do, and Node's documentation shows the same check (`req.reusedSocket`):
   * the bench retries it once on a new connection and counts it here; without that retry each would be a failure.
   */
  resets: number;
  failures: Map<string, number>;
  wsOpened: number;
  wsDropped: number;
  wsEchoes: number;
  h2Sessions: number;
  h2Dropped: number;
  h2Streams: number;
  h2Failed: number;
  downloads: number;
  downloadsBroken: number;
  downloadedMiB: number;
}

export const BIG_BYTES = 32 * 1024 * 1024;

export function newCounts(): Counts {
  return {
    requests: 0,
    failed: 0,
    resets: 0,
    failures: new Map(),
    wsOpened: 0,
    wsDropped: 0,
    wsEchoes: 0,
    h2Sessions: 0,
    h2Dropped: 0,
    h2Streams: 0,
    h2Failed: 0,
    downloads: 0,
    downloadsBroken: 0,
    downloadedMiB: 0,
  };
}

function fail(c: Counts, why: string): void {
  c.failed += 1;
  c.failures.set(why, (c.failures.get(why) ?? 0) + 1);
}

/** Where the load goes: Portico's ports and the hosts of the bench's Ingresses. */
export interface Target {
  readonly http: number;
  readonly https: number;
  readonly host: string;
  readonly tlsHost: string;
}

interface Got {
  readonly status: number;
  readonly bytes: number;
  readonly error?: string;
  /** The request went out on a reused keepalive connection and no response byte came back. */
  readonly retryable?: boolean;
}

/** GET `path` on a keepalive agent; resolves with the status and byte count (status 0 and the error code on error). */
function get(t: Target, agent: Agent | false, path: string): Promise<Got> {
  return new Promise((resolve) => {
    let responded = false;
    const req = request({ host: '127.0.0.1', port: t.http, path, headers: { host: t.host }, agent, timeout: 30_000 }, (res) => {
      responded = true;
      let bytes = 0;
      res.on('data', (b: Buffer) => {
        bytes += b.length;
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, bytes });
      });
      res.on('aborted', () => {
        resolve({ status: 0, bytes, error: 'response aborted' });
      });
      res.on('error', (e: NodeJS.ErrnoException) => {
        resolve({ status: 0, bytes, error: e.code ?? e.message });
      });
    });
    req.on('timeout', () => {
      req.destroy(new Error('timeout'));
    });
    req.on('error', (e: NodeJS.ErrnoException) => {
      const code = e.code ?? e.message;
      resolve({ status: 0, bytes: 0, error: code, retryable: req.reusedSocket && !responded && (code === 'ECONNRESET' || code === 'EPIPE') });
    });
    req.end();
  });
}

/** `clients` loops of keepalive GETs, one every `pauseMs` each, until `stop()` is true; a reset before any response on a reused connection is retried once (`Counts.resets`). */
export async function keepaliveClients(t: Target, c: Counts, clients: number, pauseMs: number, stop: () => boolean): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: clients });
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (!stop()) {
        let r = await get(t, agent, '/');
        c.requests += 1;
        if (r.retryable === true) {
          c.resets += 1;
          r = await get(t, false, '/'); // on a new connection, as the RFC says: the pool may hold more closing ones
        }
        if (r.status !== 200) fail(c, r.error ?? `status ${r.status}`);
        await sleep(pauseMs);
      }
    }),
  );
  agent.destroy();
}

/** Large downloads (`BIG_BYTES` each, the backend paces them) in `parallel` loops; a short one counts as broken. */
export async function downloads(t: Target, c: Counts, parallel: number, stop: () => boolean): Promise<void> {
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (!stop()) {
        const r = await get(t, false, '/big');
        c.downloads += 1;
        c.downloadedMiB += r.bytes / 1048576;
        if (r.status !== 200 || r.bytes !== BIG_BYTES) c.downloadsBroken += 1;
      }
    }),
  );
}

/** `n` WebSockets, each echoing a message every 500 ms; a close before `stop()` is a drop (not reopened). */
export async function websockets(t: Target, c: Counts, n: number, stop: () => boolean): Promise<void> {
  await Promise.all(
    Array.from(
      { length: n },
      (_, i) =>
        new Promise<void>((resolve) => {
          const ws = new WebSocket(`ws://127.0.0.1:${t.http}/ws`, { headers: { host: t.host } });
          let timer: NodeJS.Timeout | undefined;
          ws.on('open', () => {
            c.wsOpened += 1;
            timer = setInterval(() => {
              if (stop()) {
                clearInterval(timer);
                ws.close();
                return;
              }
              ws.send(`ws${i}`);
            }, 500);
          });
          ws.on('message', () => {
            c.wsEchoes += 1;
          });
          ws.on('error', () => undefined);
          ws.on('close', () => {
            clearInterval(timer);
            if (!stop()) c.wsDropped += 1;
            resolve();
          });
        }),
    ),
  );
}

/** `n` HTTP/2 sessions over TLS, a GET every 200 ms each; a session that ends before `stop()` is a drop. */
export async function h2Sessions(t: Target, c: Counts, n: number, stop: () => boolean): Promise<void> {
  await Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise<void>((resolve) => {
          const s = http2.connect(`https://127.0.0.1:${t.https}`, { servername: t.tlsHost, rejectUnauthorized: false });
          c.h2Sessions += 1;
          s.on('error', () => undefined);
          s.on('close', () => {
            if (!stop()) c.h2Dropped += 1;
            resolve();
          });
          const tick = (): void => {
            if (stop() || s.closed || s.destroyed) {
              s.close();
              return;
            }
            const req = s.request({ ':path': '/', ':authority': t.tlsHost });
            req.on('response', (h) => {
              c.h2Streams += 1;
              if (h[':status'] !== 200) c.h2Failed += 1;
            });
            req.on('error', () => {
              c.h2Failed += 1;
            });
            req.resume();
            req.on('close', () => {
              setTimeout(tick, 200);
            });
            req.end();
          };
          tick();
        }),
    ),
  );
}
