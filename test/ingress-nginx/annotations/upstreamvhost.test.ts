// ingress-nginx e2e annotations/upstreamvhost.go: upstream-vhost is the Host the backend sees.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/upstreamvhost.go', () => {
  let s: Suite;
  const host = 'upstreamvhost.foo.com';
  before(async () => {
    s = await startSuite();
    await s.put('ingresses.json', [ing('vhost', host, { annotations: ann({ 'upstream-vhost': 'upstreamvhost.bar.com' }) })], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('set host to upstreamvhost.bar.com', async () => {
    assert.equal(echoed(await s.get(host, '/')).headers['host'], 'upstreamvhost.bar.com');
  });
});
