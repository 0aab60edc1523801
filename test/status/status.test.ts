// The status writer and the Event recorder against the API server double, in-process: leader only, once per real
// change, never another class's Ingress, removal when an Ingress stops being ours, the publish Service followed,
// cleared on the last replica's shutdown; Events deduplicated and rate-limited.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServerDouble } from '../support/apiserver/index.js';
import { createLogger } from '../../src/log.js';
import { StatusUpdater } from '../../src/kube/status.js';
import { EventRecorder } from '../../src/kube/events.js';
import type { Snapshot } from '../../src/model/input.js';
import type { ObjectRef } from '../../src/model/types.js';
import { ingress, ingressClass, service } from '../support/objects.js';

type Obj = { metadata: { name: string; namespace?: string }; status?: { loadBalancer?: { ingress?: unknown[] } } };

describe('Ingress status and Events', () => {
  const api = new ApiServerDouble({ bookmarkIntervalMs: 0 });
  const kc = new KubeConfig();
  const log = createLogger('warn');
  let leading = false;
  const snapshot = (): Snapshot => ({
    ingresses: api.list('Ingress') as never[],
    ingressClasses: api.list('IngressClass') as never[],
    services: api.list('Service') as never[],
    endpointSlices: [],
    secrets: [],
    configMaps: [],
  });
  const ref = (name: string): ObjectRef => ({ kind: 'Ingress', namespace: 'web', name });
  const statusOf = (name: string) => (api.get('Ingress', 'web', name) as unknown as Obj).status?.loadBalancer?.ingress ?? [];
  const base = { kc, log, isLeader: () => leading, publishService: undefined, useInternalIp: false, podName: undefined, podNamespace: undefined };

  const put = (o: object) => api.put(o as never);

  before(async () => {
    await api.start();
    kc.loadFromString(api.kubeconfig());
    put(ingressClass('portico'));
    put(ingressClass('other', 'example.com/other'));
    for (const name of ['one', 'two']) put(ingress(name, { namespace: 'web', className: 'portico', host: `${name}.test`, paths: [{ path: '/', type: 'Prefix', service: 'app' }] }));
    put(ingress('theirs', { namespace: 'web', className: 'other', host: 'theirs.test', paths: [{ path: '/', type: 'Prefix', service: 'app' }] }));
  });
  after(async () => {
    await api.stop();
  });

  test('only the leader writes, once per real change, never another class, and removes what stops being ours', async () => {
    const s = new StatusUpdater({ ...base, publishStatusAddress: ['203.0.113.9', 'lb.example.com'] });
    await s.start();
    s.update(snapshot(), [ref('one'), ref('two')]);
    await s.idle();
    assert.equal(api.writes('Ingress').length, 0, 'a follower writes nothing');
    leading = true;
    const stale = snapshot();
    s.update(stale, [ref('one'), ref('two')]);
    await s.idle();
    assert.equal(api.writes('Ingress').length, 2);
    assert.deepEqual(statusOf('one'), [{ hostname: 'lb.example.com' }, { ip: '203.0.113.9' }]);
    s.update(stale, [ref('one'), ref('two')]); // the store has not seen our writes yet
    s.update(snapshot(), [ref('one'), ref('two')]);
    await s.idle();
    assert.equal(api.writes('Ingress').length, 2, 'no write when nothing changed');
    assert.deepEqual(statusOf('theirs'), []);
    s.update(snapshot(), [ref('one')]);
    await s.idle();
    assert.equal(api.writes('Ingress').length, 3);
    assert.deepEqual(statusOf('two'), [], 'the address is removed from an Ingress that is no longer ours');
    s.update(snapshot(), [ref('one')]);
    await s.idle();
    assert.equal(api.writes('Ingress').length, 3);
    await s.stop(false);
    assert.ok(
      api.writes('Ingress').every((w) => w.subresource === 'status' || w.path.endsWith('/status')),
      'through the status subresource',
    );
  });

  test('the --publish-service address is followed; the last replica clears status on shutdown', async () => {
    api.clearRequests();
    api.put({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'portico-0', namespace: 'ingress', labels: { app: 'portico' } }, spec: { containers: [{ name: 'c', image: 'i' }] } });
    const lb = (ip: string) => ({ ...service('portico', 'ingress'), spec: { type: 'LoadBalancer', ports: [{ port: 80 }] }, status: { loadBalancer: { ingress: [{ ip }] } } });
    api.put(lb('198.51.100.1') as never);
    const s = new StatusUpdater({ ...base, publishStatusAddress: [], publishService: { namespace: 'ingress', name: 'portico' }, podName: 'portico-0', podNamespace: 'ingress' });
    await s.start();
    s.update(snapshot(), [ref('one'), ref('two')]);
    await s.idle();
    assert.deepEqual(statusOf('one'), [{ ip: '198.51.100.1' }]);
    assert.equal(api.writes('Ingress').length, 2);
    api.put(lb('198.51.100.2') as never);
    s.update(snapshot(), [ref('one'), ref('two')]);
    await s.idle();
    assert.deepEqual(statusOf('two'), [{ ip: '198.51.100.2' }]);
    assert.equal(api.writes('Ingress').length, 4, 'one write per Ingress per change');
    s.update(snapshot(), [ref('one'), ref('two')]);
    await s.stop(true);
    assert.deepEqual(statusOf('one'), []);
    assert.deepEqual(statusOf('two'), []);
    assert.deepEqual(statusOf('theirs'), []);
  });

  test('Events: identical ones become one with a series, each object is rate-limited', async () => {
    const ev = new EventRecorder({ kc, log, controller: 'portico.dev/ingress-controller', instance: 'portico-0', burst: 5, refillMs: 60_000 });
    for (let i = 0; i < 3; i++) ev.emit({ regarding: ref('one'), type: 'Normal', reason: 'Sync', action: 'Sync', note: 'Configuration applied' });
    for (let i = 0; i < 8; i++) ev.emit({ regarding: ref('two'), type: 'Warning', reason: 'Invalid', action: 'Validate', note: `problem ${i}` });
    await ev.flush();
    const events = api.list('events.k8s.io/v1/Event', 'web') as unknown as { regarding: { name: string }; reason: string; type: string; reportingController: string; note: string }[];
    assert.equal(events.filter((e) => e.regarding.name === 'one').length, 1);
    assert.equal(events.filter((e) => e.regarding.name === 'two').length, 5, 'burst of 5, then dropped');
    const sync = events.find((e) => e.regarding.name === 'one')!;
    assert.deepEqual([sync.type, sync.reason, sync.reportingController, sync.note], ['Normal', 'Sync', 'portico.dev/ingress-controller', 'Configuration applied']);
  });
});
