// Namespace scoping: --watch-namespace reads one namespace; --watch-namespace-selector follows namespace labels.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { who } from '../support/portico.js';
import { namespace, put, route, serves, serviceObjects, startCluster } from './cluster.js';

/** Namespaces a and b, each with a Service `app` (backend `one` in a, `two` in b) and an Ingress a.test / b.test. */
async function twoTeams(labels: { a: Record<string, string>; b: Record<string, string> }) {
  const c = await startCluster(['one', 'two']);
  put(c.api, namespace('a', labels.a));
  put(c.api, namespace('b', labels.b));
  for (const o of serviceObjects('app', c.backends.get('one')!, 'a')) put(c.api, o);
  for (const o of serviceObjects('app', c.backends.get('two')!, 'b')) put(c.api, o);
  put(c.api, route('web', 'a.test', 'app', 'a'));
  put(c.api, route('web', 'b.test', 'app', 'b'));
  return c;
}

void test('--watch-namespace reads one namespace, and the cluster-scoped IngressClass', async (t) => {
  const c = await twoTeams({ a: {}, b: {} });
  t.after(() => c.stop());
  const p = await c.portico(['--watch-namespace', 'a']);
  await serves(p, 'a.test', 'one');
  assert.equal(await serves(p, 'b.test', '404').then(() => '404'), '404');
  const paths = c.api
    .requests()
    .filter((r) => r.verb === 'watch')
    .map((r) => r.path);
  assert.ok(paths.includes('/apis/networking.k8s.io/v1/namespaces/a/ingresses'), paths.join(' '));
  assert.ok(paths.includes('/apis/networking.k8s.io/v1/ingressclasses'));
  assert.ok(!paths.some((x) => x.includes('/namespaces/b/')));
});

void test('--watch-namespace-selector keeps objects of matching namespaces and follows label changes', async (t) => {
  const c = await twoTeams({ a: { team: 'x' }, b: { team: 'y' } });
  t.after(() => c.stop());
  const p = await c.portico(['--watch-namespace-selector', 'team=x']);
  await serves(p, 'a.test', 'one');
  assert.equal(await serves(p, 'b.test', '404').then(() => '404'), '404');
  put(c.api, namespace('b', { team: 'x' }));
  await serves(p, 'b.test', 'two');
  put(c.api, namespace('a', { team: 'y' }));
  await serves(p, 'a.test', '404');
  put(c.api, route('web', 'a2.test', 'app', 'a')); // changed while its namespace is out of scope: not served
  await new Promise((r) => setTimeout(r, 300));
  assert.equal(await who(p.http, 'a2.test', '/'), '404');
  put(c.api, namespace('a', { team: 'x' })); // back in scope: the object as it is now
  await serves(p, 'a2.test', 'one');
  assert.equal(await who(p.http, 'a.test', '/'), '404');
  const nsWatch = c.api.requests().find((r) => r.verb === 'watch' && r.kind === 'Namespace');
  assert.match(decodeURIComponent(nsWatch?.query ?? ''), /labelSelector=team=x/);
});
