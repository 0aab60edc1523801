// What a Sync Event announces: a new spec or new annotations of an Ingress, never a status-only change (the leader's
// own status writes would otherwise announce the same configuration again on every replica).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApiServerDouble } from '../support/apiserver/index.js';
import { configuredVersion } from '../../src/controller/duties.js';
import type { Ingress } from '../../src/model/input.js';
import { ingress } from '../support/objects.js';

void test('configuredVersion follows spec and annotations, not status', () => {
  const api = new ApiServerDouble();
  const base = ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] });
  const put = (o: object): Ingress => api.put(o as never) as unknown as Ingress;
  const first = put(base);
  const withStatus = put({ ...base, status: { loadBalancer: { ingress: [{ ip: '203.0.113.7' }] } } });
  assert.notEqual(withStatus.metadata?.resourceVersion, first.metadata?.resourceVersion);
  assert.equal(configuredVersion(withStatus), configuredVersion(first), 'a status write is not a new configuration');
  const annotated = put({ ...base, metadata: { ...base.metadata, annotations: { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' } } });
  assert.notEqual(configuredVersion(annotated), configuredVersion(first), 'annotations are configuration');
  const moved = put(ingress('app', { className: 'portico', host: 'app.test', paths: [{ path: '/v2', type: 'Prefix', service: 'one' }] }));
  assert.notEqual(configuredVersion(moved), configuredVersion(first), 'a spec change bumps the generation');
  assert.equal(configuredVersion({ metadata: { resourceVersion: '7' } }), '7', 'without a generation: the resourceVersion');
});
