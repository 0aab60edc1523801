// ingress-nginx e2e ingress/without_host.go: the nginx variables naming the Ingress, Service and path of a request
// ($namespace, $ingress_name, $service_name, $service_port, $location_path), for an Ingress without a host and for a
// host served by a default backend, read here through log-format-upstream.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { until } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('ingress/without_host.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({ config: { 'log-format-upstream': '$request_uri $namespace/$ingress_name $service_name:$service_port $location_path' } });
  });
  after(() => s.stop());

  /** The access-log line of a request for `path` (unique per call). */
  const line = async (host: string, path: string): Promise<string> => {
    assert.equal((await s.get(host, path)).status, 200);
    const log = () => readFile(join(s.portico.workDir, 'logs/access.log'), 'utf8');
    await until(`${path} logged`, async () => (await log()).includes(`${path} `), 10_000);
    return (await log()).split('\n').find((l) => l.startsWith(`${path} `)) ?? '';
  };

  test('should set ingress details variables for ingresses without a host', async () => {
    await s.put('default-host.json', [ing('default-host', undefined)], async () => (await s.get('anything.test', '/')).status === 200);
    const path = `/nohost-${Date.now()}`;
    assert.equal(await line('anything.test', path), `${path} default/default-host echo:80 /`);
  });

  test('should set ingress details variables for ingresses with host without IngressRuleValue, only Backend', async () => {
    const backend = {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: 'backend', namespace: 'default' },
      spec: { ingressClassName: 'portico', defaultBackend: { service: { name: 'echo', port: { number: 80 } } }, rules: [{ host: 'only-backend' }] },
    };
    // Upstream runs each test in a namespace of its own: the host-less Ingress of the test above is gone by now.
    await s.put('default-host.json', [], async () => (await s.get('anything.test', '/')).status === 404);
    await s.put('only-backend.json', [backend], async () => (await s.get('only-backend', '/')).status === 200);
    const path = `/onlybackend-${Date.now()}`;
    assert.equal(await line('only-backend', path), `${path} default/backend echo:80 /`);
    // Deliberate: ingress-nginx answers 404 for another host (an Ingress's default backend serves its rules' hosts
    // only); Portico follows Kubernetes' spec.defaultBackend, which takes the requests no rule matches (docs/migration.md).
    const other = await s.get('only-backend-doesnotexist', '/');
    assert.equal(other.status, 200);
    assert.equal(other.headers['x-backend'], 'echo');
  });
});
