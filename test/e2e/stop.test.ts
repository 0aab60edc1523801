// Clean stops and supervision: SIGTERM to the whole process group with requests in flight (local mode and against the
// API server double), signals in any order, and nginx killed under Portico.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { manifestDir, writeManifests } from '../support/manifests.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { scrape, total } from '../support/prometheus.js';
import { put, startCluster } from '../kube/cluster.js';

/** A backend that answers after `delayMs`, and counts the requests it has begun. */
async function slowBackend(delayMs: number): Promise<{ port: number; started: () => number; server: Server }> {
  let started = 0;
  const server = createServer((req, res) => {
    started += 1;
    req.resume();
    setTimeout(() => {
      res.writeHead(200, { 'x-backend': 'slow' });
      res.end('done');
    }, delayMs);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, started: () => started, server };
}

const objects = (port: number): unknown[] => [
  ingressClass('portico'),
  service('slow'),
  slice('slow', port, ['127.0.0.1']),
  ingress('slow', { className: 'portico', host: 'slow.test', paths: [{ path: '/', type: 'Prefix', service: 'slow' }] }),
];

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** The nginx master of a running Portico (its work dir's pid file). */
async function nginxMaster(p: Running): Promise<number> {
  return Number((await readFile(`${p.workDir}/nginx.pid`, 'utf8')).trim());
}

/** Every process whose command line names the work dir (nginx master and workers). */
async function nginxLeft(workDir: string): Promise<number[]> {
  const { readdir } = await import('node:fs/promises');
  const left: number[] = [];
  for (const d of await readdir('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const cmd = await readFile(`/proc/${d}/cmdline`, 'utf8').catch(() => '');
    if (cmd.includes('nginx') && cmd.includes(workDir)) left.push(Number(d));
  }
  return left;
}

/** Sends `n` requests; resolves once the backend began all of them (in flight), with their answers still to come. */
async function inFlight(p: Running, b: { started: () => number }, n: number): Promise<{ answers: Promise<number[]> }> {
  const before = b.started();
  const answers = Promise.all(
    Array.from({ length: n }, () =>
      get(p.http, 'slow.test', '/').then(
        (r) => r.status,
        () => 0,
      ),
    ),
  );
  await until(`${n} requests in flight`, () => b.started() - before === n, 5000);
  return { answers };
}

/** SIGTERM to the group, then: every request in flight answered 200, /healthz failed, exit 0, no nginx left. */
async function groupStop(p: Running, b: { started: () => number }, graceSeconds: number): Promise<void> {
  const pid = p.proc.pid ?? 0;
  const workDir = p.workDir;
  const { answers } = await inFlight(p, b, 8);
  const signalledAt = b.started();
  process.kill(-pid, 'SIGTERM');
  if (graceSeconds > 0) {
    await until('/healthz fails once the stop began', async () => (await get(p.healthz, 'localhost', '/healthz')).status === 503, 5000, 20);
    assert.equal((await get(p.http, 'slow.test', '/')).status, 200, 'nginx keeps serving during the grace period');
  }
  assert.deepEqual(await answers, Array<number>(8).fill(200), 'no request in flight is lost');
  assert.ok(signalledAt >= 8, 'the signal came while the 8 requests were in flight');
  const code = await new Promise<number | null>((r) => {
    if (p.proc.exitCode !== null) r(p.proc.exitCode);
    else
      p.proc.once('exit', (c) => {
        r(c);
      });
  });
  assert.equal(code, 0);
  assert.deepEqual(await nginxLeft(workDir), [], 'no nginx left behind');
  assert.equal(await p.stop(), 0);
}

void test('local mode: SIGTERM to the process group with requests in flight loses none, fails readiness during the grace period, exits 0 and leaves no nginx', async (t) => {
  const b = await slowBackend(1500);
  t.after(() => {
    b.server.closeAllConnections();
    b.server.close();
  });
  const dir = await manifestDir();
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeManifests(dir, 'all.yaml', objects(b.port));
  const p = await startPortico(['--manifests', dir, '--shutdown-grace-period', '1'], { ownGroup: true });
  t.after(() => p.stop());
  await until('slow.test served', async () => (await get(p.http, 'slow.test', '/')).status === 200);
  await groupStop(p, b, 1);
});

void test('against the API server double: SIGTERM to the process group with requests in flight loses none and exits 0', async (t) => {
  const c = await startCluster([]);
  t.after(() => c.stop());
  const b = await slowBackend(1500);
  t.after(() => {
    b.server.closeAllConnections();
    b.server.close();
  });
  for (const o of objects(b.port)) put(c.api, o);
  const p = await c.portico([], { ownGroup: true });
  await until('slow.test served', async () => (await get(p.http, 'slow.test', '/')).status === 200);
  await groupStop(p, b, 0);
});

void test('signals in any order: nginx quitting first, then Portico twice, is a stop, not a crash to restart', async (t) => {
  const b = await slowBackend(10);
  t.after(() => {
    b.server.closeAllConnections();
    b.server.close();
  });
  const dir = await manifestDir();
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeManifests(dir, 'all.yaml', objects(b.port));
  const p = await startPortico(['--manifests', dir], { ownGroup: true });
  t.after(() => p.stop());
  const workDir = p.workDir;
  const master = await nginxMaster(p);
  const exited = new Promise<number | null>((r) => {
    p.proc.once('exit', (c) => {
      r(c);
    });
  });
  process.kill(master, 'SIGQUIT');
  process.kill(p.proc.pid ?? 0, 'SIGINT');
  process.kill(-(p.proc.pid ?? 0), 'SIGTERM');
  assert.equal(await exited, 0);
  assert.ok(!alive(master));
  assert.deepEqual(await nginxLeft(workDir), []);
  assert.ok(!p.output.some((l) => l.includes('nginx restart')), 'nginx was not restarted during the stop');
});

void test('nginx killed: /healthz fails, nginx is restarted with the current configuration and serves, and the restart is counted', async (t) => {
  const b = await slowBackend(0);
  t.after(() => {
    b.server.closeAllConnections();
    b.server.close();
  });
  const dir = await manifestDir();
  t.after(() => rm(dir, { recursive: true, force: true }));
  await writeManifests(dir, 'all.yaml', objects(b.port));
  const p = await startPortico(['--manifests', dir]);
  t.after(() => p.stop());
  await until('slow.test served', async () => (await get(p.http, 'slow.test', '/')).status === 200);
  const master = await nginxMaster(p);
  process.kill(master, 'SIGKILL');
  await until('/healthz fails while nginx is down', async () => (await get(p.healthz, 'localhost', '/healthz')).status === 503, 5000, 10);
  const ms = await until('nginx restarted and /healthz ok', async () => (await get(p.healthz, 'localhost', '/healthz')).status === 200, 10_000, 20);
  t.diagnostic(`healthy again ${ms} ms after /healthz failed (the issue asks for under 2 s; not asserted: timing is bench/'s)`);
  assert.notEqual(await nginxMaster(p), master);
  assert.equal((await get(p.http, 'slow.test', '/')).status, 200, 'serving with the current configuration and its endpoints');
  assert.equal(total(await scrape(p), 'portico_nginx_restarts_total'), 1);
  assert.equal(await p.stop(), 0);
});
