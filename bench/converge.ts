// bench/converge: time from an EndpointSlice change to the first request served by the new endpoint, local mode.
//
//   npm run bench:converge -- [--changes 100] [--workers 2] [--source manifests|api|both]
//
// Portico (the real `portico` command) serves one Ingress whose Service has one EndpointSlice. Each change points the
// slice at the other of two backend ports: in local mode (`manifests`) by rewriting the manifest file atomically
// (write + rename); against the API server double of test/support/apiserver (`api`, Portico started with
// --kubeconfig, watching through @kubernetes/client-node) by replacing the EndpointSlice in the double. It then polls
// through Portico (keepalive connections, one request at a time, every 2 ms) until the new port answers. Between
// changes it waits 50-250 ms at random, so changes meet the sync loop's rate limit (--sync-period-ms, 100 ms) at
// every phase, as real changes would. Reloads: `"plan":"reload"` sync lines in Portico's output and the nginx worker
// PIDs, before and after. The backend is a hand-written nginx answering `return 200 "ok <port>"` on two ports.
import { readFile, rm } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { dirname, join } from 'node:path';
import { ApiServerDouble, type KubeObject } from '../test/support/apiserver/index.js';
import { ingress, ingressClass, service, slice } from '../test/support/objects.js';
import { manifestDir, writeManifests } from '../test/support/manifests.js';
import { freePort, startPortico, syncCount, type Running } from '../test/support/portico.js';
import { backendConf, childPids, fmt, intArg, percentile, sleep, startNginx } from './lib.js';

const argv = process.argv.slice(2);
const CHANGES = intArg(argv, 'changes', 100, 1, 1000);
const WORKERS = intArg(argv, 'workers', 2, 1, 8);
const SOURCE_ARG = argv.find((a) => a.startsWith('--source='))?.slice(9) ?? (argv.includes('--source') ? argv[argv.indexOf('--source') + 1] : 'both');
if (!['manifests', 'api', 'both'].includes(SOURCE_ARG ?? '')) throw new Error(`--source: manifests, api or both, got ${SOURCE_ARG}`);
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
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => {
        resolve(res.statusCode === 200 ? body.trim() : String(res.statusCode));
      });
      res.on('error', () => {
        resolve('');
      });
    });
    req.on('timeout', () => {
      req.destroy();
    });
    req.on('error', () => {
      resolve('');
    });
    req.end();
  });
}

const endpointSlice = (port: number): unknown => slice('web', port, ['127.0.0.1'], { name: 'web-0' });

function objects(port: number): unknown[] {
  return [ingressClass('portico'), service('web'), endpointSlice(port), ingress('web', { className: 'portico', host: HOST, paths: [{ path: '/', type: 'Prefix', service: 'web' }] })];
}

/** Where the objects come from: starts Portico on it, and changes the EndpointSlice. */
interface Source {
  readonly name: string;
  start(port: number, stops: (() => Promise<unknown>)[]): Promise<Running>;
  change(port: number): Promise<void>;
}

function manifestsSource(): Source {
  let dir = '';
  return {
    name: 'local mode (manifest folder, atomic rewrite)',
    start: async (port, stops) => {
      dir = await manifestDir();
      stops.push(() => rm(dir, { recursive: true, force: true }));
      await writeManifests(dir, 'web.yaml', objects(port));
      return startPortico(['--manifests', dir, '--worker-processes', String(WORKERS), '--log-level', 'info']);
    },
    change: (port) => writeManifests(dir, 'web.yaml', objects(port)),
  };
}

function apiSource(): Source {
  const api = new ApiServerDouble({ bookmarkIntervalMs: 0, requireNamespaces: true });
  return {
    name: 'API server double (client-node watches, EndpointSlice replaced)',
    start: async (port, stops) => {
      await api.start();
      stops.push(() => api.stop());
      const kubeconfig = await api.writeKubeconfig();
      stops.push(() => rm(dirname(kubeconfig), { recursive: true, force: true }));
      api.put({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
      for (const o of objects(port)) api.put(o as KubeObject);
      return startPortico(['--kubeconfig', kubeconfig, '--worker-processes', String(WORKERS), '--log-level', 'info']);
    },
    change: (port) => {
      api.put(endpointSlice(port) as KubeObject);
      return Promise.resolve();
    },
  };
}

async function run(source: Source): Promise<void> {
  const stops: (() => Promise<unknown>)[] = [];
  try {
    const ports = [await freePort(), await freePort()] as const;
    const backend = await startNginx('converge-backend', backendConf(ports), '0-1', ports[0]);
    stops.push(() => backend.stop());
    const portico: Running = await source.start(ports[0], stops);
    stops.push(() => portico.stop());
    const masterPid = Number((await readFile(join(portico.workDir, 'nginx.pid'), 'utf8')).trim());

    // the first configuration is served before the clock starts
    for (let i = 0; i < 500 && (await ask(portico.http)) !== `ok ${ports[0]}`; i += 1) await sleep(10);
    const workersBefore = await childPids(masterPid);
    const reloadsBefore = syncCount(portico.output, 'reload');
    const dynamicBefore = syncCount(portico.output, 'dynamic');
    console.log(`\nbench/converge: ${CHANGES} EndpointSlice changes, ${source.name}, ${WORKERS} nginx workers, poll every ${POLL_MS} ms`);
    console.log('machine: 2 cores shared with other engineers running tests; times include their load');

    const times: number[] = [];
    let timeouts = 0;
    let wrong = 0;
    for (let c = 0; c < CHANGES; c += 1) {
      const target = ports[(c + 1) % 2]!;
      const t0 = performance.now();
      await source.change(target);
      let served = false;
      while (performance.now() - t0 < CHANGE_TIMEOUT_MS) {
        const body = await ask(portico.http);
        if (body === `ok ${target}`) {
          served = true;
          break;
        }
        if (body !== `ok ${ports[c % 2]!}`) wrong += 1; // neither endpoint: an error or a non-200
        await sleep(POLL_MS);
      }
      const ms = performance.now() - t0;
      if (served) times.push(ms);
      else timeouts += 1;
      await sleep(50 + Math.floor(Math.random() * 200));
    }

    const workersAfter = await childPids(masterPid);
    const reloads = syncCount(portico.output, 'reload') - reloadsBefore;
    const dynamic = syncCount(portico.output, 'dynamic') - dynamicBefore;
    console.log(`\nchange -> first request served by the new endpoint, ${times.length} changes:`);
    console.log(
      `  p50 ${fmt(percentile(times, 50), 1)} ms, p90 ${fmt(percentile(times, 90), 1)} ms, p99 ${fmt(percentile(times, 99), 1)} ms, min ${fmt(Math.min(...times), 1)} ms, max ${fmt(Math.max(...times), 1)} ms`,
    );
    console.log(`  timeouts (> ${CHANGE_TIMEOUT_MS} ms): ${timeouts}; answers from neither endpoint while polling: ${wrong}`);
    console.log(`  syncs with plan reload: ${reloads}; plan dynamic: ${dynamic}`);
    console.log(`  nginx workers before ${workersBefore.join(',')} after ${workersAfter.join(',')}: ${workersBefore.join() === workersAfter.join() ? 'unchanged (no reload)' : 'CHANGED'}`);
  } finally {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  }
}

try {
  if (SOURCE_ARG !== 'api') await run(manifestsSource());
  if (SOURCE_ARG !== 'manifests') await run(apiSource());
} finally {
  agent.destroy();
}
