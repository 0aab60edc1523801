// ingress-nginx e2e annotations/ipallowlist.go: allowlist-source-range lets only its ranges in (the client address
// comes from X-Forwarded-For here: enable-real-ip).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/ipallowlist.go', () => {
  let s: Suite;
  const host = 'ipallowlist.foo.com';
  const from = async (ip: string) => (await s.get(host, '/', { headers: { 'x-forwarded-for': ip } })).status;
  before(async () => {
    s = await startSuite({ config: { 'enable-real-ip': 'true' } });
    await s.put('ingresses.json', [ing('allow', host, { annotations: ann({ 'allowlist-source-range': '18.0.0.0/8, 56.0.0.0/8' }) })], async () => (await from('18.1.1.1')) === 200);
  });
  after(() => s.stop());

  test('should set valid ip allowlist range', async () => {
    assert.equal(await from('18.0.0.1'), 200);
    assert.equal(await from('56.255.0.1'), 200);
    assert.equal(await from('57.0.0.1'), 403);
    assert.equal((await s.get(host, '/')).status, 403);
  });
});
