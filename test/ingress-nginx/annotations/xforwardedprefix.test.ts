// ingress-nginx e2e annotations/xforwardedprefix.go: x-forwarded-prefix reaches the backend, an empty one does not.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/xforwardedprefix.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
    await s.put(
      'ingresses.json',
      [
        ing('xfp', 'xfp.baz.com', { annotations: ann({ 'x-forwarded-prefix': '/test/value', 'rewrite-target': '/foo' }) }),
        ing('noxfp', 'noxfp.baz.com', { annotations: ann({ 'x-forwarded-prefix': '', 'rewrite-target': '/foo' }) }),
      ],
      async () => (await s.get('noxfp.baz.com', '/')).status === 200 && (await s.get('xfp.baz.com', '/')).status === 200,
    );
  });
  after(() => s.stop());

  test('should set the X-Forwarded-Prefix to the annotation value', async () => {
    const r = await s.get('xfp.baz.com', '/');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers['x-forwarded-prefix'], '/test/value');
    assert.equal(echoed(r).url, '/foo');
  });

  test('should not add X-Forwarded-Prefix if the annotation value is empty', async () => {
    const r = await s.get('noxfp.baz.com', '/');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers['x-forwarded-prefix'], undefined);
  });
});
