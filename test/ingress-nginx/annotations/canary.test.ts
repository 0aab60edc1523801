// ingress-nginx e2e annotations/canary.go: a canary Ingress on the host and path of a main Ingress takes requests by
// header, cookie or weight, never a host or catch-all of its own; each case has a host of its own on one Portico.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Backend } from '../../support/backends.js';
import { backendObjects } from '../../support/manifests.js';
import { ingress, service, slice } from '../../support/objects.js';
import { ann, ing, startEcho, startSuite, type Suite } from '../harness.js';

const CANARY = { canary: 'true', 'canary-by-header': 'CanaryByHeader' };

void describe('annotations/canary.go', () => {
  let s: Suite;
  let canary: Backend;
  before(async () => {
    canary = await startEcho('canary');
    s = await startSuite({
      objects: [...backendObjects('canary', canary.port), ...['canary-empty', 'main-empty'].flatMap((n) => [service(n), slice(n, canary.port, [{ ip: '127.0.0.1', ready: false }])])],
    });
    // Affinity is a setting of the Service (its oldest Ingress): the affinity cases have Services of their own, on
    // the same two echo backends.
    await s.dir.write('affinity-backends.json', [
      ...['aff-sticky', 'aff-explicit', 'aff-legacy'].flatMap((n) => [...backendObjects(`${n}-main`, s.echo.port), ...backendObjects(`${n}-canary`, canary.port)]),
    ]);
  });
  after(async () => {
    await s.stop();
    await canary.close();
  });

  /** Which backend answered ("echo" or "canary"), or the status when no backend did. */
  const side = async (host: string, headers: Record<string, string> = {}, path = '/info'): Promise<string> => {
    const r = await s.get(host, path, { headers });
    return r.status === 200 ? String(r.headers['x-backend']) : String(r.status);
  };
  const main = (host: string, annotations: Record<string, string> = {}, service = 'echo') => ing(`${host}-main`, host, { path: '/info', service, annotations: ann(annotations) });
  const can = (host: string, annotations: Record<string, string> = CANARY, service = 'canary') => ing(`${host}-canary`, host, { path: '/info', service, annotations: ann(annotations) });
  /** Puts both Ingresses of `host` in one file and waits until `always` reaches the canary and no header the main backend. */
  const pair = async (host: string, canaryAnnotations: Record<string, string>, ready: () => Promise<boolean>) => {
    await s.put(`${host}.json`, [main(host), can(host, canaryAnnotations)], ready);
  };
  const byHeader =
    (host: string, header = 'CanaryByHeader') =>
    async () =>
      (await side(host, { [header]: 'always' })) === 'canary' && (await side(host)) === 'echo';

  test('should response with a 200 status from the mainline upstream when requests are made to the mainline ingress', async () => {
    const host = 'mainline.canary.test';
    await pair(host, CANARY, byHeader(host));
    const r = await s.get(host, '/info');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-backend'], 'echo');
  });

  test('should return 404 status for requests to the canary if no matching ingress is found', async () => {
    const host = 'lonely.canary.test';
    // A marker Ingress in the same file shows the file was taken.
    await s.put(`${host}.json`, [can(host), main('marker.lonely.canary.test')], async () => (await side('marker.lonely.canary.test')) === 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'always' }), '404');
    assert.equal(await side(host), '404');
  });

  test('should return the correct status codes when endpoints are unavailable', async () => {
    // Commented out upstream (its framework could not scale Deployments); its two steps, with Services that have no
    // ready endpoint: a main backend without endpoints answers 503 even to requests the canary would take (ingress-nginx
    // chooses the canary only after the main balancer), and a canary without endpoints leaves every request to the main one.
    const down = 'maindown.canary.test';
    const up = 'canarydown.canary.test';
    await s.put(
      'unavailable.json',
      [main(down, {}, 'main-empty'), can(down), main(up), can(up, CANARY, 'canary-empty')],
      async () => (await side(down, { CanaryByHeader: 'always' })) === '503' && (await side(up, { CanaryByHeader: 'never' })) === 'echo',
    );
    assert.equal(await side(down, { CanaryByHeader: 'always' }), '503');
    assert.equal(await side(up, { CanaryByHeader: 'never' }), 'echo');
    assert.equal(await side(up, { CanaryByHeader: 'always' }), 'echo');
  });

  test('should route requests to the correct upstream if mainline ingress is created before the canary ingress', async () => {
    const host = 'before.canary.test';
    await s.put(`${host}-main.json`, [main(host)], async () => (await side(host)) === 'echo');
    await s.put(`${host}-canary.json`, [can(host)], async () => (await side(host, { CanaryByHeader: 'always' })) === 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'never' }), 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'always' }), 'canary');
  });

  test('should route requests to the correct upstream if mainline ingress is created after the canary ingress', async () => {
    const host = 'after.canary.test';
    await s.put(`${host}-canary.json`, [can(host), main(`marker.${host}`)], async () => (await side(`marker.${host}`)) === 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'always' }), '404');
    await s.put(`${host}-main.json`, [main(host)], async () => (await side(host, { CanaryByHeader: 'always' })) === 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'never' }), 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'always' }), 'canary');
  });

  test('should route requests to the correct upstream if the mainline ingress is modified', async () => {
    const host = 'mainmod.canary.test';
    await s.put(`${host}-canary.json`, [can(host)], async () => true);
    await s.put(`${host}-main.json`, [main(host)], byHeader(host));
    // An annotation outside the prefix changes the main Ingress and nothing it serves.
    await s.put(`${host}-main.json`, [ing(`${host}-main`, host, { path: '/info', annotations: { [host]: 'bar' } })], byHeader(host));
    assert.equal(await side(host, { CanaryByHeader: 'never' }), 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'always' }), 'canary');
  });

  test('should route requests to the correct upstream if the canary ingress is modified', async () => {
    const host = 'canarymod.canary.test';
    await s.put(`${host}-main.json`, [main(host)], async () => (await side(host)) === 'echo');
    await s.put(`${host}-canary.json`, [can(host)], byHeader(host));
    await s.put(`${host}-canary.json`, [can(host, { canary: 'true', 'canary-by-header': 'CanaryByHeader2' })], byHeader(host, 'CanaryByHeader2'));
    assert.equal(await side(host, { CanaryByHeader2: 'never' }), 'echo');
    assert.equal(await side(host, { CanaryByHeader2: 'always' }), 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'always' }), 'echo', 'the old header no longer routes');
  });

  test('should route requests to the correct upstream', async () => {
    // When canaried by header with no value.
    const host = 'header.canary.test';
    await pair(host, CANARY, byHeader(host));
    assert.equal(await side(host, { CanaryByHeader: 'always' }), 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'never' }), 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'badheadervalue' }), 'echo');
  });

  test('should route requests to the correct upstream', async () => {
    // When canaried by header with value.
    const host = 'value.canary.test';
    await pair(host, { ...CANARY, 'canary-by-header-value': 'DoCanary' }, async () => (await side(host, { CanaryByHeader: 'DoCanary' })) === 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'DoCanary' }), 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'always' }), 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'never' }), 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'otherheadervalue' }), 'echo');
  });

  test('should route requests to the correct upstream', async () => {
    // When canaried by header with a pattern.
    const host = 'pattern.canary.test';
    await pair(host, { ...CANARY, 'canary-by-header-pattern': '^Do[A-Z][a-z]+y$' }, async () => (await side(host, { CanaryByHeader: 'DoCanary' })) === 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'DoCanary' }), 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'Docanary' }), 'echo');
  });

  test('should route requests to the correct upstream', async () => {
    // When canaried by header with a value and a pattern: the value wins, the pattern is not used.
    const host = 'valuepattern.canary.test';
    await pair(host, { ...CANARY, 'canary-by-header-value': 'DoCanary', 'canary-by-header-pattern': '^Do[A-Z][a-z]+y$' }, async () => (await side(host, { CanaryByHeader: 'DoCanary' })) === 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'DoCananry' }), 'echo');
  });

  test('should routes to mainline upstream when the given Regex causes error', async () => {
    const host = 'badregex.canary.test';
    const bad = { ...CANARY, 'canary-by-header-pattern': '[][**da?$&*', 'canary-by-cookie': 'CanaryByCookie' };
    await s.put(`${host}.json`, [main(host), can(host, bad), main(`marker.${host}`)], async () => (await side(`marker.${host}`)) === 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'DoCanary', cookie: 'CanaryByCookie=always' }), 'echo');
  });

  test('should route requests to the correct upstream', async () => {
    // When canaried by header with a value and by cookie: a header that does not match leaves the cookie to decide.
    const host = 'valuecookie.canary.test';
    await pair(host, { ...CANARY, 'canary-by-header-value': 'DoCanary', 'canary-by-cookie': 'CanaryByCookie' }, async () => (await side(host, { CanaryByHeader: 'DoCanary' })) === 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'otherheadervalue', cookie: 'CanaryByCookie=always' }), 'canary');
    assert.equal(await side(host, { CanaryByHeader: 'otherheadervalue' }), 'echo');
  });

  test('respects always and never values', async () => {
    const host = 'cookie.canary.test';
    await pair(host, { canary: 'true', 'canary-by-cookie': 'Canary-By-Cookie' }, async () => (await side(host, { cookie: 'Canary-By-Cookie=always' })) === 'canary');
    for (let i = 0; i < 20; i += 1) {
      assert.equal(await side(host, { cookie: 'Canary-By-Cookie=always' }), 'canary');
      assert.equal(await side(host, { cookie: 'Canary-By-Cookie=never' }), 'echo');
      assert.equal(await side(host, { cookie: 'Canary-By-Cookie=badcookievalue' }), 'echo');
    }
  });

  /** How many of `n` plain requests each side answered. */
  const spread = async (host: string, n: number): Promise<Record<string, number>> => {
    const count: Record<string, number> = {};
    for (let i = 0; i < n; i += 1) {
      const who = await side(host);
      count[who] = (count[who] ?? 0) + 1;
    }
    return count;
  };

  test('should route requests only to mainline if canary weight is 0', async () => {
    const host = 'weight0.canary.test';
    // Ready once a header shows the canary is in: the weight-0 canary also listens to `always`.
    await pair(host, { canary: 'true', 'canary-weight': '0', 'canary-by-header': 'Ready' }, async () => (await side(host, { Ready: 'always' })) === 'canary');
    assert.deepEqual(await spread(host, 40), { echo: 40 });
  });

  test('should route requests only to canary if canary weight is 100', async () => {
    const host = 'weight100.canary.test';
    await pair(host, { canary: 'true', 'canary-weight': '100' }, async () => (await side(host)) === 'canary');
    assert.deepEqual(await spread(host, 40), { canary: 40 });
  });

  test('should route requests only to canary if canary weight is equal to canary weight total', async () => {
    const host = 'weighttotal.canary.test';
    await pair(host, { canary: 'true', 'canary-weight': '1000', 'canary-weight-total': '1000' }, async () => (await side(host)) === 'canary');
    assert.deepEqual(await spread(host, 40), { canary: 40 });
  });

  // At a 50% split each side gets at least 50 of 200 requests but for a chance below 1e-12.
  const halves = (count: Record<string, number>) => {
    assert.deepEqual(Object.keys(count).sort(), ['canary', 'echo'], JSON.stringify(count));
    assert.ok((count['echo'] ?? 0) >= 50 && (count['canary'] ?? 0) >= 50, JSON.stringify(count));
  };

  test('should route requests split between mainline and canary if canary weight is 50', async () => {
    const host = 'weight50.canary.test';
    await pair(host, { canary: 'true', 'canary-weight': '50', 'canary-by-header': 'Ready' }, async () => (await side(host, { Ready: 'always' })) === 'canary');
    halves(await spread(host, 200));
  });

  test('should route requests split between mainline and canary if canary weight is 100 and weight total is 200', async () => {
    const host = 'weight200.canary.test';
    await pair(host, { canary: 'true', 'canary-weight': '100', 'canary-weight-total': '200', 'canary-by-header': 'Ready' }, async () => (await side(host, { Ready: 'always' })) === 'canary');
    halves(await spread(host, 200));
  });

  test('should not use canary as a catch-all server', async () => {
    // Both are catch-alls (a default backend, no rules); the canary is the older one and still never serves.
    const catchAll = (name: string, svc: string, a: Record<string, string>, created: string) => ingress(name, { className: 'portico', defaultBackend: svc, annotations: ann(a), created });
    await s.put(
      'catchall.json',
      [catchAll('catchall-canary', 'canary', CANARY, '2025-12-01T00:00:00Z'), catchAll('catchall-main', 'echo', {}, '2025-12-02T00:00:00Z')],
      async () => (await side('unknown.canary.test', {}, '/')) === 'echo',
    );
    assert.equal(await side('unknown.canary.test', {}, '/'), 'echo');
    assert.equal(await side('other.unknown.test', {}, '/anything'), 'echo');
    // The catch-alls go: the other cases' unknown hosts are the default backend's 404 again.
    await s.put('catchall.json', [], async () => (await side('unknown.canary.test', {}, '/')) === '404');
  });

  test('should not use canary with domain as a server', async () => {
    const host = 'domain.canary.test';
    await s.put(`${host}.json`, [can(host), ing('bar-main', 'bar.canary.test')], async () => (await side('bar.canary.test', {}, '/')) === 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'always' }), '404');
    assert.equal(await side(host), '404');
  });

  test('does not crash when canary ingress has multiple paths to the same non-matching backend', async () => {
    const host = 'multipath.canary.test';
    const paths = ['/foo', '/bar'].map((path) => ({ path, type: 'Prefix' as const, service: 'httpy-svc-canary' }));
    await s.put(`${host}.json`, [ing(`${host}-canary`, host, { paths, annotations: ann(CANARY) }), ing(`${host}-main`, host)], async () => (await side(host, {}, '/')) === 'echo');
    assert.equal(await side(host, {}, '/foo'), 'echo');
    assert.equal(await side(host, { CanaryByHeader: 'never' }, '/bar'), 'echo');
    assert.equal(await side('mainline.canary.test'), 'echo', 'the rest is served');
  });

  /** An affinity pair: the main Ingress pins clients with cookie `aff`, the canary is forced by `ForceCanary: yes`. */
  const affinity = async (name: string, weight: string, behavior?: string) => {
    const host = `${name}.canary.test`;
    const canaryAnn = { canary: 'true', 'canary-by-header': 'ForceCanary', 'canary-by-header-value': 'yes', 'canary-weight': weight, ...(behavior ? { 'affinity-canary-behavior': behavior } : {}) };
    await s.put(
      `${host}.json`,
      [main(host, { affinity: 'cookie', 'session-cookie-name': 'aff' }, `${name}-main`), can(host, canaryAnn, `${name}-canary`)],
      async () => (await side(host, { ForceCanary: 'yes' })) === 'canary',
    );
    const forced = await s.get(host, '/info', { headers: { ForceCanary: 'yes' } });
    assert.equal(forced.status, 200);
    assert.equal(forced.headers['x-backend'], 'canary');
    return { host, setCookie: String(forced.headers['set-cookie'] ?? '') };
  };
  const pinnedToCanary = async (host: string, setCookie: string) => {
    const value = /(?:^|,\s*)aff=([^;]+)/.exec(setCookie)?.[1];
    assert.ok(value !== undefined, `the canary's answer sets the affinity cookie: ${setCookie}`);
    for (let i = 0; i < 30; i += 1) assert.equal(await side(host, { cookie: `aff=${value}` }), 'canary');
  };

  test('always routes traffic to canary if first request was affinitized to canary (default behavior)', async () => {
    const { host, setCookie } = await affinity('aff-sticky', '1');
    await pinnedToCanary(host, setCookie);
  });

  test('always routes traffic to canary if first request was affinitized to canary (explicit sticky behavior)', async () => {
    const { host, setCookie } = await affinity('aff-explicit', '1', 'sticky');
    await pinnedToCanary(host, setCookie);
  });

  test('routes traffic to either mainline or canary backend (legacy behavior)', async () => {
    const { host, setCookie } = await affinity('aff-legacy', '50', 'legacy');
    assert.ok(!/(?:^|,\s*)aff=/.test(setCookie), `no affinity cookie from the canary with legacy: ${setCookie}`);
    halves(await spread(host, 200));
  });
});
