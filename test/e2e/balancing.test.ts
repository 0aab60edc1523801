// End to end: the balancing annotations (upstream-hash-by, affinity cookie, load-balance) through real nginx + Lua.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, ingressClass } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { get, metric, startPortico, until, who, workerPids, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';

describe('balancing annotations', () => {
  let backends: Backend[] = [];
  let dir = '';
  let portico: Running;
  const app = (name: string, host: string, service: string, annotations: Record<string, string>) =>
    ingress(name, { className: 'portico', host, annotations, paths: [{ path: '/', type: 'Prefix', service }] });

  before(async () => {
    backends = await Promise.all(['b1', 'b2', 'b3'].map((id) => startBackend(id)));
    dir = await manifestDir();
    await writeManifests(dir, 'svc.yaml', [ingressClass('portico'), ...serviceFor('hashed', backends), ...serviceFor('sticky', backends)]);
    await writeManifests(dir, 'ing.yaml', [
      app('hash', 'hash.test', 'hashed', { [`${P}/upstream-hash-by`]: '$request_uri' }),
      app('sticky', 'sticky.test', 'sticky', { [`${P}/affinity`]: 'cookie', [`${P}/session-cookie-name`]: 'route', [`${P}/session-cookie-max-age`]: '3600' }),
    ]);
    portico = await startPortico(['--manifests', dir]);
  });

  after(async () => {
    await portico?.stop();
    await Promise.all(backends.map((b) => b.close()));
    await rm(dir, { recursive: true, force: true });
  });

  test('upstream-hash-by $request_uri sends one URI always to the same endpoint, and URIs spread', async () => {
    const owners = new Map<string, string>();
    for (let u = 0; u < 30; u++) {
      const seen = new Set<string>();
      for (let i = 0; i < 5; i++) seen.add(await who(portico.http, 'hash.test', `/item/${u}`));
      assert.equal(seen.size, 1, `/item/${u} went to ${[...seen].join(', ')}`);
      owners.set(`/item/${u}`, [...seen][0]!);
    }
    assert.equal(new Set(owners.values()).size, 3, 'the 30 URIs use all 3 endpoints');
  });

  test('cookie affinity keeps a client on one endpoint, spreads new clients, and moves a client whose endpoint left', async () => {
    const first = await get(portico.http, 'sticky.test', '/');
    const setCookie = String(first.headers['set-cookie'] ?? '');
    assert.match(setCookie, /^route=[^;]+;.*Max-Age=3600/i);
    const cookie = setCookie.split(';')[0]!;
    const pinned = String(first.headers['x-backend']);
    for (let i = 0; i < 20; i++) {
      const r = await get(portico.http, 'sticky.test', '/', { headers: { cookie } });
      assert.equal(r.headers['x-backend'], pinned);
    }
    const fresh = new Set<string>();
    for (let i = 0; i < 30; i++) fresh.add(String((await get(portico.http, 'sticky.test', '/')).headers['x-backend']));
    assert.ok(fresh.size >= 2, `new clients spread over ${[...fresh].join(', ')}`);
    // The pinned endpoint goes away: the client moves to another one and gets a new cookie.
    const rest = backends.filter((b) => b.id !== pinned);
    await writeManifests(dir, 'svc.yaml', [ingressClass('portico'), ...serviceFor('hashed', backends), ...serviceFor('sticky', rest)]);
    await until(
      'the pinned endpoint removed',
      async () => {
        const r = await get(portico.http, 'sticky.test', '/', { headers: { cookie } });
        return r.headers['x-backend'] !== pinned;
      },
      2000,
    );
    const moved = await get(portico.http, 'sticky.test', '/', { headers: { cookie } });
    assert.notEqual(moved.headers['x-backend'], pinned);
    // Balanced mode: the cookie is a key on a hash ring, so the same cookie now pins the client to its new endpoint
    // (a new cookie, when one is set, does the same).
    const next = String(moved.headers['set-cookie'] ?? '').split(';')[0] || cookie;
    for (let i = 0; i < 10; i++) {
      assert.equal((await get(portico.http, 'sticky.test', '/', { headers: { cookie: next } })).headers['x-backend'], moved.headers['x-backend']);
    }
    await writeManifests(dir, 'svc.yaml', [ingressClass('portico'), ...serviceFor('hashed', backends), ...serviceFor('sticky', backends)]);
  });

  test('changing the algorithm is applied without a reload', async () => {
    const pids = await workerPids(portico);
    const reloads = await metric(portico, 'portico_reloads_total');
    await writeManifests(dir, 'ing.yaml', [
      app('hash', 'hash.test', 'hashed', { [`${P}/load-balance`]: 'round_robin' }),
      app('sticky', 'sticky.test', 'sticky', { [`${P}/affinity`]: 'cookie', [`${P}/session-cookie-name`]: 'route' }),
    ]);
    await until(
      'round robin on hash.test',
      async () => {
        const seen = new Set<string>();
        for (let i = 0; i < 6; i++) seen.add(await who(portico.http, 'hash.test', '/same'));
        return seen.size === 3;
      },
      2000,
    );
    // Round robin → ewma, and balanced → persistent affinity: still Lua only.
    await writeManifests(dir, 'ing.yaml', [
      app('hash', 'hash.test', 'hashed', { [`${P}/load-balance`]: 'ewma' }),
      app('sticky', 'sticky.test', 'sticky', { [`${P}/affinity`]: 'cookie', [`${P}/session-cookie-name`]: 'route', [`${P}/affinity-mode`]: 'persistent' }),
    ]);
    await until(
      'ewma pushed',
      async () => {
        const backends = await (await fetch(`http://127.0.0.1:${portico.healthz}/debug/backends`)).text();
        return backends.includes('"loadBalance":"ewma"') && backends.includes('"mode":"persistent"');
      },
      2000,
    );
    assert.equal(await who(portico.http, 'hash.test', '/').then((id) => id.startsWith('b')), true);
    assert.deepEqual(await workerPids(portico), pids);
    assert.equal(await metric(portico, 'portico_reloads_total'), reloads);
  });

  test('an invalid upstream-hash-by is refused with a reason and the Ingress keeps its last valid form', async () => {
    await writeManifests(dir, 'ing.yaml', [app('hash', 'hash.test', 'hashed', { [`${P}/upstream-hash-by`]: '$request_uri"; return 200' }), app('sticky', 'sticky.test', 'sticky', {})]);
    await until('the refusal logged', () => portico.output.some((l) => l.includes('upstream-hash-by') && l.includes('not an nginx variable expression')), 2000);
    assert.equal(await who(portico.http, 'hash.test', '/x').then((id) => id.startsWith('b')), true);
  });
});
