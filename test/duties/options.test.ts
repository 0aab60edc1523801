// One real Portico against the API server double: --update-status=false writes no status and takes no Lease but
// still records Events; without POD_NAME there is no RELOAD Event (no pod to name) yet status is written; both exit 0;
// --disable-sync-events drops only the Normal Sync Events.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../support/portico.js';
import { put, route, startCluster, type Cluster } from '../kube/cluster.js';
import { NS, addressOf, events, reloadingRoute, replica, statusWrites } from './replicas.js';

const settle = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

describe('duties options', () => {
  let c: Cluster;

  before(async () => {
    c = await startCluster(['one'], ['default', NS]);
    put(c.api, route('app', 'app.test', 'one'));
  });

  after(async () => {
    await c.stop();
  });

  test('--update-status=false: no status write, no Lease, Events still recorded, exit 0', async () => {
    const p = await replica(c, 'solo', ['--update-status=false', '--publish-status-address', '203.0.113.7']);
    const synced = (): boolean => events(c.api, 'default').some((e) => e.reason === 'Sync' && e.regarding.name === 'app');
    await until('the Sync Event', synced, 10_000);
    put(c.api, reloadingRoute('more', 'more.test', 'one')); // a new server block: nginx reloads (its first start is not a reload)
    await until('the RELOAD Event', () => events(c.api, NS).some((e) => e.reason === 'RELOAD' && e.regarding.name === 'solo'), 5000);
    await settle(1500);
    assert.equal(statusWrites(c.api).length, 0);
    assert.deepEqual(addressOf(c.api, 'app'), []);
    assert.equal(c.api.writes('Lease').length, 0, 'no election without status to write');
    assert.equal(await p.stop(), 0);
    c.api.remove('Pod', NS, 'solo');
  });

  test('without POD_NAME: status written under a host-pid identity, no RELOAD Event, exit 0', async () => {
    c.api.clearRequests();
    const p = await c.portico(['--election-ttl', '3s', '--publish-status-address', '203.0.113.7'], { env: { POD_NAME: '', POD_NAMESPACE: '' } });
    await until('status written', () => JSON.stringify(addressOf(c.api, 'app')) === '[{"ip":"203.0.113.7"}]', 10_000);
    await settle(1000);
    assert.equal(statusWrites(c.api, 'app').length, 1);
    const lease = c.api.get('Lease', 'default', 'portico-leader') as unknown as { spec: { holderIdentity: string } };
    assert.match(lease.spec.holderIdentity, /-\d+$/);
    const reloads = events(c.api, NS)
      .filter((e) => e.reason === 'RELOAD')
      .map((e) => e.regarding.name);
    assert.deepEqual(reloads, ['solo'], 'only the first replica (which had POD_NAME) named its pod');
    assert.equal(await p.stop(), 0);
    assert.deepEqual(addressOf(c.api, 'app'), [{ ip: '203.0.113.7' }], 'kept: without its pod, Portico cannot know it was the last replica');
  });

  test('--disable-sync-events: no Sync Event for a new Ingress, but its Warning and the RELOAD Event are recorded', async () => {
    const p = await replica(c, 'quiet', ['--disable-sync-events', '--update-status=false']);
    put(c.api, reloadingRoute('quiet', 'quiet.test', 'one'));
    put(c.api, route('broken', 'broken.test', 'missing-service'));
    await until('the RELOAD Event of pod quiet', () => events(c.api, NS).some((e) => e.reason === 'RELOAD' && e.regarding.name === 'quiet'), 10_000);
    await until('the Warning for the missing Service', () => events(c.api, 'default').some((e) => e.type === 'Warning' && e.regarding.name === 'broken'), 5000);
    await settle(1000);
    const syncs = events(c.api, 'default').filter((e) => e.reason === 'Sync' && (e.regarding.name === 'quiet' || e.regarding.name === 'broken'));
    assert.deepEqual(syncs, []);
    assert.equal(await p.stop(), 0);
    c.api.remove('Pod', NS, 'quiet');
  });
});
