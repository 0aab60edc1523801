// ingress-nginx e2e settings/server_snippet.go: the ConfigMap's server-snippet reaches every host; an Ingress's own
// server-snippet is added while allow-snippet-annotations is true and dropped while it is false.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const GLOBAL = '\n  more_set_headers "Globalfoo: Foooo";';
const OWN = '\n    more_set_headers "Foo: Bar";\n    more_set_headers "Xpto: Lalala";';

void describe('settings/server_snippet.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  /** Puts both Ingresses of a case, then waits until both hosts answer from the backend with the expected headers. */
  const both = async (n: number, cfg: Record<string, string>, annotated: boolean) => {
    const host = `serverglobalsnippet${n}.foo.com`;
    const hostAnnots = `serverannotssnippet${n}.foo.com`;
    await s.config(cfg);
    await s.put('ingresses.json', [ing(`g${n}`, host), ing(`a${n}`, hostAnnots, { annotations: ann({ 'server-snippet': OWN }) })], async () => {
      const [a, b] = [await s.get(host, '/'), await s.get(hostAnnots, '/')];
      return a.status === 200 && b.status === 200 && a.headers['globalfoo'] === 'Foooo' && b.headers['globalfoo'] === 'Foooo' && (b.headers['foo'] === 'Bar') === annotated;
    });
    return { host, hostAnnots };
  };

  test('should add value of server-snippet setting to all ingress config', async () => {
    const { host, hostAnnots } = await both(1, { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical', 'server-snippet': GLOBAL }, true);
    const a = await s.get(host, '/');
    assert.equal(a.status, 200);
    assert.equal(a.headers['globalfoo'], 'Foooo');
    assert.equal(a.headers['foo'], undefined);
    assert.equal(a.headers['xpto'], undefined);
    const b = await s.get(hostAnnots, '/');
    assert.equal(b.status, 200);
    assert.equal(b.headers['foo'], 'Bar');
    assert.equal(b.headers['xpto'], 'Lalala');
    assert.equal(b.headers['globalfoo'], 'Foooo');
  });

  test('should add global server-snippet and drop annotations per admin config', async () => {
    const { host, hostAnnots } = await both(2, { 'allow-snippet-annotations': 'false', 'annotations-risk-level': 'Critical', 'server-snippet': GLOBAL }, false);
    for (const h of [host, hostAnnots]) {
      const r = await s.get(h, '/');
      assert.equal(r.status, 200);
      assert.equal(r.headers['globalfoo'], 'Foooo');
      assert.equal(r.headers['foo'], undefined);
      assert.equal(r.headers['xpto'], undefined);
    }
  });
});
