// Lease election against the API server double, three electors in one process sharing one Lease: one leader at a
// time; a release hands over within a second; a leader that stops renewing (as if killed) is replaced within the TTL.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { KubeConfig } from '@kubernetes/client-node';
import { ApiServerDouble } from '../support/apiserver/index.js';
import { createLogger } from '../../src/log.js';
import { LeaderElector } from '../../src/kube/leader.js';
import { until } from '../support/portico.js';

const TTL = 2000;

describe('Lease election', () => {
  const api = new ApiServerDouble({ bookmarkIntervalMs: 0 });
  const kc = new KubeConfig();
  const log = createLogger('warn');
  let electors: LeaderElector[] = [];
  let overlap = 0;
  let sampler: NodeJS.Timeout | undefined;

  const leaders = () => electors.filter((e) => e.isLeader);
  const make = (identity: string) => new LeaderElector({ kc, namespace: 'ingress', name: 'portico-leader', identity, ttlMs: TTL, log });

  before(async () => {
    await api.start();
    kc.loadFromString(api.kubeconfig());
    electors = ['a', 'b', 'c'].map(make);
    for (const e of electors) e.start();
    sampler = setInterval(() => {
      if (leaders().length > 1) overlap += 1;
    }, 10);
  });

  after(async () => {
    clearInterval(sampler);
    await Promise.all(electors.map((e) => e.stop(false)));
    await api.stop();
  });

  test('exactly one of three becomes leader, and stays so while it renews', async () => {
    await until('a leader', () => leaders().length === 1, 5000);
    const first = leaders()[0];
    await new Promise((r) => setTimeout(r, TTL * 1.5));
    assert.deepEqual(leaders(), [first]);
    assert.equal(overlap, 0, 'never two leaders at once');
    const lease = api.get('Lease', 'ingress', 'portico-leader') as unknown as { spec: { holderIdentity: string; leaseDurationSeconds: number; renewTime: string } };
    assert.equal(lease.spec.leaseDurationSeconds, 2);
    assert.match(lease.spec.renewTime, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/, 'MicroTime with six fractional digits');
  });

  test('a released Lease is taken over within a second', async () => {
    const old = leaders()[0]!;
    const started = Date.now();
    await old.stop(true);
    electors = electors.filter((e) => e !== old);
    const ms = await until('a successor', () => leaders().length === 1, 3000, 5);
    console.log(`handover after release: ${Date.now() - started} ms (waited ${ms} ms after the release returned)`);
    assert.ok(Date.now() - started < 1000, `took ${Date.now() - started} ms`);
    assert.equal(overlap, 0);
  });

  test('a leader that stops renewing (killed) is replaced within the TTL', async () => {
    const old = leaders()[0]!;
    const started = Date.now();
    await old.stop(false); // no release: the Lease still names it, as after SIGKILL
    electors = electors.filter((e) => e !== old);
    await until('a successor', () => leaders().length === 1, TTL * 2, 5);
    const took = Date.now() - started;
    console.log(`handover after the leader stopped renewing: ${took} ms (TTL ${TTL} ms)`);
    assert.ok(took <= TTL + 100, `took ${took} ms`);
    assert.equal(overlap, 0);
    const lease = api.get('Lease', 'ingress', 'portico-leader') as unknown as { spec: { holderIdentity: string; leaseTransitions: number } };
    assert.equal(lease.spec.holderIdentity, leaders()[0]!.identity);
    assert.ok(lease.spec.leaseTransitions >= 2, 'two transitions counted');
  });
});
