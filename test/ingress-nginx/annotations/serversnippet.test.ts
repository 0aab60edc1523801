// ingress-nginx e2e annotations/serversnippet.go: server-snippet directives apply to the host, and only while the
// administrator allows snippet annotations.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const SNIPPET = 'more_set_headers "Foo: Bar";\nmore_set_headers "Xpto: Lalala";';
const ALLOW = { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' };

void describe('annotations/serversnippet.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({ config: ALLOW });
    const ings = ['serversnippet.foo.com', 'noserversnippet.foo.com'].map((h, i) => ing(`ss${i}`, h, { annotations: ann({ 'server-snippet': SNIPPET }) }));
    // a 503 carries the header too: wait for the backend's answer
    const served = async (h: string) => {
      const r = await s.get(h, '/');
      return r.status === 200 && r.headers['foo'] === 'Bar';
    };
    await s.put('ingresses.json', ings, async () => (await served('noserversnippet.foo.com')) && served('serversnippet.foo.com'));
  });
  after(() => s.stop());

  test('add valid directives to server via server snippet', async () => {
    const r = await s.get('serversnippet.foo.com', '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['foo'], 'Bar');
    assert.equal(r.headers['xpto'], 'Lalala');
  });

  test('drops server snippet if disabled by the administrator', async () => {
    await s.config({ ...ALLOW, 'allow-snippet-annotations': 'false' }, async () => (await s.get('noserversnippet.foo.com', '/')).headers['foo'] === undefined);
    const r = await s.get('noserversnippet.foo.com', '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['foo'], undefined);
    assert.equal(r.headers['xpto'], undefined);
  });
});
