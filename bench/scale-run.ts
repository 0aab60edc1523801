// bench/scale for one N: model + render in-process, then the real `portico --manifests` from start to each change.
import { mkdtemp, rm, writeFile, rename } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { parseFlags } from '../src/config/flags.js';
import { AnnotationStage } from '../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../src/pipeline/build.js';
import { createLogger } from '../src/log.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../src/model/input.js';
import { ingressClass } from '../test/support/objects.js';
import { tlsSecret } from '../test/support/tls-manifests.js';
import { presented, type Pem } from '../test/support/certs.js';
import { startPortico, syncCount, type Running } from '../test/support/portico.js';
import { ApiServerDouble, type KubeObject } from '../test/support/apiserver/index.js';
import { appSlice, clusterFiles, generate, makeApp, namespaceObjects, type AppObjects, type Cluster } from './scale-gen.js';
import { allServed, ask, cpuSeconds, imageEnv, masterPid, nginxRss, nginxTestMs, pollMs, rssMiB, sighupMs } from './scale-probe.js';
import { sleep } from './lib.js';

/** How long after the whole first sync's log line the changes start (bench/README.md, bench/scale). */
const SETTLE_MS = 5000;

export interface ScaleRow {
  source: SourceName;
  n: number;
  confKiB: number;
  modelRenderMs: number;
  firstSyncMs: number;
  /** Spawn → the first sampled route answers (the head of the first sync: docs/adr/0034); absent in older results. */
  firstServedMs?: number;
  /** CPU seconds of the controller process (all its threads) from spawn until every sampled route is served. */
  firstSyncCpuS?: number;
  syncLogMs: number;
  nginxTestMs: number;
  sighupMs: number;
  controllerMiB: number;
  nginxMiB: number;
  newIngressMs: number;
  pathRemovedMs: number;
  /** Endpoint change → served: the median of `endpointSamples` changes (one EndpointSlice each, one at a time). */
  endpointMs: number;
  /** The 99th percentile of the same changes (nearest rank: with fewer than 100 samples, the largest). */
  endpointP99Ms?: number;
  endpointMaxMs?: number;
  endpointSamples?: number;
  /** Every endpoint change of the series, in order (ms). */
  endpointSeriesMs?: number[];
  certMs: number;
  reloads: string;
  /** --dynamic-routes: Portico ran with --enable-dynamic-routes (docs/adr/0014); absent in older results. */
  routes?: 'rendered' | 'dynamic';
}

/** snapshot → annotation stage → model → nginx.conf, as a sync runs it; median of 3 after one warm-up, one cold build above 30,000 (ms). */
function modelRender(c: Cluster, dir: string, flags: readonly string[]): { ms: number; bytes: number } {
  const config = parseFlags(['--manifests', dir, ...flags], {});
  const snap: Snapshot = {
    ...EMPTY_SNAPSHOT,
    ingressClasses: [ingressClass('portico')],
    ingresses: c.apps.map((a) => a.ingress),
    services: c.apps.map((a) => a.service),
    endpointSlices: c.apps.map((a) => a.slice),
    secrets: c.apps.flatMap((a) => (a.secret ? [a.secret] : [])),
  };
  const times: number[] = [];
  let bytes = 0;
  // above 30,000 one cold build: four took minutes at 100,000 on the shared machine, before Portico even started
  const rounds = c.n > 30_000 ? 1 : 4;
  for (let r = 0; r < rounds; r += 1) {
    const stage = new AnnotationStage(config, createLogger('silent'));
    const t0 = performance.now();
    bytes = buildAndRender(stage, snap, config, renderOptions(config, undefined)).conf.text.length;
    if (r > 0 || rounds === 1) times.push(performance.now() - t0);
  }
  return { ms: times.sort((a, b) => a - b)[Math.floor(times.length / 2)]!, bytes };
}

async function writeJson(dir: string, file: string, objects: unknown[]): Promise<void> {
  await writeFile(join(dir, `.${file}.tmp`), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  await rename(join(dir, `.${file}.tmp`), join(dir, file));
}

/** Where the cluster lives: a manifest folder (local mode) or the API server double (client-node watches). */
export type SourceName = 'manifests' | 'api';
interface Sink {
  /** Writes the cluster where Portico will read it (before the clock of the first sync starts). */
  prepare(c: Cluster): Promise<void>;
  start(): Promise<Running>;
  /** Adds `next` (a new app) or replaces the app of the same index. */
  put(c: { apps: AppObjects[] }, next: AppObjects): Promise<void>;
  stop(): Promise<void>;
}

function folderSink(dir: string, flags: readonly string[]): Sink {
  return {
    prepare: async (c) => {
      for (const [file, objects] of clusterFiles(c)) await writeJson(dir, file, objects);
    },
    start: async () => {
      // SCALE_FLAGS="--log-level debug": more flags for portico; SCALE_CPU_PROF=<dir>: its CPU profiles (main thread and
      // build worker) written there when it stops (open them in Chrome DevTools)
      const extra = (process.env.SCALE_FLAGS ?? '').split(' ').filter(Boolean);
      const prof = process.env.SCALE_CPU_PROF;
      return startPortico(['--manifests', dir, '--worker-processes', '2', ...flags, ...extra], {
        waitHealthy: false,
        env: await imageEnv(),
        nodeArgs: prof ? ['--cpu-prof', `--cpu-prof-dir=${prof}`] : [],
      });
    },
    put: async (c, next) => {
      if (next.index >= c.apps.length) {
        await writeJson(dir, 'new.json', namespaceObjects([next]));
        return;
      }
      c.apps[next.index] = next;
      await writeJson(dir, `${next.namespace}.json`, namespaceObjects(c.apps.filter((a) => a.namespace === next.namespace)));
    },
    stop: () => Promise.resolve(),
  };
}

function apiSink(flags: readonly string[]): Sink {
  const api = new ApiServerDouble({ bookmarkIntervalMs: 0, historyLimit: 200_000 });
  let kubeconfig = '';
  return {
    prepare: async (c) => {
      await api.start();
      kubeconfig = await api.writeKubeconfig();
      for (const [, objects] of clusterFiles(c)) for (const o of objects) api.put(o as KubeObject);
    },
    start: async () => startPortico(['--kubeconfig', kubeconfig, '--worker-processes', '2', ...flags], { waitHealthy: false, env: await imageEnv() }),
    put: (_c, next) => {
      for (const o of namespaceObjects([next])) api.put(o as KubeObject);
      return Promise.resolve();
    },
    stop: async () => {
      await api.stop();
      if (kubeconfig) await rm(dirname(kubeconfig), { recursive: true, force: true });
    },
  };
}

const CHANGE_MS = 60_000;
/** Endpoint changes per size: at most this many, and no new one once ENDPOINT_BUDGET_MS have passed. */
const ENDPOINT_SAMPLES = 40;
const ENDPOINT_BUDGET_MS = 120_000;

/** Nearest-rank percentile of `xs` (q in 0-100): with 40 samples p99 is the largest, p50 the 20th. NaN when empty or when a sample is NaN (a change never served). */
export function percentile(xs: readonly number[], q: number): number {
  if (xs.length === 0 || xs.some((x) => !Number.isFinite(x))) return Number.NaN;
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((q / 100) * sorted.length))) - 1]!;
}

type Timed = (what: string, change: () => Promise<void>, ok: () => Promise<boolean>) => Promise<number>;

/**
 * Endpoint changes one after another, each on the next probe app in turn (its one endpoint moved to another of the
 * backend's ports), each timed from the write to the first answer from the new port; bounded by ENDPOINT_SAMPLES
 * and ENDPOINT_BUDGET_MS. A change that is never served counts as NaN (and makes p99 NaN, never a good number).
 */
async function endpointSeries(
  targets: readonly AppObjects[],
  mutable: { apps: AppObjects[] },
  ports: readonly number[],
  timed: Timed,
  to: { sink: Sink; http: number },
): Promise<{ samples: number[] }> {
  const samples: number[] = [];
  const t0 = performance.now();
  for (let k = 0; k < ENDPOINT_SAMPLES && performance.now() - t0 < ENDPOINT_BUDGET_MS && targets.length > 0; k += 1) {
    const target = mutable.apps[targets[k % targets.length]!.index]!;
    const now = Number(/"port":(\d+)/.exec(JSON.stringify(target.slice.ports))?.[1]);
    const other = ports[(ports.indexOf(now) + 1) % ports.length]!;
    const ms = await timed(
      `endpoint change ${k + 1}/${ENDPOINT_SAMPLES}`,
      async () => {
        const next = { ...target, slice: appSlice(target.service.metadata?.name ?? '', target.namespace, target.index, other, 1) };
        await to.sink.put(mutable, next);
        mutable.apps[next.index] = next;
      },
      async () => (await ask(to.http, target.host, '/')).body === `ok ${other}`,
    );
    samples.push(ms);
    if (!Number.isFinite(ms)) break;
  }
  return { samples };
}

/** One N: generate, write, measure. `progress` gets a line per step. `dynamic`: with --enable-dynamic-routes; `incremental`: with --incremental-sync. */
export async function measure(
  n: number,
  ports: readonly number[],
  pems: { pool: readonly Pem[]; rotated: Pem },
  progress: (s: string) => void,
  { source, dynamic, incremental = false }: { source: SourceName; dynamic: boolean; incremental?: boolean },
): Promise<ScaleRow> {
  const { pool: certs, rotated } = pems;
  const dir = await mkdtemp(join(tmpdir(), 'portico-scale-'));
  const flags = [dynamic ? '--enable-dynamic-routes' : '--enable-dynamic-routes=false', ...(incremental ? ['--incremental-sync'] : [])];
  const sink = source === 'api' ? apiSink(flags) : folderSink(dir, flags);
  let portico: Running | undefined;
  try {
    progress('generate');
    const c = generate(n, ports, certs);
    progress('model + render in-process');
    const mr = modelRender(c, dir, flags);
    const probes = c.apps.filter((a) => a.probe);
    // TLS hosts answer 308 (ssl-redirect) on plain HTTP: their certificate is probed below instead.
    const routes = probes.filter((a) => a.secret === undefined).flatMap((a) => a.paths.map((p) => ({ host: a.host, path: p === '/' ? '/' : `${p}/x` })).filter((_, j) => j !== 3));
    progress('write the cluster');
    await sink.prepare(c);
    progress(`start portico, wait for ${routes.length} sampled routes`);
    // from Portico's spawn: the cluster is in place before it starts, as a folder or an API server's objects are
    const t0 = performance.now();
    portico = await sink.start();
    const p = portico;
    // 300 s, and 6 ms an Ingress above 50,000 (100,000: 600 s, ten times the target; the run must end, not pass)
    const firstSyncBudget = Math.max(300_000, c.n * 6);
    const firstServedMs = await pollMs(() => allServed(p.http, routes.slice(0, 1)), firstSyncBudget, 20, t0);
    const firstSyncMs = await pollMs(() => allServed(p.http, routes), firstSyncBudget, 50, t0);
    const firstSyncCpuS = await cpuSeconds(p.proc.pid ?? 0);
    if (!Number.isFinite(firstSyncMs)) {
      const cpu = await cpuSeconds(p.proc.pid ?? 0);
      throw new Error(
        `first sync: not every sampled route served in ${firstSyncBudget / 1000} s (the first at ${Math.round(firstServedMs)} ms, ${cpu.toFixed(1)} s CPU)\n${p.output.slice(-5).join('\n')}`,
      );
    }
    // nginx serves before the sync line is logged (certificates are pushed after the backends): wait for it
    const firstLine = (): string | undefined => p.output.find((l) => l.includes('"msg":"sync"') && l.includes('"plan":"') && !l.includes('"head":'));
    await pollMs(() => Promise.resolve(firstLine() !== undefined), 120_000, 50);
    const syncLine = firstLine() ?? '';
    const syncLogMs = Number(/"ms":(\d+)/.exec(syncLine)?.[1] ?? Number.NaN);
    const master = await masterPid(p.workDir);
    const controllerMiB = await rssMiB(p.proc.pid ?? 0);
    const nginxMiB = (await nginxRss(master)).mib;
    progress('nginx -t, SIGHUP');
    const testMs = await nginxTestMs(p.workDir);
    const hupMs = await sighupMs(master, CHANGE_MS);
    // The changes start SETTLE_MS after the whole first sync's line, not as soon as nginx -t and SIGHUP are done: at
    // 100,000 Ingresses those two took 10 s until docs/adr/0063 and 0.1 s after it, which put the first change in the
    // controller's own after-sync work (the build worker's warm-up and collections) instead of after it.
    // SCALE_SETTLE_MS=0: right after nginx -t and SIGHUP, as before.
    const syncAt = Date.parse((JSON.parse(syncLine) as { time?: string }).time ?? '') || Date.now();
    await sleep(Math.max(0, syncAt + Number(process.env.SCALE_SETTLE_MS ?? SETTLE_MS) - Date.now()));
    const mutable = { apps: [...c.apps] };
    const reloads = (): number => syncCount(p.output, 'reload');
    const kinds: string[] = [];
    const timed = async (what: string, change: () => Promise<void>, ok: () => Promise<boolean>): Promise<number> => {
      progress(what);
      const before = reloads();
      const syncs = syncCount(p.output, 'dynamic') + before;
      const start = performance.now();
      await change();
      const ms = await pollMs(ok, CHANGE_MS, 5, start);
      // the sync line is logged after nginx already serves the change: wait for it before counting reloads
      await pollMs(() => Promise.resolve(syncCount(p.output, 'dynamic') + reloads() > syncs), 10_000, 20);
      kinds.push(reloads() > before ? 'R' : '0');
      return ms;
    };
    const fresh = makeApp(n + 1, { namespaces: Math.max(1, Math.floor(n / 10)), probeEvery: 1, probePorts: ports, certs }, () => 0);
    const newIngressMs = await timed(
      'new Ingress',
      () => sink.put(mutable, fresh),
      async () => (await ask(p.http, fresh.host, '/')).status === 200,
    );
    const multi = probes.find((a) => a.paths.length >= 2 && a.index !== 0) ?? probes[0]!;
    const cut = {
      ...multi,
      ingress: { ...multi.ingress, spec: { ...multi.ingress.spec, rules: multi.ingress.spec?.rules?.map((r) => ({ ...r, http: { paths: (r.http?.paths ?? []).filter((x) => x.path !== '/') } })) } },
    };
    const pathRemovedMs = await timed(
      'path removed',
      () => sink.put(mutable, cut),
      async () => (await ask(p.http, multi.host, '/')).status === 404,
    );
    const endpoint = await endpointSeries(
      probes.filter((a) => a.index !== 0 && a.index !== multi.index && a.secret === undefined),
      mutable,
      ports,
      (what, change, ok) => timed(what, change, ok),
      { sink, http: p.http },
    );
    // one letter for the whole series: R when any of its changes reloaded
    const series = kinds.splice(kinds.length - endpoint.samples.length);
    kinds.push(series.includes('R') ? 'R' : '0');
    const tlsApp = mutable.apps[0]!;
    const certMs = await timed(
      'certificate change',
      () => sink.put(mutable, { ...tlsApp, secret: tlsSecret(tlsApp.secret?.metadata?.name ?? '', rotated, tlsApp.namespace) }),
      async () => (await presented(p.https, tlsApp.host).catch(() => ({ fingerprint: '' }))).fingerprint === rotated.fingerprint,
    );
    return {
      source,
      n,
      confKiB: mr.bytes / 1024,
      modelRenderMs: mr.ms,
      firstSyncMs,
      firstServedMs,
      firstSyncCpuS,
      syncLogMs,
      nginxTestMs: testMs,
      sighupMs: hupMs,
      controllerMiB,
      nginxMiB,
      newIngressMs,
      pathRemovedMs,
      endpointMs: percentile(endpoint.samples, 50),
      endpointP99Ms: percentile(endpoint.samples, 99),
      endpointMaxMs: Math.max(...endpoint.samples),
      endpointSamples: endpoint.samples.length,
      endpointSeriesMs: endpoint.samples.map((x) => Math.round(x)),
      certMs,
      reloads: kinds.join(''),
      routes: dynamic ? 'dynamic' : 'rendered',
    };
  } finally {
    progress('stop');
    // SCALE_LOG=<file>: Portico's own log lines of the run, for reading where a sync's time went
    if (process.env.SCALE_LOG && portico) await writeFile(process.env.SCALE_LOG, portico.output.join('\n') + '\n');
    await portico?.stop();
    await sink.stop();
    await rm(dir, { recursive: true, force: true });
  }
}
