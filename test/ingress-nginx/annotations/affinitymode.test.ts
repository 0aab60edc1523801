// ingress-nginx e2e annotations/affinitymode.go: affinity-mode balanced with the session-cookie-* annotations of the
// upstream test: the Ingress is served and its clients get the affinity cookie. affinity-mode persistent: a client
// stays on its endpoint while endpoints are added, and gets a new one only when its own is gone.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { serviceFor } from '../../support/manifests.js';
import { ann, ing, startEcho, startSuite, type Suite } from '../harness.js';
import type { Backend } from '../../support/backends.js';

void describe('annotations/affinitymode.go', () => {
  let s: Suite;
  const echoes: Backend[] = [];
  const host = 'affinity-mode-balance.com';
  const annotations = ann({
    affinity: 'cookie',
    'session-cookie-name': 'hello-cookie',
    'session-cookie-expires': '172800',
    'session-cookie-max-age': '172800',
    'ssl-redirect': 'false',
    'affinity-mode': 'balanced',
    'session-cookie-hash': 'sha1',
  });
  before(async () => {
    for (let i = 0; i < 5; i++) echoes.push(await startEcho(`affinitybalanceecho-${i}`));
    s = await startSuite();
    await s.put(
      'affinitymode.json',
      [...serviceFor('affinitybalanceecho', echoes), ing(host, host, { service: 'affinitybalanceecho', annotations })],
      async () => (await s.get(host, '/')).status === 200,
    );
  });
  after(async () => {
    await s.stop();
    for (const e of echoes) await e.close();
  });
  /** A GET without cookie until an endpoint named `id` answers (each answer is one endpoint of the balancer's turn). */
  const reaches = (h: string, id: string) => async () => {
    for (let i = 0; i < 40; i++) {
      const r = await s.get(h, '/');
      if (r.status === 200 && r.headers['x-backend'] === id) return true;
    }
    return false;
  };

  test('Balanced affinity mode should balance', async () => {
    const first = await s.get(host, '/');
    assert.equal(first.status, 200);
    const cookie = (first.headers['set-cookie'] ?? []).find((c) => c.startsWith('hello-cookie='));
    assert.ok(cookie, 'the affinity cookie is set');
    assert.match(cookie, /Max-Age=172800/);
    // With its cookie the client stays on the endpoint that answered first.
    const pinned = String(first.headers['x-backend']);
    for (let i = 0; i < 5; i++) {
      const r = await s.get(host, '/', { headers: { cookie: cookie.split(';')[0] ?? '' } });
      assert.equal(r.headers['x-backend'], pinned);
    }
  });

  test('Check persistent affinity mode', async () => {
    const name = 'affinitypersistentecho';
    const persistentHost = 'affinity-mode-persistent.com';
    const a = ann({
      affinity: 'cookie',
      'session-cookie-name': 'hello-cookie',
      'session-cookie-expires': '172800',
      'session-cookie-max-age': '172800',
      'ssl-redirect': 'false',
      'affinity-mode': 'persistent',
      'session-cookie-hash': 'sha1',
    });
    const pods: Backend[] = [];
    for (let i = 0; i < 5; i++) pods.push(await startEcho(`${name}-${i}`));
    const objects = (endpoints: readonly Backend[]) => [...serviceFor(name, endpoints), ing(persistentHost, persistentHost, { service: name, annotations: a })];
    try {
      await s.put('persistent.json', objects(pods), async () => (await s.get(persistentHost, '/')).status === 200);
      const first = await s.get(persistentHost, '/');
      assert.equal(first.status, 200);
      const original = String(first.headers['x-backend']);
      const cookie = ((first.headers['set-cookie'] ?? []).find((c) => c.startsWith('hello-cookie=')) ?? '').split(';')[0] ?? '';
      assert.match(cookie, /^hello-cookie=./);
      const withCookie = () => s.get(persistentHost, '/', { headers: { cookie } });
      // Ten endpoints more, one at a time: each is served before the client asks again, and the client stays.
      for (let i = 5; i < 15; i++) {
        pods.push(await startEcho(`${name}-${i}`));
        await s.put('persistent.json', objects(pods), reaches(persistentHost, `${name}-${i}`));
        const r = await withCookie();
        assert.equal(r.status, 200);
        assert.equal(r.headers['x-backend'], original, `request ${i - 4} after endpoint ${i} was added`);
      }
      // No endpoint: nothing can serve the request.
      await s.put('persistent.json', objects([]), async () => (await withCookie()).status === 503);
      assert.equal((await withCookie()).status, 503);
      // Brand new endpoints (the old ones still listen, outside the Service): the client gets one of them.
      const fresh = [await startEcho(`${name}-new-0`), await startEcho(`${name}-new-1`)];
      pods.push(...fresh);
      await s.put('persistent.json', objects(fresh), async () => (await withCookie()).status === 200);
      const r = await withCookie();
      assert.equal(r.status, 200);
      assert.notEqual(r.headers['x-backend'], original);
      assert.ok(
        fresh.some((p) => p.id === r.headers['x-backend']),
        String(r.headers['x-backend']),
      );
    } finally {
      for (const p of pods) await p.close();
    }
  });
});
