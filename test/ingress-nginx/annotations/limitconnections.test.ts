// ingress-nginx e2e annotations/limitconnections.go: limit-connections admits that many requests at once from one
// client address; the others are answered 503 while they run.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/limitconnections.go', () => {
  let s: Suite;
  const host = 'limit-connections.test';
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should limit-connections', async () => {
    await s.put('plain.json', [ing('limit', host)], async () => (await s.get(host, '/')).status === 200);
    await s.put('plain.json', [ing('limit', host, { annotations: ann({ 'limit-connections': '8' }) })], async () => {
      // Applied once 9 requests at once get a 503.
      const statuses = await Promise.all(Array.from({ length: 9 }, () => s.get(host, '/sleep/1').then((r) => r.status)));
      return statuses.includes(503);
    });
    // Each admitted request holds its connection for 3 s: all 20 are in flight together.
    const statuses = await Promise.all(Array.from({ length: 20 }, () => s.get(host, '/sleep/3', { timeoutMs: 20_000 }).then((r) => r.status)));
    assert.equal(statuses.filter((c) => c === 200).length, 8, statuses.join(','));
    assert.equal(statuses.filter((c) => c === 503).length, 12, statuses.join(','));
  });
});
