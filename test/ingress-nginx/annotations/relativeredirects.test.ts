// ingress-nginx e2e annotations/relativeredirects.go: relative-redirects keeps nginx's own redirects relative (a
// permanent-redirect to a path answers that path as Location); without it nginx makes the path an absolute URL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/relativeredirects.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
    await s.put(
      'ingresses.json',
      [
        ing('rr', 'rr.foo.com', { annotations: ann({ 'relative-redirects': 'true', 'permanent-redirect': '/new-location' }), path: '/something' }),
        ing('abs', 'abs.foo.com', { annotations: ann({ 'relative-redirects': 'false', 'permanent-redirect': '/new-location' }), path: '/something' }),
        ing('cfg', 'cfg.foo.com', { annotations: ann({ 'relative-redirects': 'true' }) }),
      ],
      async () => (await s.get('cfg.foo.com', '/')).status === 200,
    );
  });
  after(() => s.stop());

  test('configures Nginx correctly', async () => {
    assert.equal((await s.get('cfg.foo.com', '/')).status, 200);
    assert.equal((await s.get('rr.foo.com', '/something')).headers['location'], '/new-location');
  });

  test('should respond with absolute URL in Location', async () => {
    const r = await s.get('abs.foo.com', '/something');
    assert.equal(r.status, 301);
    assert.equal(r.headers['location'], 'http://abs.foo.com/new-location');
  });

  test('should respond with relative URL in Location', async () => {
    const r = await s.get('rr.foo.com', '/something');
    assert.equal(r.status, 301);
    assert.equal(r.headers['location'], '/new-location');
  });
});
