// ingress-nginx e2e endpointslices/topology.go: EndpointSlice endpoints with topology hints serve. Without a zone of
// its own (as here, local mode), ingress-nginx uses every endpoint, and so does Portico.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Backend } from '../../support/backends.js';
import { service } from '../../support/objects.js';
import { ing, startEcho, startSuite, type Suite } from '../harness.js';

void describe('endpointslices/topology.go', () => {
  let s: Suite;
  const pods: Backend[] = [];
  before(async () => {
    for (const id of ['zone-a-1', 'zone-a-2']) pods.push(await startEcho(id));
    // One slice per pod (each has its own port), every endpoint hinted for zone-a.
    const slices = pods.map((p, i) => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      addressType: 'IPv4',
      metadata: { name: `topology-${i}`, namespace: 'default', labels: { 'kubernetes.io/service-name': 'topology' } },
      ports: [{ name: 'http', port: p.port, protocol: 'TCP' }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true }, zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] } }],
    }));
    s = await startSuite({ objects: [service('topology'), ...slices] });
  });
  after(async () => {
    await s.stop();
    for (const p of pods) await p.close();
  });

  test('should return 200 when service has topology hints', async () => {
    const host = 'topology-svc.foo.com';
    await s.put('topology.json', [ing('topology', host, { service: 'topology' })], async () => (await s.get(host, '/')).status === 200);
    const seen = new Set<string>();
    for (let i = 0; i < 10; i += 1) {
      const r = await s.get(host, '/');
      assert.equal(r.status, 200);
      seen.add(String(r.headers['x-backend']));
    }
    // Round robin over both endpoints: 10 requests reach each.
    assert.deepEqual([...seen].sort(), ['zone-a-1', 'zone-a-2']);
  });
});
