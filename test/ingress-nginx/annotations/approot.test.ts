// ingress-nginx e2e annotations/approot.go: app-root redirects the root path.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/approot.go', () => {
  let s: Suite;
  const host = 'approot.bar.com';
  before(async () => {
    s = await startSuite();
    await s.put('ingresses.json', [ing('approot', host, { annotations: ann({ 'app-root': '/foo' }) })], async () => (await s.get(host, '/')).status === 302);
  });
  after(() => s.stop());

  test('should redirect to /foo', async () => {
    const r = await s.get(host, '/');
    assert.equal(r.status, 302);
    assert.equal(r.headers['location'], 'http://approot.bar.com/foo');
  });
});
