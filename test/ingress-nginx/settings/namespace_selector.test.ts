// ingress-nginx e2e settings/namespace_selector.go: with --watch-namespace-selector foo=bar, only the Ingresses of
// namespaces labelled foo=bar are served; labelling the other namespace brings its Ingress in. In local mode the
// namespaces' labels come from Namespace objects in the manifest folder.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backendObjects } from '../../support/manifests.js';
import { ingress } from '../../support/objects.js';
import { startSuite, type Suite } from '../harness.js';

const namespace = (name: string, labels?: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, ...(labels ? { labels } : {}) } });

void describe('settings/namespace_selector.go', () => {
  let s: Suite;
  /** One namespace with the echo backend and an Ingress for `host`. */
  const tenant = (ns: string, host: string) => [
    ...backendObjects('echo', s.echo.port, ns),
    ingress(host, { namespace: ns, host, className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'echo' }] }),
  ];
  const served = async (host: string) => {
    const r = await s.get(host, '/');
    return r.status === 200 && r.headers['x-backend'] === 'echo';
  };

  before(async () => {
    s = await startSuite({ args: ['--watch-namespace-selector', 'foo=bar'] });
    await s.dir.write('namespaces.json', [namespace('namespace-selector-bar'), namespace('namespace-selector-foo', { foo: 'bar' })]);
    await s.put('tenants.json', [...tenant('namespace-selector-bar', 'bar'), ...tenant('namespace-selector-foo', 'foo')], () => served('foo'));
  });
  after(() => s.stop());

  test('should ignore Ingress of namespace without label foo=bar and accept those of namespace with label foo=bar', async () => {
    assert.equal((await s.get('foo', '/')).status, 200);
    assert.equal((await s.get('bar', '/')).status, 404);
    // Labelled foo=bar, the other namespace's Ingress is served.
    await s.put('namespaces.json', [namespace('namespace-selector-bar', { foo: 'bar' }), namespace('namespace-selector-foo', { foo: 'bar' })], () => served('bar'));
    assert.equal((await s.get('bar', '/')).status, 200);
    assert.equal((await s.get('foo', '/')).status, 200);
  });
});
