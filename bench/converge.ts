// bench/converge: time from an EndpointSlice change to the first request served by the new endpoint, local mode.
//
//   npm run bench:converge -- [--changes 100] [--workers 2]
//
// Portico (the real `portico` command) serves one Ingress whose Service has one EndpointSlice. Each change rewrites
// the manifest file atomically (write + rename) so the slice points at the other of two backend ports, then polls
// through Portico (keepalive connections, one request at a time, every 2 ms) until the new port answers. Between
// changes it waits 50-250 ms at random, so changes meet the sync loop's rate limit (--sync-period-ms, 100 ms) at
// every phase, as real changes would. Reloads: `"plan":"reload"` sync lines in Portico's output and the nginx worker
// PIDs, before and after. The backend is a hand-written nginx answering `return 200 "ok <port>"` on two ports.
import { readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { ingress, ingressClass, service, slice } from '../test/support/objects.js';
import { manifestDir, writeManifests } from '../test/support/manifests.js';
import { freePort, startPortico, syncCount, type Running } from '../test/support/portico.js';
import { backendConf, childPids, fmt, intArg, percentile, sleep, startNginx } from './lib.js';

const argv = process.argv.slice(2);
const CHANGES = intArg(argv, 'changes', 100, 1, 1000);
const WORKERS = intArg(argv, 'workers', 2, 1, 8);
const HOST = 'converge.test';
const POLL_MS = 2;
const CHANGE_TIMEOUT_MS = 5000;

const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/** The body of one GET through Portico ("ok <port>"), or "" on an error. Bounded by a 1 s timeout. */
function ask(port: number): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/', headers: { host: HOST }, agent, timeout: 1000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => { body += c; });
      res.on('end', () => { resolve(res.statusCode === 200 ? body.trim() : String(res.statusCode)); });
      res.on('error', () => { resolve(''); });
    });
    req.on('timeout', () => { req.destroy(); });
    req.on('error', () => { resolve(''); });
    req.end();
  });
}

function objects(port: number): unknown[] {
  return [
    ingressClass('portico'),
    service('web'),
    slice('web', port, ['127.0.0.1'], { name: 'web-0' }),
    ingress('web', { className: 'portico', host: HOST, paths: [{ path: '/', type: 'Prefix', service: 'web' }] }),
  ];
}

async function main(): Promise<void> {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const ports = [await freePort(), await freePort()] as const;
    const backend = await startNginx('converge-backend', backendConf(ports), '0-1', ports[0]);
    stops.push(() => backend.stop());
    const dir = await manifestDir();
    stops.push(() => rm(dir, { recursive: true, force: true }));
    await writeManifests(dir, 'web.yaml', objects(ports[0]));
    const portico: Running = await startPortico(['--manifests', dir, '--worker-processes', String(WORKERS), '--log-level', 'info']);
    stops.push(() => portico.stop());
    const masterPid = Number((await readFile(join(portico.workDir, 'nginx.pid'), 'utf8')).trim());

    // the first configuration is served before the clock starts
    for (let i = 0; i < 500 && (await ask(portico.http)) !== `ok ${ports[0]}`; i += 1) await sleep(10);
    const workersBefore = await childPids(masterPid);
    const reloadsBefore = syncCount(portico.output, 'reload');
    const dynamicBefore = syncCount(portico.output, 'dynamic');
    console.log(`bench/converge: ${CHANGES} EndpointSlice changes, local mode, ${WORKERS} nginx workers, poll every ${POLL_MS} ms`);
    console.log('machine: 2 cores shared with other engineers running tests; times include their load');

    const times: number[] = [];
    let timeouts = 0;
    let wrong = 0;
    for (let c = 0; c < CHANGES; c += 1) {
      const target = ports[(c + 1) % 2]!;
      const t0 = performance.now();
      await writeManifests(dir, 'web.yaml', objects(target));
      let served = false;
      while (performance.now() - t0 < CHANGE_TIMEOUT_MS) {
        const body = await ask(portico.http);
        if (body === `ok ${target}`) { served = true; break; }
        if (body !== `ok ${ports[c % 2]!}`) wrong += 1; // neither endpoint: an error or a non-200
        await sleep(POLL_MS);
      }
      const ms = performance.now() - t0;
      if (served) times.push(ms); else timeouts += 1;
      await sleep(50 + Math.floor(Math.random() * 200));
    }

    const workersAfter = await childPids(masterPid);
    const reloads = syncCount(portico.output, 'reload') - reloadsBefore;
    const dynamic = syncCount(portico.output, 'dynamic') - dynamicBefore;
    console.log(`\nchange -> first request served by the new endpoint, ${times.length} changes:`);
    console.log(`  p50 ${fmt(percentile(times, 50), 1)} ms, p90 ${fmt(percentile(times, 90), 1)} ms, p99 ${fmt(percentile(times, 99), 1)} ms, min ${fmt(Math.min(...times), 1)} ms, max ${fmt(Math.max(...times), 1)} ms`);
    console.log(`  timeouts (> ${CHANGE_TIMEOUT_MS} ms): ${timeouts}; answers from neither endpoint while polling: ${wrong}`);
    console.log(`  syncs with plan reload: ${reloads}; plan dynamic: ${dynamic}`);
    console.log(`  nginx workers before ${workersBefore.join(',')} after ${workersAfter.join(',')}: ${workersBefore.join() === workersAfter.join() ? 'unchanged (no reload)' : 'CHANGED'}`);
  } finally {
    agent.destroy();
    for (const s of stops.reverse()) await s().catch(() => undefined);
  }
}

await main();
