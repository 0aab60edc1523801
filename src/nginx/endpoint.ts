// Talking to nginx's Lua configuration endpoint (lua/portico/configuration.lua) on the status port: the payload
// POSTs, their answers, and the metrics dump. The token is the start's secret (docs/adr/0007), never logged.
import { request } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { PorticoError, PushRejectedError, ErrorCodes, errorMessage } from '../errors.js';

/** An item of a pushed payload that Lua refused and dropped: the backend's name or the certificate's host. */
export interface Rejected {
  readonly name: string;
  readonly reason: string;
}

/** The `rejected NAME: REASON` lines of a 201 from the configuration endpoint (lua/portico/configuration.lua). */
export function rejectedItems(answer: string): Rejected[] {
  const out: Rejected[] = [];
  for (const line of answer.split('\n')) {
    const m = /^rejected (\S*): (.*)$/.exec(line);
    if (m) out.push({ name: m[1] ?? '', reason: m[2] ?? '' });
  }
  return out;
}

/**
 * POSTs an already serialized JSON body to /configuration/`what`; error messages carry nginx's answer, never the body
 * (it may hold keys). Resolves with the items Lua dropped (it stores the rest): empty when the TypeScript checks held.
 */
export async function postConfiguration(statusPort: number, token: string, what: string, body: string): Promise<Rejected[]> {
  // A fresh connection each time: a pooled one may belong to an old worker that a reload is retiring, and it
  // closes under the POST (an ECONNRESET). The POST replaces the whole state, so one more try is safe.
  const post = (): Promise<Answer> => ask(statusPort, `/configuration/${what}`, { method: 'POST', token, body });
  const res = await post()
    .catch(async () => {
      await sleep(50);
      return post();
    })
    .catch((err: unknown) => {
      throw new PorticoError(ErrorCodes.NGINX_CONFIG_PUSH_FAILED, `POST /configuration/${what} failed: ${errorMessage(err)}`);
    });
  if (res.status < 200 || res.status > 299) {
    throw new PushRejectedError(res.status, `POST /configuration/${what} answered ${res.status}: ${res.text}`);
  }
  return rejectedItems(res.text);
}

/** The per-request figures Lua gathered (lua/portico/metrics.lua dump lines); '' when metrics are off. */
export async function fetchMetrics(statusPort: number, token: string): Promise<string> {
  const res = await ask(statusPort, '/configuration/metrics', { token });
  return res.status === 200 ? res.text : '';
}

export interface Answer {
  readonly status: number;
  readonly text: string;
}

/**
 * One request to nginx's status port on a fresh connection (node:http, no agent). A payload is written as the string
 * it is: fetch() copied a 50 MiB backends list through a web stream (encode, then a clone of each chunk), 1.5 s of the
 * main thread at 100,000 Ingresses while nginx waited for the body (docs/adr/0053).
 */
export function ask(port: number, path: string, o: { readonly method?: 'GET' | 'POST'; readonly token?: string; readonly body?: string; readonly timeoutMs?: number } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { connection: 'close' };
    if (o.token !== undefined) headers['x-portico-token'] = o.token;
    if (o.body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(o.body);
    }
    const req = request({ host: '127.0.0.1', port, path, method: o.method ?? 'GET', agent: false, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, text });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    // fetch()'s bound before it (undici's 300 s for headers and for the body): a hung nginx fails the request
    req.setTimeout(o.timeoutMs ?? 300_000, () => {
      req.destroy(new Error(`no answer from nginx within ${o.timeoutMs ?? 300_000} ms`));
    });
    req.end(o.body);
  });
}
