// src/kube units: typed list items and raw watch objects convert alike; Secrets trimmed; watch failures reach done().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig, V1Ingress, V1ObjectMeta } from '@kubernetes/client-node';
import { SafeWatch } from '../../src/kube/feed.js';
import { apiTime, toPlain } from '../../src/kube/convert.js';

const wire = {
  metadata: {
    name: 'app', namespace: 'web', resourceVersion: '7', creationTimestamp: '2026-01-02T03:04:05Z',
    managedFields: [{ manager: 'kubectl', operation: 'Apply' }], labels: { a: 'b' },
  },
  spec: { ingressClassName: 'portico', rules: [{ host: 'a.test', http: { paths: [{ path: '/', pathType: 'Prefix',
    backend: { service: { name: 'svc', port: { number: 80 } } } }] } }] },
};

void test('a typed list item and a raw watch object convert to the same plain object, in the API shape', () => {
  // What client-node's typed list calls return: class instances, creationTimestamp a Date.
  const typed = Object.assign(new V1Ingress(), { ...wire, metadata: Object.assign(new V1ObjectMeta(),
    { ...wire.metadata, creationTimestamp: new Date(wire.metadata.creationTimestamp) }) });
  const fromList = toPlain('Ingress', typed);
  const fromWatch = toPlain('Ingress', { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', ...wire });
  assert.deepEqual(fromList, fromWatch);
  assert.deepEqual(fromList, {
    apiVersion: 'networking.k8s.io/v1', kind: 'Ingress',
    metadata: { name: 'app', namespace: 'web', resourceVersion: '7', creationTimestamp: '2026-01-02T03:04:05Z', labels: { a: 'b' } },
    spec: wire.spec,
  });
  assert.equal(Object.getPrototypeOf(fromList), Object.prototype);
});

void test('API times are whole-second RFC 3339, as the API server writes them', () => {
  assert.equal(apiTime(new Date('2026-01-02T03:04:05Z')), '2026-01-02T03:04:05Z');
  assert.equal(apiTime('2026-01-02T03:04:05Z'), '2026-01-02T03:04:05Z');
  assert.equal(apiTime(new Date('2026-01-02T03:04:05.250Z')), '2026-01-02T03:04:05.250Z', 'sub-second precision is kept');
  assert.equal(apiTime(undefined), undefined);
});

void test('Secrets of types Portico does not read lose their data', () => {
  const token = toPlain('Secret', { metadata: { name: 't', namespace: 'x' }, type: 'kubernetes.io/service-account-token', data: { token: 'c2VjcmV0' } });
  assert.equal((token as { data?: unknown }).data, undefined);
  const tls = toPlain('Secret', { metadata: { name: 'c', namespace: 'x' }, type: 'kubernetes.io/tls', data: { 'tls.crt': 'eA==' } });
  assert.deepEqual((tls as { data?: unknown }).data, { 'tls.crt': 'eA==' });
  const opaque = toPlain('Secret', { metadata: { name: 'o', namespace: 'x' }, data: { auth: 'eA==' } });
  assert.deepEqual((opaque as { data?: unknown }).data, { auth: 'eA==' }, 'a Secret without a type is Opaque');
});

void test('a credential failure while starting a watch reaches done() instead of an unhandled rejection', async () => {
  const kc = new KubeConfig();
  kc.loadFromClusterAndUser({ name: 'c', server: 'https://127.0.0.1:1', skipTLSVerify: false }, { name: 'u' });
  kc.applyToFetchOptions = () => Promise.reject(new Error('exec plugin failed'));
  const errors: unknown[] = [];
  const controller = await new SafeWatch(kc).watch('/api/v1/services', {}, () => undefined, (err) => { errors.push(err); });
  assert.ok(controller instanceof AbortController);
  assert.equal(String(errors[0]), 'Error: exec plugin failed');
});
