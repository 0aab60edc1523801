// ingress-nginx e2e annotations/snippet.go: configuration-snippet directives apply to the Ingress's locations, and
// only while the administrator allows snippet annotations.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const ALLOW = { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' };

void describe('annotations/snippet.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({ config: ALLOW });
    const ings = ['configurationsnippet.foo.com', 'noconfigurationsnippet.foo.com'].map((h, i) =>
      ing(`cs${i}`, h, { annotations: ann({ 'configuration-snippet': 'more_set_headers "Foo1: Bar1";' }) }),
    );
    await s.put(
      'ingresses.json',
      ings,
      async () => (await s.get('noconfigurationsnippet.foo.com', '/')).headers['foo1'] === 'Bar1' && (await s.get('configurationsnippet.foo.com', '/')).status === 200,
    );
  });
  after(() => s.stop());

  test('set snippet more_set_headers in all locations', async () => {
    const r = await s.get('configurationsnippet.foo.com', '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['foo1'], 'Bar1');
  });

  test('drops snippet more_set_header in all locations if disabled by admin', async () => {
    await s.config({ ...ALLOW, 'allow-snippet-annotations': 'false' }, async () => (await s.get('noconfigurationsnippet.foo.com', '/')).headers['foo1'] === undefined);
    const r = await s.get('noconfigurationsnippet.foo.com', '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['foo1'], undefined);
  });
});
