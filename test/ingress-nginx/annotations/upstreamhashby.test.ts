// ingress-nginx e2e annotations/upstreamhashby.go: upstream-hash-by $request_uri sends one URI to one of six
// endpoints; with upstream-hash-by-subset, to a subset of three of them.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Backend } from '../../support/backends.js';
import { serviceFor } from '../../support/manifests.js';
import { ann, ing, startEcho, startSuite, type Suite } from '../harness.js';

void describe('annotations/upstreamhashby.go', () => {
  let s: Suite;
  const pods: Backend[] = [];
  before(async () => {
    for (let i = 0; i < 6; i += 1) pods.push(await startEcho(`pod-${i}`));
    s = await startSuite({ objects: [...serviceFor('hashed', pods), ...serviceFor('subset', pods)] });
  });
  after(async () => {
    await s.stop();
    for (const p of pods) await p.close();
  });

  /** The endpoints 100 requests for one URI reached. */
  const reached = async (host: string): Promise<Set<string>> => {
    const seen = new Set<string>();
    for (let i = 0; i < 100; i += 1) {
      const r = await s.get(host, '/');
      assert.equal(r.status, 200);
      seen.add(String(r.headers['x-backend']));
    }
    return seen;
  };

  test('should connect to the same pod', async () => {
    const host = 'hash.upstream-hash-by.test';
    await s.put('hash.json', [ing('hash', host, { service: 'hashed', annotations: ann({ 'upstream-hash-by': '$request_uri' }) })], async () => (await s.get(host, '/')).status === 200);
    // Without the hash, round robin over six endpoints would reach all six in 100 requests.
    assert.equal((await reached(host)).size, 1);
  });

  test('should connect to the same subset of pods', async () => {
    const host = 'subset.upstream-hash-by.test';
    const a = ann({ 'upstream-hash-by': '$request_uri', 'upstream-hash-by-subset': 'true', 'upstream-hash-by-subset-size': '3' });
    await s.put('subset.json', [ing('subset', host, { service: 'subset', annotations: a })], async () => (await s.get(host, '/')).status === 200);
    assert.equal((await reached(host)).size, 3);
  });
});
