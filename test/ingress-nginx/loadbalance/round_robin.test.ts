// ingress-nginx e2e loadbalance/round_robin.go: with one nginx worker and three endpoints, round robin (the default)
// gives each endpoint exactly a third of 600 requests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Backend } from '../../support/backends.js';
import { service, slice } from '../../support/objects.js';
import { ing, startEcho, startSuite, type Suite } from '../harness.js';

void describe('loadbalance/round_robin.go', () => {
  let s: Suite;
  let replicas: Backend[];
  const host = 'load-balance.com';
  before(async () => {
    replicas = [await startEcho('echo-1'), await startEcho('echo-2'), await startEcho('echo-3')];
    s = await startSuite({ config: { 'worker-processes': '1' }, objects: [service('replicas'), ...replicas.map((r, i) => slice('replicas', r.port, ['127.0.0.1'], { name: `replicas-${i}` }))] });
    await s.put('ingresses.json', [ing('lb', host, { service: 'replicas' })], async () => (await s.get(host, '/')).status === 200);
  });
  after(async () => {
    await s.stop();
    for (const r of replicas) await r.close();
  });

  test('should evenly distribute requests with round-robin (default algorithm)', async () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 600; i++) {
      const r = await s.get(host, '/');
      assert.equal(r.status, 200);
      const who = String(r.headers['x-backend']);
      counts.set(who, (counts.get(who) ?? 0) + 1);
    }
    assert.deepEqual([...counts.entries()].sort(), [
      ['echo-1', 200],
      ['echo-2', 200],
      ['echo-3', 200],
    ]);
  });
});
