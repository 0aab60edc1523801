// ingress-nginx e2e settings/enable_real_ip.go: enable-real-ip believes X-Forwarded-For for the client address only,
// never the other X-Forwarded-* headers.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { echoed, ing, startSuite, type Suite } from '../harness.js';

const SENT = { 'x-forwarded-port': '1234', 'x-forwarded-proto': 'myproto', 'x-forwarded-for': '1.2.3.4', 'x-forwarded-host': 'myhost' };

void describe('settings/enable_real_ip.go', () => {
  let s: Suite;
  const host = 'forwarded-for-header';
  const seen = async () => echoed(await s.get(host, '/', { headers: SENT })).headers;
  before(async () => {
    s = await startSuite({ config: { 'enable-real-ip': 'true' } });
    await s.put('ingresses.json', [ing(host, host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('trusts X-Forwarded-For header only when setting is true', async () => {
    const h = await seen();
    assert.equal(h['host'], host);
    assert.equal(h['x-forwarded-host'], host);
    assert.equal(h['x-forwarded-proto'], 'http');
    assert.equal(h['x-forwarded-port'], String(s.portico.http));
    assert.equal(h['x-forwarded-for'], '1.2.3.4');
  });

  test('should not trust X-Forwarded-For header when setting is false', async () => {
    await s.config({ 'enable-real-ip': 'false' }, async () => (await seen())['x-forwarded-for'] === '127.0.0.1');
    const h = await seen();
    assert.equal(h['host'], host);
    assert.equal(h['x-forwarded-port'], String(s.portico.http));
    assert.equal(h['x-forwarded-proto'], 'http');
    assert.equal(h['x-original-forwarded-for'], '1.2.3.4');
    assert.equal(h['x-original-forwarded-host'], 'myhost');
    assert.equal(h['x-forwarded-host'], host);
    assert.equal(h['x-forwarded-for'], '127.0.0.1');
  });
});
