// HTTPRoute rule `retry` and `timeouts`, validated into a GatewayAction's try policy (docs/adr/0026): the codes nginx's
// proxy_next_upstream can retry, the number of retries, a per-try timeout and one deadline across the tries.
import { clip } from '../names.js';
import type { HTTPRouteRule } from './api.js';
import type { GatewayAction } from './route-types.js';

type Refusal = { readonly field: string; readonly reason: string };
export type TryPolicy = Pick<GatewayAction, 'retry' | 'timeoutMs' | 'deadlineMs'>;

/** Response codes nginx's proxy_next_upstream can retry on (its `http_NNN` words); others cannot be retried by nginx 1.22. */
const RETRY_CODES: readonly number[] = [403, 404, 429, 500, 502, 503, 504];
/** Retries of one request at most: each is a new try of the whole request on the backend. */
const MAX_ATTEMPTS = 10;
/** Retries when `retry.attempts` is left out (implementation-specific in the specification). */
const DEFAULT_ATTEMPTS = 1;

/** The Gateway API Duration (`1h`, `30s`, `500ms`, `1m30s`), in milliseconds, or undefined when it is not one. */
export function durationMs(d: string): number | undefined {
  if (!/^([0-9]{1,5}(h|m|s|ms)){1,4}$/.test(d)) return undefined;
  let ms = 0;
  for (const [, n, unit] of d.matchAll(/([0-9]+)(ms|h|m|s)/g)) ms += Number(n) * (unit === 'h' ? 3_600_000 : unit === 'm' ? 60_000 : unit === 's' ? 1000 : 1);
  return ms;
}

function notDuration(field: string, v: string): Refusal {
  return { field, reason: `${JSON.stringify(clip(v))} is not a Gateway API Duration such as 10s or 1m30s` };
}

/** `retry`: codes (each one nginx can retry on), attempts (1-10, default 1) and a backoff nginx can keep (none: 0s). */
function retryOf(r: NonNullable<HTTPRouteRule['retry']>, field: string): NonNullable<GatewayAction['retry']> | Refusal {
  const codes: number[] = [];
  for (const [i, code] of (r.codes ?? []).entries()) {
    if (!Number.isInteger(code) || code < 400 || code > 599) return { field: `${field}.codes[${i}]`, reason: 'must be an HTTP status code 400-599' };
    if (!RETRY_CODES.includes(code)) {
      return { field: `${field}.codes[${i}]`, reason: `nginx retries on ${RETRY_CODES.join(', ')} only; a retry on ${String(code)} cannot be served` };
    }
    if (!codes.includes(code)) codes.push(code);
  }
  const attempts = r.attempts ?? DEFAULT_ATTEMPTS;
  if (!Number.isInteger(attempts) || attempts < 1 || attempts > MAX_ATTEMPTS) return { field: `${field}.attempts`, reason: `must be an integer 1-${MAX_ATTEMPTS}` };
  if (r.backoff !== undefined) {
    const ms = durationMs(r.backoff);
    if (ms === undefined) return notDuration(`${field}.backoff`, r.backoff);
    // nginx picks the next try's peer in balancer_by_lua, which cannot sleep: a wait between tries cannot be kept.
    if (ms > 0) return { field: `${field}.backoff`, reason: 'nginx retries at once (its balancer cannot wait between tries); only 0s can be served' };
  }
  return { codes: codes.sort((a, b) => a - b), attempts };
}

/**
 * The rule's try policy: `timeoutMs` each try's connect/send/read timeout (backendRequest, else request), `deadlineMs`
 * the request timeout across every try (Lua shortens the last tries to it), `retry` the codes and retries.
 */
export function tryPolicy(rule: HTTPRouteRule, field: string): TryPolicy | Refusal {
  const t = rule.timeouts;
  const req = t?.request !== undefined ? durationMs(t.request) : 0;
  if (req === undefined) return notDuration(`${field}.timeouts.request`, t?.request ?? '');
  const back = t?.backendRequest !== undefined ? durationMs(t.backendRequest) : 0;
  if (back === undefined) return notDuration(`${field}.timeouts.backendRequest`, t?.backendRequest ?? '');
  if (req > 0 && back > req) return { field: `${field}.timeouts.backendRequest`, reason: 'backendRequest must not be longer than request' };
  const retry = rule.retry ? retryOf(rule.retry, `${field}.retry`) : undefined;
  if (retry && 'reason' in retry) return retry;
  const perTry = back > 0 ? back : req;
  return { ...(retry ? { retry } : {}), ...(perTry > 0 ? { timeoutMs: perTry } : {}), ...(req > 0 ? { deadlineMs: req } : {}) };
}

/** The proxy_next_upstream words of a retry policy: connection errors and timeouts always, then each code. */
export function nextUpstreamWords(codes: readonly number[]): string[] {
  return ['error', 'timeout', ...codes.filter((c) => RETRY_CODES.includes(c)).map((c) => `http_${String(c)}`)];
}
