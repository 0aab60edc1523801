// Gateway API conformance (v1.6.1), reproduced through real nginx: the GATEWAY-HTTP tests of request mirroring (one,
// several, a percentage) and timeouts. A mirrored request is found as upstream finds it in the mirror pod's log: the
// mirror's echo backend saw the request's path, made unique by a request-id query parameter. Each test is named with
// the upstream ShortName; the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { backend, httpRoute, mustBeAccepted, prefixRule, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';
import { mismatch, type Expected } from './expect.js';
import { until } from '../support/portico.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const V3 = 'infra-backend-v3';
const mirror = (to: string, more: Record<string, unknown> = {}): unknown => ({ type: 'RequestMirror', requestMirror: { backendRef: backend(to, { namespace: NS }), ...more } });
const modify: unknown = {
  type: 'RequestHeaderModifier',
  requestHeaderModifier: {
    set: [{ name: 'X-Header-Set', value: 'set-overwrites-values' }],
    add: [
      { name: 'X-Header-Add', value: 'header-val-1' },
      { name: 'X-Header-Add-Append', value: 'header-val-2' },
    ],
    remove: ['X-Header-Remove'],
  },
};
const modifiedSeen = { 'X-Header-Add': 'header-val-1', 'X-Header-Add-Append': 'append-val-1,header-val-2', 'X-Header-Set': 'set-overwrites-values' };
const modifiedSent = { 'X-Header-Remove': 'remove-val', 'X-Header-Add-Append': 'append-val-1' };

/** A request to V1 the backend sees unchanged, or with the modified headers; the path made unique (AddRequestIDQueryParam). */
function mirrored(path: string, headers?: Record<string, string>): Expected {
  const unique = `${path}?gateway-api-conformance-request-id=${randomUUID()}`;
  return {
    request: { path: unique, ...(headers ? { headers } : {}) },
    expectedRequest: { path: unique, ...(headers ? { headers: modifiedSeen, absentHeaders: ['X-Header-Remove'] } : {}) },
    backend: V1,
    namespace: NS,
  };
}

describe('GATEWAY-HTTP conformance: request mirroring and timeouts', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  /** How many requests for exactly `path` the echo of `service` saw. */
  const seenBy = (service: string, path: string): number => (c.echoes.get(`${NS}/${service}`)?.seen ?? []).filter((r) => r.path === path).length;
  /** ExpectMirroredRequest: every mirror saw the request's path. */
  const mirroredTo = async (e: Expected, mirrors: readonly string[]): Promise<void> => {
    await c.expect(e);
    for (const m of mirrors) await until(`${m} to see the mirrored ${e.request.path}`, () => seenBy(m, e.request.path) > 0, 30_000);
  };
  const route = (name: string, rules: readonly unknown[]): Promise<void> => c.apply([httpRoute(name, { rules })]).then(() => mustBeAccepted(c, 'same-namespace', [[NS, name]]));

  test('HTTPRouteRequestMirror', async () => {
    await route('request-mirror', [prefixRule('/mirror', [mirror(V2)], V1), prefixRule('/mirror-and-modify-headers', [modify, mirror(V2)], V1)]);
    await mirroredTo(mirrored('/mirror'), [V2]);
    await mirroredTo(mirrored('/mirror-and-modify-headers', modifiedSent), [V2]);
  });

  test('HTTPRouteRequestMultipleMirrors', async () => {
    await route('request-multiple-mirrors', [prefixRule('/multi-mirror', [mirror(V2), mirror(V3)], V1), prefixRule('/multi-mirror-and-modify-request-headers', [modify, mirror(V2), mirror(V3)], V1)]);
    await mirroredTo(mirrored('/multi-mirror'), [V2, V3]);
    await mirroredTo(mirrored('/multi-mirror-and-modify-request-headers', modifiedSent), [V2, V3]);
  });

  test('HTTPRouteRequestPercentageMirror', async () => {
    await route('request-percentage-mirror', [
      prefixRule('/percent-mirror', [mirror(V2, { percent: 20 })], V1),
      prefixRule('/percent-mirror-fraction', [mirror(V2, { fraction: { numerator: 25, denominator: 50 } })], V1),
      prefixRule('/percent-mirror-and-modify-headers', [modify, mirror(V2, { percent: 35 })], V1),
    ]);
    const total = 500;
    for (const [path, percent, headers] of [
      ['/percent-mirror', 20, undefined],
      ['/percent-mirror-fraction', 50, undefined],
      ['/percent-mirror-and-modify-headers', 35, modifiedSent],
    ] as const) {
      await c.expect(mirrored(path, headers));
      // The suite's distribution check: 500 requests, 10 at a time; the mirrored count within 3 binomial standard
      // deviations of 500 x p; 5 tries.
      const p = percent / 100;
      const margin = 3 * Math.sqrt(total * p * (1 - p));
      const misses: number[] = [];
      let ok = false;
      for (let attempt = 0; attempt < 5 && !ok; attempt++) {
        const e = mirrored(path, headers);
        for (let batch = 0; batch < total / 10; batch++) {
          const got = await Promise.all(Array.from({ length: 10 }, () => c.roundTrip(e)));
          for (const r of got) assert.equal(mismatch(e, r), undefined);
        }
        // Mirrors finish after their responses: count once the count stops moving (bounded).
        let last = -1;
        await until(
          `${path}: the mirrored count to settle`,
          () => {
            const now = seenBy(V2, e.request.path);
            const settled = now === last;
            last = now;
            return settled;
          },
          10_000,
          300,
        );
        ok = Math.abs(last - total * p) <= margin;
        if (!ok) misses.push(last);
      }
      assert.ok(ok, `${path}: mirrored counts ${misses.join(', ')} of ${total}, expected ${total * p} ± ${margin.toFixed(1)}`);
    }
  });

  test('HTTPRouteTimeoutBackendRequest', async () => {
    await route('backend-request-timeout', [
      { ...prefixRule('/backend-timeout', [], V1), timeouts: { backendRequest: '500ms' } },
      { ...prefixRule('/disable-backend-timeout', [], V1), timeouts: { backendRequest: '0s' } },
    ]);
    await c.expect({ request: { path: '/backend-timeout' }, response: { statusCode: 200 }, namespace: NS });
    await c.expect({ request: { path: '/backend-timeout?delay=1s' }, response: { statusCode: 504 }, namespace: NS });
    await c.expect({ request: { path: '/disable-backend-timeout?delay=1s' }, response: { statusCode: 200 }, namespace: NS });
  });

  test('HTTPRouteTimeoutRequest', async () => {
    await route('request-timeout', [
      { ...prefixRule('/request-timeout', [], V1), timeouts: { request: '500ms' } },
      { ...prefixRule('/disable-request-timeout', [], V1), timeouts: { request: '0s' } },
    ]);
    await c.expect({ request: { path: '/request-timeout' }, response: { statusCode: 200 }, namespace: NS });
    await c.expect({ request: { path: '/request-timeout?delay=1s' }, response: { statusCode: 504 }, namespace: NS });
    await c.expect({ request: { path: '/disable-request-timeout?delay=1s' }, response: { statusCode: 200 }, namespace: NS });
  });
});
