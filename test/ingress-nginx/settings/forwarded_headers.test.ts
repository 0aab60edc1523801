// ingress-nginx e2e settings/forwarded_headers.go: use-forwarded-headers decides whether the client's X-Forwarded-*
// reach the backend as sent.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { echoed, ing, startSuite, type Suite } from '../harness.js';

const SENT = { 'x-forwarded-port': '1234', 'x-forwarded-proto': 'myproto', 'x-forwarded-scheme': 'myproto', 'x-forwarded-for': '1.2.3.4', 'x-forwarded-host': 'myhost' };

void describe('settings/forwarded_headers.go', () => {
  let s: Suite;
  const host = 'forwarded-headers';
  const seen = async (headers: Record<string, string> = SENT) => echoed(await s.get(host, '/', { headers })).headers;
  before(async () => {
    s = await startSuite({ config: { 'use-forwarded-headers': 'true' } });
    await s.put('ingresses.json', [ing(host, host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('should trust X-Forwarded headers when setting is true', async () => {
    const h = await seen();
    assert.equal(h['x-forwarded-host'], 'myhost');
    assert.equal(h['x-forwarded-proto'], 'myproto');
    assert.equal(h['x-forwarded-scheme'], 'myproto');
    assert.equal(h['x-forwarded-port'], '1234');
    assert.equal(h['x-forwarded-for'], '1.2.3.4');
    // A list of hosts: the first one.
    assert.equal((await seen({ ...SENT, 'x-forwarded-host': 'myhost.com, another.host,example.net' }))['x-forwarded-host'], 'myhost.com');
  });

  test('should not trust X-Forwarded headers when setting is false', async () => {
    await s.config({ 'use-forwarded-headers': 'false' }, async () => (await seen())['x-forwarded-proto'] === 'http');
    const h = await seen();
    assert.equal(h['host'], host);
    assert.equal(h['x-forwarded-port'], String(s.portico.http));
    assert.equal(h['x-forwarded-proto'], 'http');
    assert.equal(h['x-forwarded-scheme'], 'http');
    assert.equal(h['x-original-forwarded-for'], '1.2.3.4');
    assert.equal(h['x-original-forwarded-host'], 'myhost');
    assert.equal(h['x-forwarded-host'], host);
    assert.equal(h['x-forwarded-for'], '127.0.0.1');
  });
});
