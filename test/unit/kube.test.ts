// src/kube units: typed list items and raw watch objects convert alike; Secrets trimmed; watch failures, and
// watches gone silent, reach done().
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KubeConfig, V1Ingress, V1ObjectMeta } from '@kubernetes/client-node';
import { SafeWatch } from '../../src/kube/feed.js';
import { apiTime, toPlain } from '../../src/kube/convert.js';

const wire = {
  metadata: { name: 'app', namespace: 'web', resourceVersion: '7', creationTimestamp: '2026-01-02T03:04:05Z', managedFields: [{ manager: 'kubectl', operation: 'Apply' }], labels: { a: 'b' } },
  spec: { ingressClassName: 'portico', rules: [{ host: 'a.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'svc', port: { number: 80 } } } }] } }] },
};

void test('a typed list item and a raw watch object convert to the same plain object, in the API shape', () => {
  // What client-node's typed list calls return: class instances, creationTimestamp a Date.
  const typed = Object.assign(new V1Ingress(), { ...wire, metadata: Object.assign(new V1ObjectMeta(), { ...wire.metadata, creationTimestamp: new Date(wire.metadata.creationTimestamp) }) });
  const fromList = toPlain('Ingress', typed);
  const fromWatch = toPlain('Ingress', { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', ...wire });
  assert.deepEqual(fromList, fromWatch);
  assert.deepEqual(fromList, {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
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
  const controller = await new SafeWatch(kc).watch(
    '/api/v1/services',
    {},
    () => undefined,
    (err) => {
      errors.push(err);
    },
  );
  assert.ok(controller instanceof AbortController);
  assert.equal(String(errors[0]), 'Error: exec plugin failed');
});

void test('a watch whose connection goes silent past its timeoutSeconds is aborted and reported, so the feed lists again', async () => {
  // A "half-open" API server: it answers the watch with 200 and then never writes or closes, as a connection whose
  // peer vanished without a FIN looks from the client side.
  const urls: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    urls.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
  });
  server.on('connection', (s) => {
    sockets.add(s);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser({ name: 'c', server: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, skipTLSVerify: true }, { name: 'u' });
    const started = Date.now();
    const failed = new Promise<unknown>((resolve) => {
      void new SafeWatch(kc, { timeoutSeconds: () => 1, graceMs: 500 }).watch('/api/v1/services', { resourceVersion: '5' }, () => undefined, resolve);
    });
    const err = await Promise.race([
      failed,
      new Promise((r) =>
        setTimeout(() => {
          r('still waiting after 10 s');
        }, 10_000),
      ),
    ]);
    const elapsed = Date.now() - started;
    assert.match(String(err), /watch \/api\/v1\/services: still open 1s \+ 0\.5s .*taken as dead/);
    assert.ok(elapsed >= 1400 && elapsed < 5000, `reported after ${elapsed} ms`);
    assert.match(urls[0] ?? '', /[?&]timeoutSeconds=1(&|$)/, 'the API server was asked to end the watch');
    assert.match(urls[0] ?? '', /[?&]resourceVersion=5(&|$)/);
  } finally {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  }
});
