// The controller's memory at N Ingresses, in-process: the generated cluster in a real Store, built by the real build
// worker (offload.ts), the main thread keeping what a sync keeps (the build's result and the backends JSON), then
// `rounds` syncs under churn (one Ingress's annotation changed each time, as bench/scale-profile does).
//   node --expose-gc dist/bench/controller-memory.js [N=10000] [rounds=12]
// Prints the CPU of filling the store and of the first build, RSS after the first build, the highest and last RSS under churn, 2 s, 13 s and 22 s after the last sync, RSS and
// the main thread's heap after a forced GC of the main thread (the worker collects on its own), and the median build
// time (wall, and CPU of the process) under churn.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseFlags } from '../src/config/flags.js';
import { renderOptions } from '../src/pipeline/build.js';
import { Offload } from '../src/worker/offload.js';
import type { Snapshot } from '../src/model/input.js';
import { backendsPayload } from '../src/render/lua-payload.js';
import { Store } from '../src/store/store.js';
import { makeCert } from '../test/support/certs.js';
import { generate, storeCluster } from './scale-gen.js';

const n = Number(process.argv[2] ?? 10_000);
const rounds = Math.min(30, Math.max(1, Number(process.argv[3] ?? 12)));
const mib = (b: number): number => Math.round(b / 2 ** 20);
const rss = (): number => mib(process.memoryUsage().rss);
const certDir = await mkdtemp(join(tmpdir(), 'portico-controller-memory-'));
try {
  const certs = [0, 1, 2, 3].map(() => makeCert(certDir, '*.scale.test', { sans: ['*.scale.test'] }));
  const config = parseFlags(['--manifests', certDir, '--enable-dynamic-routes'], {});
  const store = new Store<Snapshot>();
  // The generator's objects are dropped once stored (a function's local: a binding of this module's top level, which
  // awaits, stayed alive): the store's trimmed copies are what a controller holds.
  const fill = (): number => {
    const cluster = generate(n, [], certs);
    const s0 = process.cpuUsage();
    storeCluster(store, cluster);
    const s = process.cpuUsage(s0);
    return Math.round((s.user + s.system) / 1000);
  };
  const storeCpuMs = fill();
  const offload = new Offload(config, renderOptions(config, undefined));
  let kept: unknown;
  const sync = async (): Promise<number> => {
    const t0 = performance.now();
    const built = await offload.build(store.snapshot());
    kept = { ...built, backends: JSON.stringify(backendsPayload(built.model)) };
    offload.synced(); // as the controller does once a sync applied its build
    return performance.now() - t0;
  };
  const cold0 = process.cpuUsage();
  const coldMs = Math.round(await sync());
  const cold = process.cpuUsage(cold0);
  const afterFirst = rss();
  const times: number[] = [];
  const cpu: number[] = [];
  const churn: number[] = [];
  const ingresses = store.snapshot().ingresses;
  // the main thread's longest block (a deserialization, a collection) while the syncs run and settle
  const loop = monitorEventLoopDelay({ resolution: 5 });
  loop.enable();
  const all0 = process.cpuUsage();
  for (let r = 1; r <= rounds; r += 1) {
    const i = ingresses[(r * 7919) % ingresses.length]!;
    const meta = { ...i.metadata, resourceVersion: `churn-${r}`, annotations: { ...i.metadata?.annotations, 'nginx.ingress.kubernetes.io/proxy-body-size': `${r}m` } };
    store.upsert('Ingress', { ...i, metadata: meta });
    const c0 = process.cpuUsage();
    times.push(await sync());
    // CPU of both threads, the worker's collection after its reply included when it ran by then.
    const c = process.cpuUsage(c0);
    cpu.push((c.user + c.system) / 1000);
    churn.push(rss());
  }
  await new Promise((r) => setTimeout(r, 2000));
  const settled = rss();
  const all = process.cpuUsage(all0);
  loop.disable();
  // V8 hands freed pages back to the system from a background task, and the worker compacts after 10 s without a
  // request (offload-worker.ts): a later look shows what stays
  await new Promise((r) => setTimeout(r, 11_000));
  const late = rss();
  // 13 s fell before or after the pages of the worker's compaction went back (bimodal: 286-318 or 420 MiB, ADR 0046);
  // 22 s after the churn gave the same value in every run
  await new Promise((r) => setTimeout(r, 9_000));
  const rest = rss();
  globalThis.gc?.();
  const mem = process.memoryUsage();
  const median = (xs: number[]): number => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  console.log(
    JSON.stringify({
      n,
      rounds,
      // CPU of both threads: the store's upserts (trim), then the first build (crossing, build, render, reply)
      storeCpuMs,
      coldMs,
      coldCpuMs: Math.round((cold.user + cold.system) / 1000),
      churnMedianMs: median(times),
      churnCpuMedianMs: median(cpu),
      // per sync, the 2 s after the last one included (the worker's last collection)
      churnCpuMeanMs: Math.round((all.user + all.system) / 1000 / rounds),
      mainLoopMaxMs: Math.round(loop.max / 1e6),
      rssAfterFirstMiB: afterFirst,
      rssChurnMaxMiB: Math.max(...churn),
      rssChurnLastMiB: churn.at(-1),
      rssSettledMiB: settled,
      rssLateMiB: late,
      rssRestMiB: rest,
      rssAfterMainGcMiB: mib(mem.rss),
      mainHeapUsedMiB: mib(mem.heapUsed),
      mainExternalMiB: mib(mem.external),
      kept: kept !== undefined,
    }),
  );
  await offload.close();
} finally {
  await rm(certDir, { recursive: true, force: true });
}
