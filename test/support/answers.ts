// A tenant's answers, whole, for comparing before and after another tenant changed something: per request the status,
// the backend and what it received (method, URI, cookie), the headers a user sees, and per host the certificate.
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { presented } from './certs.js';

export interface Answer {
  readonly status: number;
  readonly backend?: string;
  /** What the backend received: method, URI and the cookie sent. */
  readonly received?: { readonly method: string; readonly url: string; readonly cookie?: string };
  /** Every response header but the ones that change per request (date, request id, lengths). */
  readonly headers: Readonly<Record<string, string>>;
  /** The body of an answer no backend gave (an error page, a redirect's), else absent. */
  readonly page?: string;
}

/** `scheme://host/path` (and `cert host` → the certificate's fingerprint) → what came back. */
export type Answers = Record<string, Answer | string>;

const VOLATILE = new Set(['date', 'x-request-id', 'content-length', 'connection', 'keep-alive', 'transfer-encoding', 'etag', 'last-modified']);

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** One request on a fresh connection, with a Host (and SNI) of `host` and the given cookie; HTTPS certificates are not checked. */
function send(port: number, tls: boolean, host: string, path: string, opts: { method?: string; cookie?: string } = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host, ...(opts.cookie ? { cookie: opts.cookie } : {}) };
    const common = { host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers, agent: false, timeout: 10_000 } as const;
    const onResponse = (res: import('node:http').IncomingMessage): void => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    };
    const req = tls ? httpsRequest({ ...common, servername: host, rejectUnauthorized: false }, onResponse) : httpRequest(common, onResponse);
    req.on('timeout', () => {
      req.destroy(new Error(`timeout: ${host}${path}`));
    });
    req.on('error', reject);
    req.end(opts.method === 'POST' ? 'body' : undefined);
  });
}

/** The parts of a reply a user would notice, stable from one request to the next. */
function answerOf(r: Raw): Answer {
  const headers: Record<string, string> = {};
  for (const k of Object.keys(r.headers).sort()) if (!VOLATILE.has(k)) headers[k] = String(r.headers[k]);
  const backend = typeof r.headers['x-backend'] === 'string' ? r.headers['x-backend'] : undefined;
  if (backend === undefined) return { status: r.status, headers, page: r.body };
  const echo = JSON.parse(r.body) as { method: string; url: string; headers: Record<string, string | undefined> };
  const cookie = echo.headers['cookie'];
  return { status: r.status, backend, headers, received: { method: echo.method, url: echo.url, ...(cookie !== undefined ? { cookie } : {}) } };
}

/** The requests a tenant at /a on these hosts gets: both schemes, several paths under /a, a POST, a cookie; and each host's certificate. */
export async function tenantAnswers(ports: { http: number; https: number }, hosts: readonly string[], paths: readonly string[]): Promise<Answers> {
  const out: Answers = {};
  for (const host of hosts) {
    out[`cert ${host}`] = (await presented(ports.https, host)).fingerprint;
    for (const [scheme, port] of [
      ['http', ports.http],
      ['https', ports.https],
    ] as const) {
      for (const path of paths) out[`${scheme}://${host}${path}`] = answerOf(await send(port, scheme === 'https', host, path, { cookie: 'session=a-secret' }));
      out[`POST ${scheme}://${host}${paths[0] ?? '/'}`] = answerOf(await send(port, scheme === 'https', host, paths[0] ?? '/', { method: 'POST' }));
    }
  }
  return out;
}
