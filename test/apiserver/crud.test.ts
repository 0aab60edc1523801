// The double's REST conventions, through the real client-node: create/get/list/update/patch/delete and Status errors.
/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment, @typescript-eslint/no-misused-spread --
   client-node's V1* models are data-only classes; object literals and spreads are how callers build request bodies. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoordinationV1Api, CoreV1Api, DiscoveryV1Api, EventsV1Api, KubeConfig, NetworkingV1Api, PatchStrategy, VersionApi, setHeaderOptions, type V1Ingress } from '@kubernetes/client-node';
import { failure, plain, startDouble } from './helpers.js';

function ingress(name: string, host = 'a.example.com'): V1Ingress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: 'web', labels: { app: name } },
    spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'svc', port: { number: 80 } } } }] } }] },
  };
}

void test('create sets server fields; get, list and 404 follow the conventions', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  const net = kc.makeApiClient(NetworkingV1Api);
  const created = await net.createNamespacedIngress({ namespace: 'web', body: ingress('one') });
  assert.equal(created.metadata?.generation, 1);
  assert.match(created.metadata?.uid ?? '', /^[0-9a-f-]{36}$/);
  assert.match(created.metadata?.resourceVersion ?? '', /^\d+$/);
  assert.ok(created.metadata?.creationTimestamp instanceof Date);
  const got = await net.readNamespacedIngress({ name: 'one', namespace: 'web' });
  assert.equal(got.metadata?.resourceVersion, created.metadata?.resourceVersion);
  await net.createNamespacedIngress({ namespace: 'other', body: { ...ingress('two'), metadata: { name: 'two' } } });
  const all = await net.listIngressForAllNamespaces();
  assert.deepEqual(
    all.items.map((i) => `${i.metadata?.namespace}/${i.metadata?.name}`),
    ['other/two', 'web/one'],
  );
  assert.equal(all.metadata?.resourceVersion, api.resourceVersion);
  const inWeb = await net.listNamespacedIngress({ namespace: 'web' });
  assert.equal(inWeb.items.length, 1);
  const missing = await failure(net.readNamespacedIngress({ name: 'nope', namespace: 'web' }));
  assert.deepEqual([missing.code, missing.reason, missing.kind], [404, 'NotFound', 'Status']);
  assert.equal(missing.message, 'ingresses.networking.k8s.io "nope" not found');
  const dup = await failure(net.createNamespacedIngress({ namespace: 'web', body: ingress('one') }));
  assert.deepEqual([dup.code, dup.reason], [409, 'AlreadyExists']);
  const version = await kc.makeApiClient(VersionApi).getCode();
  assert.equal(version.major, '1');
  const fromFile = new KubeConfig();
  const dir = await mkdtemp(join(tmpdir(), 'portico-kc-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  fromFile.loadFromFile(await api.writeKubeconfig(dir));
  const viaFile = await fromFile.makeApiClient(NetworkingV1Api).readNamespacedIngress({ name: 'one', namespace: 'web' });
  assert.equal(viaFile.metadata?.uid, created.metadata?.uid);
});

void test('update with a stale resourceVersion is a 409 Conflict; generation follows spec changes only', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  const net = kc.makeApiClient(NetworkingV1Api);
  const v1 = await net.createNamespacedIngress({ namespace: 'web', body: ingress('one') });
  const labelled = await net.replaceNamespacedIngress({ name: 'one', namespace: 'web', body: { ...v1, metadata: { ...v1.metadata, labels: { app: 'x' } } } });
  assert.equal(labelled.metadata?.generation, 1, 'metadata changes do not bump generation');
  const stale = await failure(net.replaceNamespacedIngress({ name: 'one', namespace: 'web', body: v1 }));
  assert.deepEqual([stale.code, stale.reason], [409, 'Conflict']);
  assert.match(stale.message, /the object has been modified/);
  const moved = await net.replaceNamespacedIngress({ name: 'one', namespace: 'web', body: { ...ingress('one', 'b.example.com'), metadata: { ...labelled.metadata } } });
  assert.equal(moved.metadata?.generation, 2);
  assert.ok(Number(moved.metadata?.resourceVersion) > Number(labelled.metadata?.resourceVersion));
  const same = await net.replaceNamespacedIngress({ name: 'one', namespace: 'web', body: moved });
  assert.equal(same.metadata?.resourceVersion, moved.metadata?.resourceVersion, 'a no-op update writes nothing');
  const wrongName = await failure(net.replaceNamespacedIngress({ name: 'other', namespace: 'web', body: moved }));
  assert.equal(wrongName.code, 404);
});

void test('invalid bodies are 422 Invalid or 400 BadRequest', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  const net = kc.makeApiClient(NetworkingV1Api);
  const core = kc.makeApiClient(CoreV1Api);
  const bad = ingress('bad');
  bad.spec!.rules![0]!.http!.paths[0]!.pathType = 'Sometimes';
  const invalid = await failure(net.createNamespacedIngress({ namespace: 'web', body: bad }));
  assert.deepEqual([invalid.code, invalid.reason], [422, 'Invalid']);
  const badName = await failure(core.createNamespacedConfigMap({ namespace: 'web', body: { metadata: { name: 'Not_OK' } } }));
  assert.equal(badName.code, 422);
  const noName = await failure(core.createNamespacedConfigMap({ namespace: 'web', body: { metadata: {} } }));
  assert.equal(noName.code, 422);
  const wrongNs = await failure(core.createNamespacedConfigMap({ namespace: 'web', body: { metadata: { name: 'x', namespace: 'elsewhere' } } }));
  assert.deepEqual([wrongNs.code, wrongNs.reason], [400, 'BadRequest']);
  const raw = await fetch(`${api.url}/api/v1/namespaces/web/configmaps`, { method: 'POST', body: '{not json', headers: { 'Content-Type': 'application/json' } });
  assert.equal(raw.status, 400);
  assert.equal(((await raw.json()) as { kind: string }).kind, 'Status');
});

void test('merge, strategic-merge and JSON patches; a patch carrying an old resourceVersion conflicts', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  const core = kc.makeApiClient(CoreV1Api);
  const cm = await core.createNamespacedConfigMap({ namespace: 'web', body: { metadata: { name: 'cfg' }, data: { a: '1', b: '2' } } });
  const merged = await core.patchNamespacedConfigMap({ name: 'cfg', namespace: 'web', body: { data: { a: null, c: '3' } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
  assert.deepEqual(merged.data, { b: '2', c: '3' });
  const strategic = await core.patchNamespacedConfigMap({ name: 'cfg', namespace: 'web', body: { data: { d: '4' } } }, setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch));
  assert.deepEqual(strategic.data, { b: '2', c: '3', d: '4' });
  const json = await core.patchNamespacedConfigMap({
    name: 'cfg',
    namespace: 'web',
    body: [
      { op: 'test', path: '/data/b', value: '2' },
      { op: 'replace', path: '/data/b', value: 'two' },
      { op: 'remove', path: '/data/c' },
    ],
  });
  assert.deepEqual(json.data, { b: 'two', d: '4' });
  const failedTest = await failure(core.patchNamespacedConfigMap({ name: 'cfg', namespace: 'web', body: [{ op: 'test', path: '/data/b', value: 'nope' }] }));
  assert.equal(failedTest.code, 422);
  const stale = await failure(
    core.patchNamespacedConfigMap(
      { name: 'cfg', namespace: 'web', body: { metadata: { resourceVersion: cm.metadata?.resourceVersion }, data: { e: '5' } } },
      setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
    ),
  );
  assert.deepEqual([stale.code, stale.reason], [409, 'Conflict']);
  const missing = await failure(core.patchNamespacedConfigMap({ name: 'gone', namespace: 'web', body: [] }));
  assert.equal(missing.code, 404);
});

void test('the Ingress status subresource writes only status, and main writes ignore status', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  const net = kc.makeApiClient(NetworkingV1Api);
  const body = { ...ingress('one'), status: { loadBalancer: { ingress: [{ ip: '9.9.9.9' }] } } };
  const created = await net.createNamespacedIngress({ namespace: 'web', body });
  assert.deepEqual(plain(created.status ?? {}), {}, 'status is not set by create');
  const lb = { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } };
  const withStatus = await net.replaceNamespacedIngressStatus({
    name: 'one',
    namespace: 'web',
    body: { ...ingress('one', 'changed.example.com'), metadata: { ...created.metadata, labels: { x: 'y' } }, status: lb },
  });
  assert.deepEqual(plain(withStatus.status), lb);
  assert.equal(withStatus.spec?.rules?.[0]?.host, 'a.example.com', 'a status write does not change spec');
  assert.deepEqual(withStatus.metadata?.labels, { app: 'one' }, 'a status write does not change metadata');
  assert.equal(withStatus.metadata?.generation, 1);
  const patched = await net.patchNamespacedIngressStatus(
    { name: 'one', namespace: 'web', body: { status: { loadBalancer: { ingress: [{ hostname: 'lb.example.com' }] } }, spec: { rules: [] } } },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  assert.deepEqual(plain(patched.status?.loadBalancer?.ingress), [{ hostname: 'lb.example.com' }]);
  assert.equal(patched.spec?.rules?.length, 1);
  const main = await net.replaceNamespacedIngress({ name: 'one', namespace: 'web', body: { ...patched, status: {} } });
  assert.deepEqual(plain(main.status?.loadBalancer?.ingress), [{ hostname: 'lb.example.com' }], 'main writes keep status');
  const statusWrites = api.writes('Ingress').filter((w) => w.subresource === 'status');
  assert.deepEqual(
    statusWrites.map((w) => w.verb),
    ['update', 'patch'],
  );
});

void test('delete returns the object, honours preconditions, and answers 404 afterwards', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  const core = kc.makeApiClient(CoreV1Api);
  const svc = await core.createNamespacedService({ namespace: 'web', body: { metadata: { name: 'svc' }, spec: { ports: [{ port: 80 }] } } });
  const pre = await failure(core.deleteNamespacedService({ name: 'svc', namespace: 'web', body: { preconditions: { resourceVersion: '1' } } }));
  assert.deepEqual([pre.code, pre.reason], [409, 'Conflict']);
  await core.deleteNamespacedService({ name: 'svc', namespace: 'web', body: { preconditions: { uid: svc.metadata?.uid ?? '' } } });
  assert.equal((await failure(core.readNamespacedService({ name: 'svc', namespace: 'web' }))).code, 404);
  assert.equal((await failure(core.deleteNamespacedService({ name: 'svc', namespace: 'web' }))).code, 404);
});

void test('selectors and pagination on lists', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  const core = kc.makeApiClient(CoreV1Api);
  for (const [name, tier] of [
    ['a', 'front'],
    ['b', 'back'],
    ['c', 'front'],
    ['d', 'none'],
  ] as const) {
    api.put({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace: 'web', labels: { tier } }, type: tier === 'none' ? 'kubernetes.io/tls' : 'Opaque' });
  }
  const names = (l: { items: { metadata?: { name?: string } }[] }) => l.items.map((i) => i.metadata?.name);
  assert.deepEqual(names(await core.listNamespacedSecret({ namespace: 'web', labelSelector: 'tier=front' })), ['a', 'c']);
  assert.deepEqual(names(await core.listNamespacedSecret({ namespace: 'web', labelSelector: 'tier in (back,none)' })), ['b', 'd']);
  assert.deepEqual(names(await core.listNamespacedSecret({ namespace: 'web', labelSelector: 'tier!=front,tier' })), ['b', 'd']);
  assert.deepEqual(names(await core.listNamespacedSecret({ namespace: 'web', fieldSelector: 'metadata.name=b' })), ['b']);
  assert.deepEqual(names(await core.listSecretForAllNamespaces({ fieldSelector: 'metadata.namespace=web,type=kubernetes.io/tls' })), ['d']);
  const badField = await failure(core.listNamespacedSecret({ namespace: 'web', fieldSelector: 'spec.nope=1' }));
  assert.equal(badField.code, 400);
  const page1 = await core.listNamespacedSecret({ namespace: 'web', limit: 3 });
  assert.deepEqual(names(page1), ['a', 'b', 'c']);
  assert.equal(page1.metadata?.remainingItemCount, 1);
  api.remove('Secret', 'web', 'd'); // the continued list is a consistent snapshot at page1's resourceVersion
  const page2 = await core.listNamespacedSecret({ namespace: 'web', limit: 3, _continue: page1.metadata?._continue ?? '' });
  assert.deepEqual(names(page2), ['d']);
  assert.equal(page2.metadata?._continue, undefined);
  api.expireResourceVersions();
  const gone = await failure(core.listNamespacedSecret({ namespace: 'web', limit: 3, _continue: page1.metadata?._continue ?? '' }));
  assert.deepEqual([gone.code, gone.reason], [410, 'Expired']);
  const tooNew = await failure(core.listNamespacedSecret({ namespace: 'web', resourceVersion: '999999' }));
  assert.equal(tooNew.code, 504);
});

void test('Leases, both Event APIs, EndpointSlices, Namespaces, and read-only Pods and Nodes', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  const coord = kc.makeApiClient(CoordinationV1Api);
  const lease = await coord.createNamespacedLease({ namespace: 'kube-system', body: { metadata: { name: 'portico-leader' }, spec: { holderIdentity: 'a', leaseDurationSeconds: 15 } } });
  const renewed = await coord.replaceNamespacedLease({ name: 'portico-leader', namespace: 'kube-system', body: { ...lease, spec: { ...lease.spec, holderIdentity: 'b', renewTime: new Date() } } });
  assert.equal(renewed.spec?.holderIdentity, 'b');
  const lost = await failure(coord.replaceNamespacedLease({ name: 'portico-leader', namespace: 'kube-system', body: lease }));
  assert.equal(lost.code, 409, 'a second candidate holding the old resourceVersion loses');

  const core = kc.makeApiClient(CoreV1Api);
  const ev = await core.createNamespacedEvent({
    namespace: 'web',
    body: { metadata: { generateName: 'one.' }, involvedObject: { kind: 'Ingress', name: 'one', namespace: 'web' }, reason: 'Sync', message: 'ok', type: 'Normal' },
  });
  assert.match(ev.metadata?.name ?? '', /^one\.[0-9a-f]{5}$/);
  const events = await kc
    .makeApiClient(EventsV1Api)
    .createNamespacedEvent({
      namespace: 'web',
      body: {
        metadata: { name: 'one.2' },
        eventTime: new Date(),
        reportingController: 'portico',
        reportingInstance: 'p-1',
        action: 'Sync',
        reason: 'Sync',
        regarding: { kind: 'Ingress', name: 'one', namespace: 'web' },
        type: 'Normal',
      },
    });
  assert.equal(events.reportingController, 'portico');
  assert.equal(api.writes('events.k8s.io/v1/Event').length, 1);
  assert.equal(api.writes('Event').length, 1);

  const slice = await kc
    .makeApiClient(DiscoveryV1Api)
    .createNamespacedEndpointSlice({
      namespace: 'web',
      body: { metadata: { name: 'svc-abc', labels: { 'kubernetes.io/service-name': 'svc' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.1'] }], ports: [{ port: 8080 }] },
    });
  assert.equal(slice.endpoints[0]?.addresses[0], '10.1.0.1');
  const ns = await core.createNamespace({ body: { metadata: { name: 'team-a', labels: { portico: 'yes' } } } });
  assert.equal(ns.status?.phase, 'Active');
  assert.equal((await core.listNamespace({ labelSelector: 'portico=yes' })).items.length, 1);

  api.put({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' }, status: { addresses: [{ type: 'InternalIP', address: '192.168.0.10' }] } });
  api.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'portico-0', namespace: 'ingress' }, spec: { nodeName: 'n1', containers: [] }, status: { podIP: '10.1.0.9' } });
  const pod = await core.readNamespacedPod({ name: 'portico-0', namespace: 'ingress' });
  assert.equal(pod.status?.podIP, '10.1.0.9');
  const node = await core.readNode({ name: pod.spec?.nodeName ?? '' });
  assert.equal(node.status?.addresses?.[0]?.address, '192.168.0.10');
  const denied = await failure(core.deleteNode({ name: 'n1' }));
  assert.equal(denied.code, 405);
});

void test('injected faults fail only the matching requests; requireNamespaces enforces namespace lifecycle', async (t) => {
  const { api, kc } = await startDouble({ requireNamespaces: true });
  t.after(() => api.stop());
  const core = kc.makeApiClient(CoreV1Api);
  const net = kc.makeApiClient(NetworkingV1Api);
  const noNs = await failure(net.createNamespacedIngress({ namespace: 'web', body: ingress('one') }));
  assert.deepEqual([noNs.code, noNs.message], [404, 'namespaces "web" not found']);
  await core.createNamespace({ body: { metadata: { name: 'web' } } });
  const created = await net.createNamespacedIngress({ namespace: 'web', body: ingress('one') });
  api.failRequests({ kind: 'Ingress', subresource: 'status', verb: 'update' }, { code: 500, times: 2 });
  const body = { ...created, status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } };
  for (let i = 0; i < 2; i++) {
    const err = await failure(net.replaceNamespacedIngressStatus({ name: 'one', namespace: 'web', body }));
    assert.deepEqual([err.code, err.reason], [500, 'InternalError']);
  }
  await net.readNamespacedIngress({ name: 'one', namespace: 'web' }); // other requests are unaffected
  const ok = await net.replaceNamespacedIngressStatus({ name: 'one', namespace: 'web', body });
  assert.equal(ok.status?.loadBalancer?.ingress?.[0]?.ip, '10.0.0.1');
  assert.deepEqual(
    api
      .writes('Ingress')
      .filter((w) => w.subresource === 'status')
      .map((w) => w.code),
    [500, 500, 200],
  );
});
