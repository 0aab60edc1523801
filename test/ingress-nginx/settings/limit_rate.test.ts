// ingress-nginx e2e settings/limit_rate.go: the ConfigMap's limit-rate, in KiB/s as ingress-nginx renders it
// (limit_rate 1k), slows every answer; a change to 90 applies. Read as a lower bound on the time an answer takes under
// 1 KiB/s, which a slow machine only lengthens; the change to 90 KiB/s is waited for (bounded), never timed.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../support/portico.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('settings/limit_rate.go', () => {
  let s: Suite;
  const host = 'limit-rate';
  before(async () => {
    s = await startSuite();
    await s.put('ingress.json', [ing(host, host, { annotations: ann({ 'proxy-buffering': 'on' }) })], async () => (await s.get(host, '/')).status === 200);
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

  test('Check limit-rate config', async () => {
    await s.config({ 'limit-rate': '1' });
    // 3 KiB at 1 KiB/s: nginx sends the first KiB at once, the rest over at least 2 s (at 1 byte/s, as the ConfigMap
    // key's documentation reads, it would not finish in the 30 s allowed).
    await until('limit-rate 1 applied', async () => (await took(3 * 1024)) >= 1_500, 20_000);
    assert.ok((await took(3 * 1024)) >= 1_500);
    // At 90 KiB/s the same answer is no longer held for seconds (3 KiB is under one second's allowance).
    await s.config({ 'limit-rate': '90' });
    await until('limit-rate 90 applied', async () => (await took(3 * 1024)) < 1_500, 20_000);
  });
});
