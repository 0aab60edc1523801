// ingress-nginx e2e annotations/http2pushpreload.go: http2-push-preload. Portico accepts it and pushes nothing
// (browsers dropped HTTP/2 server push); the answer is as without it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/http2pushpreload.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('enable the http2-push-preload directive', async () => {
    const host = 'http2pp.foo.com';
    await s.put('ingress.json', [ing('http2pp', host, { annotations: ann({ 'http2-push-preload': 'true' }) })], async () => (await s.get(host, '/')).status === 200);
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-backend'], 'echo');
    assert.ok(!s.portico.output.some((l) => l.includes('"level":40') && l.includes('http2-push-preload') && l.includes('not served')));
  });
});
