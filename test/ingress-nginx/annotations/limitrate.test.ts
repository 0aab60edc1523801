// ingress-nginx e2e annotations/limitrate.go: limit-rate (KiB/s) slows each answer to that rate; a change of the
// annotation applies. Read as a lower bound on the time an answer takes, which a slow machine only lengthens.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/limitrate.go', () => {
  let s: Suite;
  const host = 'limit-rate-annotation.test';
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  /** Milliseconds an answer of `bytes` bytes takes. */
  const took = async (bytes: number): Promise<number> => {
    const start = Date.now();
    const r = await s.get(host, `/bytes/${bytes}`, { timeoutMs: 30_000 });
    assert.equal(r.status, 200);
    assert.equal(r.body.length, bytes);
    return Date.now() - start;
  };

  test('Check limit-rate annotation', async () => {
    const at = (rate: string) => [ing('limit-rate', host, { annotations: ann({ 'proxy-buffering': 'on', 'limit-rate': rate }) })];
    await s.put('ingress.json', at('1'), async () => (await s.get(host, '/')).status === 200);
    // 6 KiB at 1 KiB/s: nginx sends the first KiB at once, the rest over at least 4 s.
    const slow = await took(6 * 1024);
    assert.ok(slow >= 4_000, `6 KiB at 1 KiB/s took ${slow} ms`);
    // At 90 KiB/s the same answer is no longer held for seconds (6 KiB is under one second's allowance).
    await s.put('ingress.json', at('90'), async () => (await took(6 * 1024)) < 4_000);
  });
});
