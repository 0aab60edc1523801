// Talking to nginx's Lua configuration endpoint (lua/portico/configuration.lua) on the status port: the payload
// POSTs, their answers, and the metrics dump. The token is the start's secret (docs/adr/0007), never logged.
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
  // closes under the POST ("fetch failed"). The POST replaces the whole state, so one more try is safe.
  const post = (): Promise<Response> =>
    fetch(`http://127.0.0.1:${statusPort}/configuration/${what}`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-portico-token': token, connection: 'close' } });
  const res = await post()
    .catch(async () => {
      await sleep(50);
      return post();
    })
    .catch((err: unknown) => {
      throw new PorticoError(ErrorCodes.NGINX_CONFIG_PUSH_FAILED, `POST /configuration/${what} failed: ${errorMessage(err)}`);
    });
  if (res.status < 200 || res.status > 299) {
    throw new PushRejectedError(res.status, `POST /configuration/${what} answered ${res.status}: ${await res.text()}`);
  }
  return rejectedItems(await res.text());
}

/** The per-request figures Lua gathered (lua/portico/metrics.lua dump lines); '' when metrics are off. */
export async function fetchMetrics(statusPort: number, token: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${statusPort}/configuration/metrics`, { headers: { 'x-portico-token': token } });
  const text = await res.text();
  return res.status === 200 ? text : '';
}
