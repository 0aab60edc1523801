// An ExternalName Service against the API server double (docs/adr/0019): a name that does not resolve gives its paths
// 503 and a Warning Event on the Service (reason ExternalNameUnresolved); changed to a name that resolves, it is
// served at the Service port's targetPort, without anything else changing.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { put, route, serves, startCluster, type Cluster } from './cluster.js';
import { until, type Running } from '../support/portico.js';

interface EventView {
  regarding: { kind?: string; name: string };
  type: string;
  reason: string;
  note: string;
}

describe('ExternalName Services (API server double, real nginx)', () => {
  let cluster: Cluster;
  let portico: Running;
  const external = (target: string, port: number): unknown => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'ext', namespace: 'default' },
    spec: { type: 'ExternalName', externalName: target, ports: [{ name: 'http', port: 80, targetPort: port }] },
  });

  before(async () => {
    cluster = await startCluster(['target']);
    portico = await cluster.portico();
  });
  after(async () => {
    await cluster?.stop();
  });

  test('an unresolvable name answers 503 with a Warning Event on the Service; a resolvable one is served', async () => {
    const port = cluster.backends.get('target')?.port ?? 0;
    put(cluster.api, external('invalid.hostname', port));
    put(cluster.api, route('ext', 'ext.test', 'ext'));
    await serves(portico, 'ext.test', '503', 10_000);
    const events = (): EventView[] => cluster.api.list('events.k8s.io/v1/Event', 'default') as unknown as EventView[];
    await until(
      'a Warning Event on Service ext',
      () => events().some((e) => e.type === 'Warning' && e.regarding.kind === 'Service' && e.regarding.name === 'ext' && e.reason === 'ExternalNameUnresolved'),
      10_000,
    );
    const note = events().find((e) => e.reason === 'ExternalNameUnresolved')?.note ?? '';
    assert.match(note, /invalid\.hostname/);
    put(cluster.api, external('localhost', port));
    await serves(portico, 'ext.test', 'target', 10_000);
  });
});
