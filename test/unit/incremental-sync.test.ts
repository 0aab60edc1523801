// An incremental sync (src/worker/incremental.ts, docs/adr/0039) gives exactly what the whole build gives: for every
// fixture case and for generated changes (an Ingress removed, copied onto its hosts, cut, one on a new host, a
// Service or Secret changed), the model, the served Ingresses, the Problems, nginx.conf and the route table. The
// render after an incremental sync takes kept servers' parts by identity (docs/adr/0043): its text is also compared
// with a render that keeps nothing, and one builder goes through every change and back, so parts kept across many
// renders are checked too.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { basename } from 'node:path';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseFlags } from '../../src/config/flags.js';
import type { Config } from '../../src/config/config.js';
import { createLogger } from '../../src/log.js';
import { EMPTY_SNAPSHOT, type Ingress, type Snapshot } from '../../src/model/input.js';
import type { Model } from '../../src/model/types.js';
import type { RenderedConf } from '../../src/render/nginx-conf.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { IncrementalBuilder } from '../../src/worker/incremental.js';
import { caseFlags, fixtureCases, loadSnapshot } from '../support/fixtures.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { makeCert } from '../support/certs.js';
import { generate, makeApp } from '../../bench/scale-gen.js';

const KINDS = ['model', 'annotated', 'golden', 'render'];
const log = createLogger('silent');

/** A change: its name and the snapshot after it. */
type Change = readonly [string, Snapshot];

const nameOf = (o: { metadata?: { namespace?: string; name?: string } }): string => `${o.metadata?.namespace ?? 'default'}/${o.metadata?.name ?? ''}`;

/** A new copy of an object (the store makes one for every change), with a label so it is not the same content. */
function touched<T extends { metadata?: { labels?: Record<string, string> } }>(o: T): T {
  return { ...o, metadata: { ...o.metadata, labels: { ...o.metadata?.labels, 'portico.test/touched': 'yes' } } };
}

/** The Ingress with its last path cut (a rule with several), else with one more annotation. */
function cut(i: Ingress): Ingress {
  const rules = i.spec?.rules ?? [];
  const k = rules.findIndex((r) => (r.http?.paths.length ?? 0) > 1);
  if (k >= 0) return { ...i, spec: { ...i.spec, rules: rules.map((r, j) => (j === k && r.http ? { ...r, http: { paths: r.http.paths.slice(0, -1) } } : r)) } };
  return { ...i, metadata: { ...i.metadata, annotations: { ...i.metadata?.annotations, 'nginx.ingress.kubernetes.io/proxy-body-size': '3m' } } };
}

/** The generated changes of a snapshot: one per Ingress, Service and Secret, and an Ingress on a host no one names. */
function changesOf(snap: Snapshot): Change[] {
  const out: Change[] = [];
  const ings = snap.ingresses;
  for (const [k, i] of ings.entries()) {
    out.push([`remove ${nameOf(i)}`, { ...snap, ingresses: ings.filter((_, j) => j !== k) }]);
    const meta = { ...i.metadata, name: `${i.metadata?.name ?? ''}-copy` };
    delete meta.creationTimestamp;
    out.push([`copy ${nameOf(i)}`, { ...snap, ingresses: [...ings, { ...i, metadata: meta }] }]);
    out.push([`cut ${nameOf(i)}`, { ...snap, ingresses: ings.map((x, j) => (j === k ? cut(x) : x)) }]);
  }
  for (const [k, s] of snap.services.entries()) out.push([`touch Service ${nameOf(s)}`, { ...snap, services: snap.services.map((x, j) => (j === k ? touched(x) : x)) }]);
  for (const [k, s] of snap.secrets.entries()) out.push([`touch Secret ${nameOf(s)}`, { ...snap, secrets: snap.secrets.map((x, j) => (j === k ? touched(x) : x)) }]);
  const ns = ings[0]?.metadata?.namespace ?? 'default';
  const className = ings.find((i) => i.spec?.ingressClassName)?.spec?.ingressClassName;
  const fresh = ingress('fresh', { namespace: ns, host: 'fresh.incremental.test', ...(className ? { className } : {}), paths: [{ path: '/', type: 'Prefix', service: 'fresh' }] });
  out.push([
    'an Ingress on a new host, with its Service',
    { ...snap, ingresses: [...ings, fresh], services: [...snap.services, service('fresh', ns)], endpointSlices: [...snap.endpointSlices, slice('fresh', 8080, ['10.9.9.9'], { namespace: ns })] },
  ]);
  return out;
}

/** The model with its lists whose order no one reads (served Ingresses, Problems) sorted. */
function normal(m: Model): unknown {
  return { ...m, ingresses: m.ingresses.map((r) => JSON.stringify(r)).sort(), problems: m.problems.map((p) => JSON.stringify(p)).sort() };
}

function confOf(c: RenderedConf): unknown {
  // the table as pushed, whatever order its hosts are in (a table made from the last one lists new hosts last)
  return { text: c.text, hash: c.hash, routes: c.routes === undefined ? undefined : (JSON.parse(c.routes) as unknown), routeHosts: c.routeHosts && [...c.routeHosts].sort() };
}

/** Warm-ups (IncrementalBuilder.warm) that ran, over every check with `warm`. */
let warmed = 0;

/**
 * Builds `base` then `next` both ways, each with a stage of its own; asserts equality and says whether it was a part.
 * `warm`: the incremental builder warms up after building `base`, as the build worker does after a whole build.
 */
function check(config: Config, base: Snapshot, next: Snapshot, what: string, warm = false): boolean {
  const render = renderOptions(config, undefined);
  const inc = new IncrementalBuilder(new AnnotationStage(config, log), config, render, true);
  inc.build(base);
  if (warm && inc.warm(base)) warmed += 1;
  const got = inc.build(next);
  const stage = new AnnotationStage(config, log);
  buildAndRender(stage, base, config, render);
  // a trial renders without the render memo: nothing kept from the last render
  const bare = buildAndRender(stage, next, config, render, true);
  const want = buildAndRender(stage, next, config, render);
  assert.deepEqual(normal(got.model), normal(want.model), `${what}: the model (${got.why ?? `part of ${String(got.part)}`})`);
  assert.deepEqual(confOf(got.conf), confOf(want.conf), `${what}: nginx.conf and the route table`);
  assert.deepEqual(confOf(got.conf), confOf(bare.conf), `${what}: nginx.conf and the route table, against a render that keeps nothing`);
  return got.part !== undefined;
}

/**
 * One incremental builder through every change and back to `base` after each, against a whole build of the same
 * history rendered without the render memo; returns how many builds were parts.
 */
function chain(config: Config, base: Snapshot, changes: readonly Change[]): number {
  const render = renderOptions(config, undefined);
  const inc = new IncrementalBuilder(new AnnotationStage(config, log), config, render, true);
  const stage = new AnnotationStage(config, log);
  inc.build(base);
  buildAndRender(stage, base, config, render);
  let n = 0;
  const steps = changes.flatMap(([what, next]): Change[] => [
    [what, next],
    [`back from: ${what}`, base],
  ]);
  for (const [what, snap] of steps) {
    const got = inc.build(snap);
    const bare = buildAndRender(stage, snap, config, render, true);
    buildAndRender(stage, snap, config, render);
    assert.deepEqual(confOf(got.conf), confOf(bare.conf), `${what}: nginx.conf and the route table after a chain of incremental builds (${got.why ?? `part of ${String(got.part)}`})`);
    assert.deepEqual(normal(got.model), normal(bare.model), `${what}: the model after a chain of incremental builds`);
    if (got.part !== undefined) n += 1;
  }
  return n;
}

const HEAD = 12;
let parts = 0;
let wholes = 0;
for (const kind of KINDS) {
  for (const dir of fixtureCases(kind)) {
    for (const strict of [false, true]) {
      test(`${kind}/${basename(dir)}${strict ? ' (strict host ownership)' : ''}: every change built in part equals the whole build`, () => {
        const flags = ['--manifests', dir, '--allow-snippet-annotations', ...caseFlags(dir), ...(strict ? ['--strict-host-ownership'] : [])];
        const config = parseFlags(flags, {});
        const snap = loadSnapshot(dir);
        const changes = changesOf(snap);
        for (const [what, next] of changes) {
          if (check(config, snap, next, what)) parts += 1;
          else wholes += 1;
          check(config, snap, next, `${what}, after a warm-up`, true);
        }
        chain(config, snap, changes);
      });
    }
  }
}

test('the fixture changes: most are built in part (the rest need the whole: hostless Ingresses, Gateways, stream)', () => {
  assert.ok(parts > wholes, `${parts} in part, ${wholes} whole`);
});

test('the fixture changes after a warm-up: the warm-up ran where a part could be built, and every result equals the whole', () => {
  assert.ok(warmed > 0, 'no warm-up ran');
});

test('a generated cluster: new apps, removals, cuts and host-sharing copies are built in part and equal the whole', () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-incremental-'));
  try {
    const certs = [0, 1].map(() => makeCert(dir, '*.scale.test', { sans: ['*.scale.test'] }));
    const c = generate(200, [], certs);
    const config = parseFlags(['--manifests', dir], {});
    const base: Snapshot = {
      ...EMPTY_SNAPSHOT,
      ingressClasses: [ingressClass('portico')],
      ingresses: c.apps.map((a) => a.ingress),
      services: c.apps.map((a) => a.service),
      endpointSlices: c.apps.map((a) => a.slice),
      secrets: c.apps.flatMap((a) => (a.secret ? [a.secret] : [])),
    };
    // The changes of the first dozen apps (the same objects: only what a change makes is new), the rest as they are.
    const rest = <T>(l: readonly T[]): readonly T[] => l.slice(HEAD);
    const head = { ...base, ingresses: base.ingresses.slice(0, HEAD), services: base.services.slice(0, HEAD), secrets: base.secrets.slice(0, 2) };
    const app = makeApp(201, { namespaces: 20, probeEvery: 1, probePorts: [], certs }, () => 0.5);
    const changes: Change[] = [
      [
        'a new app (Ingress, Service, EndpointSlice)',
        { ...base, ingresses: [...base.ingresses, app.ingress], services: [...base.services, app.service], endpointSlices: [...base.endpointSlices, app.slice] },
      ],
      ...changesOf(head).map(([w, s]): Change => [
        w,
        { ...s, ingresses: [...s.ingresses, ...rest(base.ingresses)], services: [...s.services, ...rest(base.services)], secrets: [...s.secrets, ...base.secrets.slice(2)] },
      ]),
    ];
    for (const [what, next] of changes) assert.ok(check(config, base, next, what), `${what}: built in part`);
    const before = warmed;
    for (const [what, next] of changes) assert.ok(check(config, base, next, `${what}, after a warm-up`, true), `${what}: built in part after a warm-up`);
    assert.equal(warmed - before, changes.length, 'a warm-up ran before each change');
    assert.equal(chain(config, base, changes), 2 * changes.length, 'every build of the chain, there and back, in part');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
