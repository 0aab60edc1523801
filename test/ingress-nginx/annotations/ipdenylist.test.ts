// ingress-nginx e2e annotations/ipdenylist.go: denylist-source-range, alone and with an allowlist (the client address
// comes from X-Forwarded-For here: enable-real-ip).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/ipdenylist.go', () => {
  let s: Suite;
  const from = async (host: string, ip: string) => (await s.get(host, '/', { headers: { 'x-forwarded-for': ip } })).status;
  before(async () => {
    s = await startSuite({ config: { 'enable-real-ip': 'true' } });
    await s.put(
      'ingresses.json',
      [
        ing('deny', 'ipdenylist.foo.com', { annotations: ann({ 'denylist-source-range': '18.0.0.0/8, 56.0.0.1' }) }),
        ing('both', 'ipdenylist2.foo.com', { annotations: ann({ 'denylist-source-range': '18.1.0.0/16, 56.0.0.0/8', 'whitelist-source-range': '18.0.0.0/8, 55.0.0.0/8' }) }),
      ],
      async () => (await from('ipdenylist2.foo.com', '55.55.55.55')) === 200 && (await from('ipdenylist.foo.com', '18.0.0.1')) === 403,
    );
  });
  after(() => s.stop());

  test('only deny explicitly denied IPs, allow all others', async () => {
    assert.equal(await from('ipdenylist.foo.com', '18.0.0.1'), 403);
    assert.equal(await from('ipdenylist.foo.com', '56.0.0.1'), 403);
    assert.equal(await from('ipdenylist.foo.com', '56.0.0.2'), 200);
  });

  test('only allow explicitly allowed IPs, deny all others', async () => {
    assert.equal(await from('ipdenylist2.foo.com', '18.1.0.1'), 403);
    assert.equal(await from('ipdenylist2.foo.com', '10.10.10.10'), 403);
    assert.equal(await from('ipdenylist2.foo.com', '18.4.0.1'), 200);
    assert.equal(await from('ipdenylist2.foo.com', '55.55.55.55'), 200);
  });
});
