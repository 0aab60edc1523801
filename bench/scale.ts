// bench/scale: Portico at N = 100 / 1,000 / 10,000 Ingresses (local mode): time, memory and changes → served.
//
//   npm run bench:scale -- [--sizes 100,1000,10000] [--source manifests|api|both] [--dynamic-routes] [--incremental]
//
// --dynamic-routes: Portico runs with --enable-dynamic-routes (docs/adr/0014): Ingresses without per-location
// annotations (80% of the generated ones) are served by the Lua route table, so the new Ingress is a table push.
//
// Each N: a generated cluster (bench/scale-gen.ts) written as JSON files, model + render timed in-process, then the
// real `portico --manifests` started (with the environment the image sets, docs/adr/0058) and measured until every
// sampled route is served, plus one of each change
// (endpoint changes: a series of up to 40, reported as p50 / p99 / max).
// A size is skipped when /proc/meminfo's MemAvailable is short of what nginx needs there (~0.16 MiB per server
// block per copy, NGINX-NOTES.md; up to 3 copies around a reload) plus 2 GiB. Results: a table on stdout,
// bench/results/scale.json and bench/results/scale.svg (the SVG plots the first source's rows).
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../test/support/certs.js';
import { freePort, REPO } from '../test/support/portico.js';
import { backendConf, fmt, startNginx } from './lib.js';
import { closeAgent } from './scale-probe.js';
import { scaleSvg } from './scale-plot.js';
import { measure, type ScaleRow, type SourceName } from './scale-run.js';

const argv = process.argv.slice(2);
const sizesArg = argv.find((a) => a.startsWith('--sizes='))?.slice(8) ?? (argv.includes('--sizes') ? argv[argv.indexOf('--sizes') + 1] : undefined);
const SIZES = (sizesArg ?? '100,1000,10000').split(',').map(Number);
const sourceArg = argv.find((a) => a.startsWith('--source='))?.slice(9) ?? (argv.includes('--source') ? argv[argv.indexOf('--source') + 1] : 'manifests');
if (!['manifests', 'api', 'both'].includes(sourceArg ?? '')) throw new Error(`--source: manifests, api or both, got ${sourceArg}`);
const SOURCES: SourceName[] = sourceArg === 'both' ? ['manifests', 'api'] : [sourceArg as SourceName];
if (SIZES.some((n) => !Number.isInteger(n) || n < 10 || n > 100_000)) throw new Error(`--sizes: integers 10-100000, got ${sizesArg}`);
const DYNAMIC = argv.includes('--dynamic-routes');
/** --incremental: Portico runs with --incremental-sync (docs/adr/0039); results go beside the others (-incremental). */
const INCREMENTAL = argv.includes('--incremental');

async function memAvailableMiB(): Promise<number> {
  return Number(/MemAvailable:\s+(\d+)/.exec(await readFile('/proc/meminfo', 'utf8'))?.[1] ?? 0) / 1024;
}

const COLUMNS: readonly [string, (r: ScaleRow) => string][] = [
  ['source', (r) => r.source],
  ['routes', (r) => r.routes ?? 'rendered'],
  ['N', (r) => r.n.toLocaleString('en')],
  ['conf KiB', (r) => fmt(r.confKiB)],
  ['model+render ms', (r) => fmt(r.modelRenderMs)],
  ['first served ms', (r) => (r.firstServedMs === undefined ? '-' : fmt(r.firstServedMs))],
  ['first sync ms', (r) => fmt(r.firstSyncMs)],
  ['first sync CPU s', (r) => (r.firstSyncCpuS === undefined ? '-' : r.firstSyncCpuS.toFixed(1))],
  ['sync log ms', (r) => fmt(r.syncLogMs)],
  ['nginx -t ms', (r) => fmt(r.nginxTestMs)],
  ['SIGHUP ms', (r) => fmt(r.sighupMs)],
  ['ctl MiB', (r) => fmt(r.controllerMiB)],
  ['nginx MiB', (r) => fmt(r.nginxMiB)],
  ['new Ingress ms', (r) => fmt(r.newIngressMs)],
  ['path rm → 404 ms', (r) => fmt(r.pathRemovedMs)],
  // endpoint changes: several per size (bench/scale-run.ts ENDPOINT_SAMPLES); older results have one sample
  ['endpoint p50 ms', (r) => fmt(r.endpointMs)],
  ['endpoint p99 ms', (r) => (r.endpointP99Ms === undefined ? '-' : fmt(r.endpointP99Ms))],
  ['endpoint max ms', (r) => (r.endpointMaxMs === undefined ? '-' : fmt(r.endpointMaxMs))],
  ['endpoint n', (r) => String(r.endpointSamples ?? 1)],
  ['cert ms', (r) => fmt(r.certMs)],
  ['reloads', (r) => r.reloads],
];

function table(rows: readonly ScaleRow[]): string {
  const head = `| ${COLUMNS.map(([h]) => h).join(' | ')} |`;
  return [head, `|${COLUMNS.map(() => '---|').join('')}`, ...rows.map((r) => `| ${COLUMNS.map(([, f]) => f(r)).join(' | ')} |`)].join('\n');
}

async function main(): Promise<void> {
  const certDir = await mkdtemp(join(tmpdir(), 'portico-scale-certs-'));
  const ports = [await freePort(), await freePort(), await freePort(), await freePort()];
  const backend = await startNginx('scale-backend', backendConf(ports), '0-1', ports[0]!);
  const rows: ScaleRow[] = [];
  const loads: number[] = [];
  const started = Date.now();
  try {
    const certs = [0, 1, 2, 3].map(() => makeCert(certDir, '*.scale.test', { sans: ['*.scale.test'] }));
    const rotated = makeCert(certDir, '*.scale.test', { sans: ['*.scale.test'] });
    for (const source of SOURCES)
      for (const n of SIZES) {
        // with dynamic routes only the annotated fifth of the hosts are server blocks (bench/scale-gen.ts)
        const need = n * (DYNAMIC ? 0.2 : 1) * 0.16 * 3 + 2048;
        const have = await memAvailableMiB();
        if (have < need) {
          console.log(`N=${n}: skipped, MemAvailable ${fmt(have)} MiB < ${fmt(need)} MiB`);
          continue;
        }
        const t0 = Date.now();
        const row = await measure(
          n,
          ports,
          { pool: certs, rotated },
          (step) => {
            loads.push(loadavg()[0] ?? 0);
            process.stdout.write(`\r\x1b[K[scale] ${source} N=${n.toLocaleString('en')}: ${step} (${((Date.now() - t0) / 1000).toFixed(0)} s, load ${fmt(loadavg()[0] ?? 0, 1)})`);
          },
          { source, dynamic: DYNAMIC, incremental: INCREMENTAL },
        ).catch((err: unknown) => {
          console.log(`\n${source} N=${n} failed: ${String(err)}`);
          return undefined;
        });
        process.stdout.write('\n');
        if (row) rows.push(row);
      }
  } finally {
    await backend.stop();
    await rm(certDir, { recursive: true, force: true });
    closeAgent();
  }
  const load = `load average (1 min) during the run: ${fmt(Math.min(...loads), 1)}-${fmt(Math.max(...loads), 1)} on ${(await readFile('/proc/cpuinfo', 'utf8')).split('\nprocessor').length} CPUs`;
  console.log(`\n${table(rows)}\n\n${load}; total ${((Date.now() - started) / 1000).toFixed(0)} s`);
  console.log('reloads: one letter per change (new Ingress, path removed, the endpoint series, certificate): R = a reload happened, 0 = none');
  const out = join(REPO, 'bench/results');
  await mkdir(out, { recursive: true });
  // --dynamic-routes writes beside the rendered path's results, never over them
  const base = `${DYNAMIC ? 'scale-dynamic' : 'scale'}${INCREMENTAL ? '-incremental' : ''}`;
  await writeFile(join(out, `${base}.json`), `${JSON.stringify({ date: new Date().toISOString(), load, rows }, null, 1)}\n`);
  await writeFile(
    join(out, `${base}.svg`),
    scaleSvg(
      rows.filter((r) => r.source === SOURCES[0]),
      `bench/scale, ${new Date().toISOString().slice(0, 10)}, 2-core shared machine, ${load}`,
    ),
  );
  console.log(`wrote ${join(out, `${base}.svg`)} and ${base}.json`);
}

await main();
