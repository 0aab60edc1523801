// ingress-nginx e2e ingress/pathtype_mixed.go: Exact and Prefix paths of the same value, at / and at /foo.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing } from '../harness.js';
import { startPathSuite, type PathSuite } from './paths.js';

void describe('ingress/pathtype_mixed.go', () => {
  let p: PathSuite;
  const host = 'mixed.path';
  before(async () => {
    p = await startPathSuite(['exact-root', 'prefix-root', 'exact-foo', 'prefix-foo']);
    await p.s.put(
      'ingresses.json',
      ['exact-root', 'prefix-root', 'exact-foo', 'prefix-foo'].map((name) =>
        ing(name, host, { path: name.endsWith('root') ? '/' : '/foo', type: name.startsWith('exact') ? 'Exact' : 'Prefix', service: name }),
      ),
      async () => (await p.who(host, '/foobar')) === 'prefix-root' && (await p.who(host, '/foo')) === 'exact-foo',
    );
  });
  after(() => p.stop());

  test('should choose the correct location', async () => {
    assert.equal(await p.who(host, '/'), 'exact-root');
    assert.equal(await p.who(host, '/bar'), 'prefix-root');
    assert.equal(await p.who(host, '/foo'), 'exact-foo');
    assert.equal(await p.who(host, '/foo/bar'), 'prefix-foo');
    assert.equal(await p.who(host, '/foobar'), 'prefix-root');
  });
});
