// ingress-nginx e2e settings/proxy_read_timeout.go: the ConfigMap's proxy-read-timeout, and an invalid one ignored.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('settings/proxy_read_timeout.go', () => {
  let s: Suite;
  const host = 'proxy-read-timeout';
  before(async () => {
    s = await startSuite({ config: { 'proxy-read-timeout': '1' } });
    await s.put('ingresses.json', [ing(host, host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('should set valid proxy read timeouts using configmap values', async () => {
    // An answer 3 s late passes the 1 s read timeout: 504.
    assert.equal((await s.get(host, '/sleep/3')).status, 504);
  });

  test('should not set invalid proxy read timeouts using configmap values', async () => {
    // Back to the default first: Portico keeps a key's previous good value when a new one is bad (docs/configmap.md).
    await s.config({}, async () => (await s.get(host, '/sleep/2')).status === 200);
    // "20k" is no time: refused with a warning naming the key, and the default (60 s) stays.
    await s.config({ 'proxy-read-timeout': '20k' }, async () => s.portico.output.some((l) => l.includes('proxy-read-timeout') && l.includes('20k') && l.includes('is not a number of seconds')));
    assert.equal((await s.get(host, '/sleep/2')).status, 200);
  });
});
