// ingress-nginx e2e annotations/connection.go: connection-proxy-header is the Connection the backend sees.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/connection.go', () => {
  let s: Suite;
  const host = 'connection.foo.com';
  before(async () => {
    s = await startSuite();
    await s.put('ingresses.json', [ing('conn', host, { annotations: ann({ 'connection-proxy-header': 'keep-alive' }) })], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('set connection header to keep-alive', async () => {
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers['connection'], 'keep-alive');
  });
});
