// ingress-nginx e2e annotations/rewrite.go: rewrite-target and use-regex, read from the path the backend receives,
// and enable-rewrite-log, read from nginx's error log.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../../support/portico.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/rewrite.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  /** The path the backend received, or the status when no backend answered. */
  const seen = async (host: string, path: string): Promise<string> => {
    const r = await s.get(host, path);
    return r.status === 200 ? echoed(r).url : String(r.status);
  };

  test('should write rewrite logs', async () => {
    const host = 'log.rewrite.test';
    await s.put(
      'log.json',
      [ing('rewrite-log', host, { path: '/something', annotations: ann({ 'rewrite-target': '/', 'enable-rewrite-log': 'true' }) })],
      async () => (await seen(host, '/something')) === '/',
    );
    const lines = () => s.portico.output.filter((l) => l.includes(`host: \\"${host}\\"`));
    await until('rewrite log lines', () => lines().some((l) => l.includes('rewritten data: \\"/\\"')), 10_000);
    assert.ok(
      lines().some((l) => /matches \\"\/something\\"/.test(l)),
      lines().join('\n'),
    );
  });

  test('should use correct longest path match', async () => {
    const host = 'longest.rewrite.test';
    await s.put('longest-1.json', [ing('kube-lego', host, { path: '/.well-known/acme/challenge' })], async () => (await seen(host, '/.well-known/acme/challenge')) === '/.well-known/acme/challenge');
    await s.put('longest-2.json', [ing('rewrite-index', host, { path: '/', annotations: ann({ 'rewrite-target': '/new/backend' }) })], async () => (await seen(host, '/')) === '/new/backend');
    assert.equal(await seen(host, '/.well-known/acme/challenge'), '/.well-known/acme/challenge');
  });

  test('should use ~* location modifier if regex annotation is present', async () => {
    const host = 'modifier.rewrite.test';
    await s.put('modifier-1.json', [ing('modifier-foo', host, { path: '/foo' })], async () => (await seen(host, '/foo')) === '/foo');
    await s.put(
      'modifier-2.json',
      [ing('modifier-regex', host, { path: '/foo.+', annotations: ann({ 'use-regex': 'true', 'rewrite-target': '/new/backend' }) })],
      async () => (await seen(host, '/foo/bar')) === '/new/backend',
    );
    assert.equal(await seen(host, '/foo'), '/foo');
    assert.equal(await seen(host, '/foo/bar'), '/new/backend');
    // ~*: case-insensitive.
    assert.equal(await seen(host, '/FOO/bar'), '/new/backend');
  });

  test('should fail to use longest match for documented warning', async () => {
    const host = 'warning.rewrite.test';
    await s.put('warning-1.json', [ing('warning-foo', host, { path: '/foo/bar/bar' })], async () => (await seen(host, '/foo/bar/bar')) === '/foo/bar/bar');
    await s.put(
      'warning-2.json',
      [ing('warning-regex', host, { path: '/foo/bar/[a-z]{3}', annotations: ann({ 'use-regex': 'true', 'rewrite-target': '/new/backend' }) })],
      async () => (await seen(host, '/foo/bar/baz')) === '/new/backend',
    );
    // Deliberate: Portico makes only the annotated Ingress's paths regex; the other Ingress's Prefix /foo/bar/bar keeps
    // its type and takes its own path (ingress-nginx made it a regex too, and the regex listed first won).
    assert.equal(await seen(host, '/foo/bar/bar'), '/foo/bar/bar');
    assert.equal(await seen(host, '/foo/bar/baz'), '/new/backend');
  });

  test('should allow for custom rewrite parameters', async () => {
    const host = 'params.rewrite.test';
    await s.put(
      'params.json',
      [ing('params-regex', host, { path: '/foo/bar/(.+)', annotations: ann({ 'use-regex': 'true', 'rewrite-target': '/new/backend/$1' }) })],
      async () => (await seen(host, '/foo/bar/bar')) !== '404',
    );
    assert.equal(await seen(host, '/foo/bar/bar'), '/new/backend/bar');
  });
});
