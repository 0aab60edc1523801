// HTTPRoute retries, the request deadline across tries and backendRef URLRewrite/RequestRedirect through real nginx,
// beyond what the conformance suite checks (docs/adr/0026). Tries are counted in the echo backend's log, never timed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backend, httpRoute, mustBeAccepted, prefixRule, startConformance, type Conformance } from '../gateway-conformance/harness.js';
import { INFRA_NS as NS } from '../gateway-conformance/base.js';
import { until } from '../support/portico.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const V3 = 'infra-backend-v3';
const rule = (prefix: string, to: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ ...prefixRule(prefix, [], to), ...more });

describe('Gateway API: retries, request deadline, backendRef rewrite and redirect', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });
  /** Requests for exactly `path` (with its query) the echo of `service` saw. */
  const tries = (service: string, path: string): number => (c.echoes.get(`${NS}/${service}`)?.seen ?? []).filter((r) => r.path === path).length;
  /** One request to a unique path under `prefix`; its status and how many tries the backend saw once they settle. */
  const once = async (prefix: string, query: Record<string, string>, service = V3): Promise<{ status: number; tries: number }> => {
    const path = `${prefix}?${new URLSearchParams({ ...query, uuid: randomUUID() }).toString()}`;
    const got = await c.roundTrip({ request: { path } });
    return { status: got.status, tries: tries(service, path) };
  };

  test('timeouts.request is one deadline across tries: a slow first try leaves the retry only the rest, then 504', async () => {
    await c.apply([
      httpRoute('deadline', {
        rules: [
          rule('/deadline', V3, { timeouts: { request: '1s', backendRequest: '600ms' }, retry: { codes: [500], attempts: 3 } }),
          rule('/per-try', V3, { timeouts: { backendRequest: '300ms' }, retry: { codes: [500], attempts: 3 } }),
        ],
      }),
    ]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'deadline']]);
    await until('the deadline route to be served', async () => (await c.roundTrip({ request: { path: '/deadline' } })).status === 200);
    // Each try waits 2 s. With 600 ms a try, 3 retries would try 4 times (2.4 s); the 1 s deadline leaves the second
    // try 400 ms and grants no third.
    assert.deepEqual(await once('/deadline', { delay: '2s' }), { status: 504, tries: 2 });
    // Without timeouts.request every try gets its own 300 ms: 1 + 3 tries, then 504.
    assert.deepEqual(await once('/per-try', { delay: '2s' }), { status: 504, tries: 4 });
  });

  test('a retry policy retries connection errors (HTTPRouteRetryConnectionError) and backend timeouts (HTTPRouteRetryBackendTimeout)', async () => {
    await c.apply([
      httpRoute('retry-errors', {
        rules: [
          rule('/retry/errors', V2, { retry: { codes: [503], attempts: 1 } }),
          rule('/retry/timeouts', V3, { timeouts: { backendRequest: '300ms' }, retry: { attempts: 2 } }),
          rule('/retry/none', V2),
        ],
      }),
    ]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'retry-errors']]);
    await until('the retry route to be served', async () => (await c.roundTrip({ request: { path: `/retry/errors?succeedAfter=0&uuid=${randomUUID()}` } })).status === 200);
    // The first try's connection is reset (the echo's retry simulation without responseCode): the retry answers. V2
    // serves only /retry/ here, whose connections are never kept alive: each try is a new connection.
    assert.deepEqual(await once('/retry/errors', { succeedAfter: '1' }, V2), { status: 200, tries: 2 });
    assert.deepEqual(await once('/retry/errors', { succeedAfter: '2' }, V2), { status: 502, tries: 2 });
    // Not in the codes: no retry.
    assert.deepEqual(await once('/retry/errors', { succeedAfter: '1', responseCode: '500' }, V2), { status: 500, tries: 1 });
    // One endpoint and no retry policy: one try.
    assert.deepEqual(await once('/retry/none', { succeedAfter: '1' }, V2), { status: 502, tries: 1 });
    // Every try times out after 300 ms: 1 + 2 tries, then 504.
    const path = `/retry/timeouts?succeedAfter=0&delay=1s&uuid=${randomUUID()}`;
    const got = await c.roundTrip({ request: { path } });
    assert.deepEqual({ status: got.status, tries: tries(V3, path) }, { status: 504, tries: 3 });
  });

  test('URLRewrite and RequestRedirect on a backendRef apply to that backend share only', async () => {
    await c.apply([
      httpRoute('backend-filters', {
        rules: [
          {
            ...prefixRule('/rewrite-me', []),
            backendRefs: [backend(V1, { filters: [{ type: 'URLRewrite', urlRewrite: { hostname: 'rewritten.example', path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/new' } } }] })],
          },
          { ...prefixRule('/send-away', []), backendRefs: [backend(V1, { filters: [{ type: 'RequestRedirect', requestRedirect: { hostname: 'elsewhere.example', statusCode: 301 } }] })] },
        ],
      }),
    ]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'backend-filters']]);
    await c.expect({ request: { path: '/rewrite-me/x' }, expectedRequest: { path: '/new/x', host: 'rewritten.example' }, backend: V1, namespace: NS });
    await c.expect({ request: { path: '/send-away/y' }, response: { statusCode: 301 }, redirectRequest: { host: 'elsewhere.example', path: '/send-away/y' } });
  });
});
