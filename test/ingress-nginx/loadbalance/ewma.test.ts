// ingress-nginx e2e loadbalance/ewma.go: with load-balance ewma and three endpoints, every request is answered by one
// of them (none fails).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Backend } from '../../support/backends.js';
import { service, slice } from '../../support/objects.js';
import { ing, startEcho, startSuite, type Suite } from '../harness.js';

void describe('loadbalance/ewma.go', () => {
  let s: Suite;
  let replicas: Backend[];
  const host = 'load-balance.com';
  before(async () => {
    replicas = [await startEcho('echo-1'), await startEcho('echo-2'), await startEcho('echo-3')];
    s = await startSuite({ config: { 'load-balance': 'ewma' }, objects: [service('replicas'), ...replicas.map((r, i) => slice('replicas', r.port, ['127.0.0.1'], { name: `replicas-${i}` }))] });
    await s.put('ingresses.json', [ing('lb', host, { service: 'replicas' })], async () => (await s.get(host, '/')).status === 200);
  });
  after(async () => {
    await s.stop();
    for (const r of replicas) await r.close();
  });

  test('does not fail requests', async () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 30; i++) {
      const r = await s.get(host, '/');
      assert.equal(r.status, 200);
      const who = String(r.headers['x-backend']);
      assert.match(who, /^echo-[123]$/);
      counts.set(who, (counts.get(who) ?? 0) + 1);
    }
    assert.equal(
      [...counts.values()].reduce((a, b) => a + b, 0),
      30,
    );
  });
});
