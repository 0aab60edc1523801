// A local echo backend answering as the Gateway API conformance echo server does: the request it saw (path with its
// query, host, method, headers) and where it runs (namespace, pod), as JSON; `X-Echo-Set-Header: name:value,...`
// sets response headers, `?delay=<ms>ms` or `?delay=<s>s` answers late (the backend timeout tests ask for it).
// `/retry/...?uuid=&succeedAfter=n[&responseCode=c]` fails the first n tries of that uuid (with c, else a TCP reset),
// as the echo server's retry simulation does; a WebSocket upgrade is answered and every message echoed back.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { WebSocketServer } from 'ws';
import type { AddressInfo } from 'node:net';

/** What the conformance echo server answers (its RequestAssertions, the fields the suite compares). */
export interface EchoAnswer {
  readonly path: string;
  readonly host: string;
  readonly method: string;
  readonly proto: string;
  /** Request headers by lower-case name (the suite compares names case-insensitively), Host left out as Go does. */
  readonly headers: Record<string, string[]>;
  readonly namespace: string;
  readonly pod: string;
}

export interface EchoBackend {
  readonly service: string;
  readonly namespace: string;
  readonly pod: string;
  readonly port: number;
  /** Requests received (bounded), newest last: the mirror tests read them. */
  readonly seen: EchoAnswer[];
  close(): Promise<void>;
}

const SEEN_MAX = 10_000;
const DELAY_MAX_MS = 30_000;

/** `?delay=` as the echo server reads it (a Go duration; here the ms and s forms the suite uses), else 0. */
function delayOf(url: string): number {
  const raw = new URL(url, 'http://x').searchParams.get('delay');
  const m = raw === null ? null : /^(\d+(?:\.\d+)?)(ms|s)$/.exec(raw);
  if (m === null) return 0;
  return Math.min(DELAY_MAX_MS, Number(m[1]) * (m[2] === 's' ? 1000 : 1));
}

function answerOf(req: IncomingMessage, namespace: string, pod: string): EchoAnswer {
  const headers: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(req.headersDistinct)) if (name !== 'host' && values !== undefined) headers[name] = values;
  return { path: req.url ?? '', host: req.headers.host ?? '', method: req.method ?? '', proto: `HTTP/${req.httpVersion}`, headers, namespace, pod };
}

/** Response headers asked for with X-Echo-Set-Header (`name:value` pairs, comma separated). */
function setHeaders(req: IncomingMessage): [string, string][] {
  const asked = req.headersDistinct['x-echo-set-header'] ?? [];
  return asked
    .flatMap((list) => list.split(','))
    .map((kv) => kv.trim())
    .filter((kv) => kv.includes(':'))
    .map((kv) => [kv.slice(0, kv.indexOf(':')), kv.slice(kv.indexOf(':') + 1)]);
}

/** Distinct uuids the retry simulation remembers at most. */
const RETRY_MAX = 10_000;

/** The retry simulation: true when it answered this try as a failure (a status, or a reset connection). */
function failedTry(req: IncomingMessage, res: ServerResponse, tries: Map<string, number>): boolean {
  const url = new URL(req.url ?? '/', 'http://x');
  if (!url.pathname.startsWith('/retry/')) return false;
  // Never a kept-alive connection: nginx retries a reset of a pooled connection once more on its own, which would blur
  // the count of tries.
  res.shouldKeepAlive = false;
  const uuid = url.searchParams.get('uuid') ?? '';
  const after = Number(url.searchParams.get('succeedAfter') ?? 'NaN');
  if (uuid === '' || !Number.isInteger(after)) {
    res.writeHead(400).end('uuid and succeedAfter are required');
    return true;
  }
  const seen = tries.get(uuid) ?? 0;
  if (seen >= after) return false;
  if (tries.size < RETRY_MAX || tries.has(uuid)) tries.set(uuid, seen + 1);
  const code = Number(url.searchParams.get('responseCode') ?? 'NaN');
  if (Number.isInteger(code) && code >= 200 && code <= 599) res.writeHead(code).end();
  else req.socket.resetAndDestroy();
  return true;
}

/** Starts the echo of Service `service` in `namespace` on a free 127.0.0.1 port; its pod is `<service>-<podSuffix>`. */
export async function startEcho(service: string, namespace: string, podSuffix = 'pod-0'): Promise<EchoBackend> {
  const pod = `${service}-${podSuffix}`;
  const seen: EchoAnswer[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const tries = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const answer = answerOf(req, namespace, pod);
      if (seen.length < SEEN_MAX) seen.push(answer);
      if (failedTry(req, res, tries)) return;
      const send = (): void => {
        for (const [name, value] of setHeaders(req)) res.setHeader(name, value);
        res.writeHead(200, { 'content-type': 'application/json', 'x-content-type-options': 'nosniff' });
        res.end(JSON.stringify(answer));
      };
      const delay = delayOf(req.url ?? '');
      if (delay === 0) {
        send();
        return;
      }
      const t = setTimeout(() => {
        timers.delete(t);
        send();
      }, delay);
      timers.add(t);
    });
  });
  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    sockets.handleUpgrade(req, socket, head, (ws) => {
      ws.on('message', (data, binary) => {
        ws.send(data, { binary });
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    service,
    namespace,
    pod,
    port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        for (const t of timers) clearTimeout(t);
        for (const ws of sockets.clients) ws.terminate();
        sockets.close();
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}
