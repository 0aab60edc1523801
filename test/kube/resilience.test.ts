// Portico against a misbehaving API: dropped watches, expired resourceVersions, bursts, outages, no API at start.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ApiServerDouble } from '../support/apiserver/index.js';
import { startPortico, until, who } from '../support/portico.js';
import { healthz, put, route, serves, startCluster, syncLines } from './cluster.js';

const SERVICES = ['one', 'two', 'three'] as const;
const tick = (ms = 2): Promise<void> => new Promise((r) => setTimeout(r, ms));

void test('watches dropped and resourceVersions expired in the middle of 200 changes: nginx ends with exactly the final state', async (t) => {
  const c = await startCluster(SERVICES);
  t.after(() => c.stop());
  const want = new Map<string, string>();
  for (let n = 0; n < 20; n++) {
    put(c.api, route(`r${n}`, `r${n}.test`, 'one'));
    want.set(`r${n}.test`, 'one');
  }
  const p = await c.portico();
  await serves(p, 'r19.test', 'one');
  const lists = c.api.requests().filter((r) => r.verb === 'list').length;
  const started = Date.now();
  for (let i = 0; i < 200; i++) {
    const n = (i * 7) % 20;
    const host = `r${n}.test`;
    if (i % 11 === 5) {
      c.api.remove('Ingress', 'default', `r${n}`);
      want.set(host, '404');
    } else {
      const svc = SERVICES[(i * 5) % 3]!;
      put(c.api, route(`r${n}`, host, svc));
      want.set(host, svc);
    }
    if (i === 80) c.api.dropWatches('end');
    if (i === 100) c.api.expireResourceVersions();
    if (i === 150) c.api.dropWatches('reset');
    if (i % 10 === 9) await tick();
  }
  await until(
    'every host served as in the API',
    async () => {
      for (const [host, id] of want) if ((await who(p.http, host, '/')) !== id) return false;
      return true;
    },
    15_000,
    100,
  );
  process.stdout.write(`# 200 changes with faults applied in ${Date.now() - started} ms\n`);
  assert.ok(c.api.requests().filter((r) => r.verb === 'list').length > lists, 'the expired resourceVersion made Portico relist');
  assert.equal(await healthz(p), 200);
});

void test('1,000 events in a burst lead to a handful of syncs, and the last one is applied', async (t) => {
  const c = await startCluster(SERVICES);
  t.after(() => c.stop());
  put(c.api, route('burst', 'burst.test', 'one'));
  const p = await c.portico();
  await serves(p, 'burst.test', 'one');
  await tick(300);
  const before = syncLines(p);
  const started = Date.now();
  for (let i = 0; i < 1000; i++) {
    put(c.api, route('burst', 'burst.test', SERVICES[i % 3]!));
    if (i % 100 === 99) await tick();
  }
  put(c.api, route('burst', 'burst.test', 'three')); // the loop ends on 'one', the state before it: end on a change
  await serves(p, 'burst.test', 'three', 10_000);
  const ms = Date.now() - started;
  await tick(500); // no sync may follow the one that applied the last event
  const syncs = syncLines(p) - before;
  process.stdout.write(`# 1,001 events → ${syncs} syncs, last applied after ${ms} ms\n`);
  assert.ok(syncs >= 1 && syncs <= 25, `expected a handful of syncs, got ${syncs}`);
  assert.equal(await who(p.http, 'burst.test', '/'), 'three');
});

void test('an API outage keeps nginx serving; after the API server restarts Portico catches up', async (t) => {
  const c = await startCluster(SERVICES);
  t.after(() => c.stop());
  put(c.api, route('app', 'app.test', 'one'));
  const p = await c.portico();
  await serves(p, 'app.test', 'one');
  await c.api.stopAcceptingConnections();
  await until('Portico to notice the outage', () => p.output.some((l) => l.includes('watch failed')), 5000);
  for (let i = 0; i < 5; i++) {
    assert.equal(await who(p.http, 'app.test', '/'), 'one', 'the last known state is served during the outage');
    assert.equal(await healthz(p), 200);
    await tick(200);
  }
  put(c.api, route('app', 'app.test', 'two')); // written while nobody can watch
  put(c.api, route('late', 'late.test', 'three'));
  const restarted = Date.now();
  await c.api.restart();
  await serves(p, 'app.test', 'two', 15_000);
  await serves(p, 'late.test', 'three');
  process.stdout.write(`# caught up ${Date.now() - restarted} ms after the API server restart\n`);
  put(c.api, route('app', 'app.test', 'three'));
  await serves(p, 'app.test', 'three');
  assert.equal(p.proc.exitCode, null);
});

void test('no API at start: a non-zero exit and a message naming the address and the cause', async (t) => {
  const api = new ApiServerDouble();
  await api.start();
  const kubeconfig = await api.writeKubeconfig();
  t.after(() => rm(dirname(kubeconfig), { recursive: true, force: true }));
  await api.stop(); // the port is now closed
  const p = await startPortico(['--kubeconfig', kubeconfig], { waitHealthy: false });
  t.after(async () => {
    await p.stop();
  });
  const code = await new Promise<number | null>((resolve) => {
    if (p.proc.exitCode !== null) resolve(p.proc.exitCode);
    p.proc.once('exit', (c) => {
      resolve(c);
    });
    setTimeout(() => {
      resolve(-1);
    }, 15_000).unref();
  });
  assert.notEqual(code, 0);
  assert.notEqual(code, -1, 'Portico exits by itself');
  const fatal = p.output.find((l) => l.includes('"level":60')) ?? '';
  assert.ok(fatal.includes(api.url), `the message names ${api.url}: ${fatal}`);
  assert.match(fatal, /ECONNREFUSED/);
  assert.match(fatal, /PORTICO_API_UNREACHABLE/);
});

void test('--apiserver-host replaces the kubeconfig server; alone it works like kubectl proxy (plain http)', async (t) => {
  const c = await startCluster(['one']);
  t.after(() => c.stop());
  put(c.api, route('app', 'app.test', 'one'));
  const closed = new ApiServerDouble();
  await closed.start();
  const wrong = await closed.writeKubeconfig();
  t.after(() => rm(dirname(wrong), { recursive: true, force: true }));
  await closed.stop();
  const viaOverride = await startPortico(['--kubeconfig', wrong, '--apiserver-host', c.api.url]);
  t.after(async () => {
    await viaOverride.stop();
  });
  await serves(viaOverride, 'app.test', 'one');
  const alone = await startPortico(['--apiserver-host', c.api.url], { env: { KUBECONFIG: '' } });
  t.after(async () => {
    await alone.stop();
  });
  await serves(alone, 'app.test', 'one');
  assert.ok(alone.output.some((l) => l.includes('--apiserver-host without credentials')));
});
