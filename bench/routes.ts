// Measures snapshot → model for 1,000 / 10,000 / 100,000 paths on one host, and its route-table step before and
// against the quadratic reference compiler (scan vs indexed lookup). Pure CPU, no nginx. Run: npm run bench:routes [-- --rounds 5]
import { selectIngresses } from '../src/annotations/select.js';
import { buildModel } from '../src/model/build.js';
import { classSelector } from '../src/model/classes.js';
import type { Ingress, ModelOptions, Snapshot } from '../src/model/input.js';
import type { Model } from '../src/model/types.js';
import { compileLocations, normalizePath, type PathRule } from '../src/model/routes.js';
import { compileLocationsQuadratic } from '../test/support/routes-reference.js';
import { ingress, ingressClass, service, slice, type PathSpec } from '../test/support/objects.js';
import { intArg, percentile } from './lib.js';

const P = 'nginx.ingress.kubernetes.io';
const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};
const SIZES = [1_000, 10_000, 100_000];
/** The quadratic side is skipped above this many paths: 100,000 took 374 s with the quadratic reference. */
const OLD_MAX = 10_000;
const PER_INGRESS = 10;
const SERVICES = 50;

/** Path j of Ingress i: three levels deep, every third one Exact, so prefixes nest and Exact/Prefix ties occur. */
function pathOf(i: number, j: number): PathSpec {
  return { path: `/team${i % 100}/app${i}/v${j}`, type: j % 3 === 0 ? 'Exact' : 'Prefix', service: `svc${i % SERVICES}` };
}

function snapshotOf(paths: number): Snapshot {
  const ingresses: Ingress[] = Array.from({ length: paths / PER_INGRESS }, (_, i) =>
    ingress(`i${i}`, {
      host: 'one.bench.test',
      className: 'portico',
      created: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
      paths: Array.from({ length: PER_INGRESS }, (__, j) => pathOf(i, j)),
    }),
  );
  const names = Array.from({ length: SERVICES }, (_, s) => `svc${s}`);
  return { ingresses, ingressClasses: [ingressClass('portico')], services: names.map((n) => service(n)), endpointSlices: names.map((n) => slice(n, 8080, ['10.0.0.1'])), secrets: [], configMaps: [] };
}

/** The same rules the model builds for the host, as one tier (plus the empty no-host tier). */
function tiersOf(paths: number): PathRule[][] {
  const rules: PathRule[] = [];
  for (let i = 0; i < paths / PER_INGRESS; i++) {
    for (let j = 0; j < PER_INGRESS; j++) {
      const p = pathOf(i, j);
      const type = p.type === 'Exact' ? 'Exact' : 'Prefix';
      rules.push({ path: normalizePath(p.path, type), type, target: { kind: 'upstream', upstream: `default_${p.service}_80`, ingress: { kind: 'Ingress', namespace: 'default', name: `i${i}` } } });
    }
  }
  return [rules, []];
}

function build(snap: Snapshot): Model {
  const sel = selectIngresses(snap, new Map(), { prefix: P, riskLevel: 'High', allowSnippets: false, strictPaths: true, ours: classSelector(snap.ingressClasses, OPTS) });
  return buildModel(sel.snapshot, OPTS, sel.input);
}

function timed(f: () => unknown): number {
  const start = process.hrtime.bigint();
  f();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

function median(f: () => unknown, rounds: number): number {
  return percentile(
    Array.from({ length: rounds }, () => timed(f)),
    50,
  );
}

const ms = (x: number): string => (x >= 100 ? x.toFixed(0) : x.toFixed(1)).padStart(8);

function main(): void {
  const rounds = intArg(process.argv.slice(2), 'rounds', 5, 1, 20);
  const fallback = { kind: 'not-found' } as const;
  process.stdout.write(`snapshot → model, all paths on one host, ${PER_INGRESS} paths per Ingress, median of ${rounds} rounds (ms)\n`);
  process.stdout.write('   paths   model(after)   table(after)   table(before)  ratio   model(before, derived)\n');
  const warm = snapshotOf(SIZES[0] ?? 1000);
  for (let i = 0; i < 10; i++) build(warm); // JIT warm-up: the first builds run interpreted code
  for (const n of SIZES) {
    const snap = snapshotOf(n);
    const tiers = tiersOf(n);
    const model = build(snap);
    const locations = model.servers.find((s) => s.host === 'one.bench.test')?.locations.length ?? 0;
    if (locations !== compileLocations(tiers, fallback).length) throw new Error(`the bench tiers do not match the model (${locations} locations)`);
    const after = median(() => build(snap), rounds);
    const tableAfter = median(() => compileLocations(tiers, fallback), rounds);
    const old = n <= OLD_MAX ? median(() => compileLocationsQuadratic(tiers, fallback), n > 1000 ? 1 : rounds) : undefined;
    const before = old === undefined ? '        skipped' : ms(after - tableAfter + old).padStart(15);
    const ratio = old === undefined ? '      -' : `${(old / tableAfter).toFixed(0)}x`.padStart(7);
    process.stdout.write(`${String(n).padStart(8)}  ${ms(after)}       ${ms(tableAfter)}       ${old === undefined ? ' skipped' : ms(old)}     ${ratio}   ${before}\n`);
  }
  process.stdout.write(`table(before) is the quadratic reference compile (test/support/routes-reference.ts); skipped above ${OLD_MAX} paths (100,000 took 374 s).\n`);
  process.stdout.write('model(before, derived) = model(after) - table(after) + table(before): the rest of the build did not change.\n');
}

main();
