// ingress-nginx e2e settings/disable_service_external_name.go: with --disable-svc-external-name a Service of type
// ExternalName gets no endpoints (its paths answer 503, a Warning names the Service), while a Service with
// EndpointSlices is served. Without the flag the same ExternalName (127.0.0.1 at the echo port) is served
// (servicebackend/service_externalname.test.ts).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Service } from '../../../src/model/input.js';
import { until } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('settings/disable_service_external_name.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({ args: ['--disable-svc-external-name=true'] });
  });
  after(() => s.stop());

  test('should ignore services of external-name type', async () => {
    const external: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'external', namespace: 'default' }, spec: { type: 'ExternalName', externalName: '127.0.0.1' } };
    const objects = [external, ing('external', 'echo-external-svc.com', { paths: [{ path: '/', type: 'Prefix', service: 'external', port: s.echo.port }] }), ing('nonexternal', 'echo-svc.com')];
    // One file, one snapshot: once the plain Service answers, the ExternalName one is configured too.
    await s.put('objects.json', objects, async () => {
      const r = await s.get('echo-svc.com', '/');
      return r.status === 200 && r.headers['x-backend'] === 'echo';
    });
    const r = await s.get('echo-external-svc.com', '/');
    assert.equal(r.status, 503);
    assert.notEqual(r.headers['x-backend'], 'echo');
    await until(
      'a Warning naming the Service',
      () => Promise.resolve(s.portico.output.some((l) => l.includes('Service default/external spec.type') && l.includes('--disable-svc-external-name'))),
      10_000,
    );
  });
});
