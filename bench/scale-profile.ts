// bench/scale's model + render step alone, split by stage, for profiling (node --cpu-prof / --heap-prof): the
// generated cluster of N Ingresses through the annotation stage, the model and the renderer, as a sync runs them.
//   node dist/bench/scale-profile.js [N=10000] [rounds=3] [--dynamic-routes] [--incremental]
// The first build is cold (the first sync); each later one follows a change of one Ingress's annotation (a sync
// under churn), with the stage's memos as the build worker keeps them. Prints the cold build, the median of each
// stage of the later ones (ms), the server blocks the render memo reused, the nginx.conf size and the heap; with
// --dynamic-routes (rendered as --enable-dynamic-routes renders) also the route table's size and the host entries the
// last build took from the memo. --incremental: each round goes through the build worker's IncrementalBuilder
// (docs/adr/0039), which translates the changed Ingress's neighbourhood only; the stages are then not split (0).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../src/config/flags.js';
import { AnnotationStage } from '../src/pipeline/annotations.js';
import { modelOptions, renderOptions } from '../src/pipeline/build.js';
import { createLogger } from '../src/log.js';
import { buildModel } from '../src/model/build.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../src/model/input.js';
import { tlsSettingsOf } from '../src/model/settings.js';
import { renderNginxConf } from '../src/render/nginx-conf.js';
import { ingressClass } from '../test/support/objects.js';
import { makeCert } from '../test/support/certs.js';
import { generate } from './scale-gen.js';
import { IncrementalBuilder } from '../src/worker/incremental.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
/** --dynamic-routes: rendered as Portico runs with --enable-dynamic-routes (the route table built each round). */
const dynamic = process.argv.includes('--dynamic-routes');
/** --incremental: the rounds after the first are built as the build worker builds with --incremental-sync. */
const incremental = process.argv.includes('--incremental');
const n = Number(args[0] ?? 10_000);
const rounds = Math.min(10, Math.max(1, Number(args[1] ?? 3)));
const certDir = await mkdtemp(join(tmpdir(), 'portico-scale-profile-'));
try {
  const certs = [0, 1, 2, 3].map(() => makeCert(certDir, '*.scale.test', { sans: ['*.scale.test'] }));
  const c = generate(n, [], certs);
  const config = parseFlags(['--manifests', certDir, ...(dynamic ? ['--enable-dynamic-routes'] : ['--enable-dynamic-routes=false'])], {});
  const snap: Snapshot = {
    ...EMPTY_SNAPSHOT,
    ingressClasses: [ingressClass('portico')],
    ingresses: c.apps.map((a) => a.ingress),
    services: c.apps.map((a) => a.service),
    endpointSlices: c.apps.map((a) => a.slice),
    secrets: c.apps.flatMap((a) => (a.secret ? [a.secret] : [])),
  };
  const render = renderOptions(config, undefined);
  const times: Record<'annotations' | 'model' | 'render' | 'total' | 'cpu' | 'annotationsCpu' | 'modelCpu' | 'renderCpu', number[]> = {
    annotations: [],
    model: [],
    render: [],
    total: [],
    cpu: [],
    annotationsCpu: [],
    modelCpu: [],
    renderCpu: [],
  };
  let bytes = 0;
  let routesBytes = 0;
  let coldMs = 0;
  /** The cold build's stages (ms): the first sync's build, where a cost that grows faster than N shows first. */
  let cold = { annotationsMs: 0, modelMs: 0, renderMs: 0, cpuMs: 0, annotationsCpuMs: 0, modelCpuMs: 0, renderCpuMs: 0 };
  /** The snapshot of round r: Ingress r*7919 mod N with proxy-body-size `${r}m` (a new object, as the store makes). */
  const changed = (r: number): Snapshot => {
    if (r === 0) return snap;
    const k = (r * 7919) % snap.ingresses.length;
    return {
      ...snap,
      ingresses: snap.ingresses.map((i, j) =>
        j === k ? { ...i, metadata: { ...i.metadata, annotations: { ...i.metadata?.annotations, 'nginx.ingress.kubernetes.io/proxy-body-size': `${r}m` } } } : i,
      ),
    };
  };
  // One stage object for all rounds, as the sync worker keeps one: its caches are what a second sync sees.
  const stage = new AnnotationStage(config, createLogger('silent'));
  const builder = new IncrementalBuilder(stage, config, render, true);
  let parts = 0;
  for (let r = 0; r <= rounds; r += 1) {
    const t0 = performance.now();
    const c0 = process.cpuUsage();
    if (incremental) {
      const built = builder.build(changed(r));
      if (built.part !== undefined) parts += 1;
      bytes = built.conf.text.length;
      routesBytes = built.conf.routes?.length ?? 0;
      const cpu = process.cpuUsage(c0);
      if (r === 0) coldMs = Math.round(performance.now() - t0);
      else {
        for (const k of ['annotations', 'model', 'render'] as const) times[k].push(0);
        times.total.push(performance.now() - t0);
        times.cpu.push((cpu.user + cpu.system) / 1000);
      }
      continue;
    }
    const opts = modelOptions(config);
    const st = stage.run(changed(r), opts);
    const t1 = performance.now();
    const c1 = process.cpuUsage();
    const model = buildModel(st.snapshot, { ...modelOptions(config, tlsSettingsOf(st.global)), loadBalance: st.global.loadBalance ?? opts.loadBalance, memo: stage.memo }, st.input);
    const t2 = performance.now();
    const c2 = process.cpuUsage();
    const conf = renderNginxConf(model, { ...render, global: st.global, headers: st.headers, memo: stage.renderMemo });
    bytes = conf.text.length;
    routesBytes = conf.routes?.length ?? 0;
    const t3 = performance.now();
    const cpu = process.cpuUsage(c0);
    const c3 = process.cpuUsage();
    const ms = (a: NodeJS.CpuUsage, b: NodeJS.CpuUsage): number => (b.user + b.system - a.user - a.system) / 1000;
    if (r === 0) {
      coldMs = Math.round(t3 - t0);
      cold = {
        annotationsMs: Math.round(t1 - t0),
        modelMs: Math.round(t2 - t1),
        renderMs: Math.round(t3 - t2),
        cpuMs: Math.round((cpu.user + cpu.system) / 1000),
        annotationsCpuMs: Math.round(ms(c0, c1)),
        modelCpuMs: Math.round(ms(c1, c2)),
        renderCpuMs: Math.round(ms(c2, c3)),
      };
      continue;
    }
    times.annotations.push(t1 - t0);
    times.model.push(t2 - t1);
    times.render.push(t3 - t2);
    times.total.push(t3 - t0);
    // CPU time of the process (all threads, GC included): less sensitive than wall time to a loaded machine.
    times.cpu.push((cpu.user + cpu.system) / 1000);
    times.annotationsCpu.push(ms(c0, c1));
    times.modelCpu.push(ms(c1, c2));
    times.renderCpu.push(ms(c2, c3));
  }
  const median = (xs: number[]): number => Math.round([...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!);
  globalThis.gc?.();
  console.log(
    JSON.stringify({
      n,
      rounds,
      dynamic,
      ...(incremental ? { incremental, parts } : {}),
      coldMs,
      cold,
      annotationsMs: median(times.annotations),
      modelMs: median(times.model),
      renderMs: median(times.render),
      totalMs: median(times.total),
      totalCpuMs: median(times.cpu),
      annotationsCpuMs: median(times.annotationsCpu),
      modelCpuMs: median(times.modelCpu),
      renderCpuMs: median(times.renderCpu),
      reusedBlocks: stage.renderMemo.stats.reused,
      renderedBlocks: stage.renderMemo.stats.made,
      ...(dynamic ? { reusedRouteEntries: stage.renderMemo.routes.stats.reused, madeRouteEntries: stage.renderMemo.routes.stats.made } : {}),
      confKiB: Math.round(bytes / 1024),
      routesKiB: Math.round(routesBytes / 1024),
      heapMiB: Math.round(process.memoryUsage().heapUsed / 2 ** 20),
      rssMiB: Math.round(process.memoryUsage().rss / 2 ** 20),
    }),
  );
} finally {
  await rm(certDir, { recursive: true, force: true });
}
