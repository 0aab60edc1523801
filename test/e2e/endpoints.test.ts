// End to end: endpoint changes reach nginx through Lua, with no reload, and traffic follows them at once.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { metric, startPortico, until, who, workerPids, type Running } from '../support/portico.js';

describe('endpoints without reloads', () => {
  let backends: Backend[] = [];
  let dir = '';
  let portico: Running;
  const write = (ready: Backend[], extra: unknown[] = []) => writeManifests(dir, 'svc.yaml', [...serviceFor('pool', ready), ...extra]);

  before(async () => {
    backends = await Promise.all(['e1', 'e2', 'e3'].map((id) => startBackend(id)));
    dir = await manifestDir();
    await writeManifests(dir, 'ing.yaml', [ingressClass('portico'), ingress('pool', { className: 'portico', host: 'pool.test', paths: [{ path: '/', type: 'Prefix', service: 'pool' }] })]);
    await write(backends);
    portico = await startPortico(['--manifests', dir]);
  });

  after(async () => {
    await portico?.stop();
    await Promise.all(backends.map((b) => b.close()));
    await rm(dir, { recursive: true, force: true });
  });

  test('round robin spreads requests evenly over 3 endpoints', async () => {
    const counts = new Map<string, number>();
    for (let i = 0; i < 300; i++) {
      const id = await who(portico.http, 'pool.test', `/${i}`);
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    assert.deepEqual([...counts.keys()].sort(), ['e1', 'e2', 'e3']);
    for (const n of counts.values()) assert.ok(n >= 90 && n <= 110, `uneven: ${JSON.stringify([...counts])}`);
  });

  test('endpoints removed and added apply without a reload, and a removed endpoint gets no request after', async () => {
    const pids = await workerPids(portico);
    const reloads = await metric(portico, 'portico_reloads_total');
    const dynamic = await metric(portico, 'portico_dynamic_updates_total');
    const [e1, e2, e3] = backends as [Backend, Backend, Backend];
    await write([e1, e2]);
    await until(
      'e3 removed',
      async () => {
        const seen = new Set<string>();
        for (let i = 0; i < 6; i++) seen.add(await who(portico.http, 'pool.test', '/'));
        return !seen.has('e3');
      },
      2000,
    );
    const e3Count = e3.seen.length;
    for (let i = 0; i < 60; i++) assert.notEqual(await who(portico.http, 'pool.test', '/'), 'e3');
    assert.equal(e3.seen.length, e3Count, 'no request reached the removed endpoint');
    await write([e3]);
    await until('only e3', async () => (await who(portico.http, 'pool.test', '/')) === 'e3', 2000);
    for (let i = 0; i < 30; i++) assert.equal(await who(portico.http, 'pool.test', '/'), 'e3');
    assert.deepEqual(await workerPids(portico), pids, 'nginx workers were not replaced');
    assert.equal(await metric(portico, 'portico_reloads_total'), reloads);
    assert.ok((await metric(portico, 'portico_dynamic_updates_total')) >= dynamic + 2);
  });

  test('no ready endpoint answers 503; serving-but-terminating endpoints are used only when none is ready', async () => {
    const [e1, e2] = backends as [Backend, Backend];
    await writeManifests(dir, 'svc.yaml', [service('pool'), slice('pool', e1.port, [{ ip: '127.0.0.1', ready: false, serving: false, terminating: true }], { name: 'pool-a' })]);
    await until('503', async () => (await who(portico.http, 'pool.test', '/')) === '503', 2000);
    await writeManifests(dir, 'svc.yaml', [service('pool'), slice('pool', e1.port, [{ ip: '127.0.0.1', ready: false, serving: true, terminating: true }], { name: 'pool-a' })]);
    await until('terminating e1 used', async () => (await who(portico.http, 'pool.test', '/')) === 'e1', 2000);
    await writeManifests(dir, 'svc.yaml', [
      service('pool'),
      slice('pool', e1.port, [{ ip: '127.0.0.1', ready: false, serving: true, terminating: true }], { name: 'pool-a' }),
      slice('pool', e2.port, [{ ip: '127.0.0.1', ready: true }], { name: 'pool-b' }),
    ]);
    await until('ready e2 preferred', async () => (await who(portico.http, 'pool.test', '/')) === 'e2', 2000);
    for (let i = 0; i < 20; i++) assert.equal(await who(portico.http, 'pool.test', '/'), 'e2');
    await write(backends);
  });
});
