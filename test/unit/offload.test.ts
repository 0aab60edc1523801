// The build worker (worker/offload.ts): a sync's model comes back as changes (model-wire.ts) equal to the whole,
// and a worker that dies is reported and replaced on the next request.
import { test } from 'node:test';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import type { Worker } from 'node:worker_threads';
import { parseFlags } from '../../src/config/flags.js';
import { buildAndRender, renderOptions } from '../../src/pipeline/build.js';
import { AnnotationStage } from '../../src/pipeline/annotations.js';
import { Offload } from '../../src/worker/offload.js';
import { AHEAD_MAX_INGRESSES, HeadBeside } from '../../src/controller/head-beside.js';
import { pack } from '../../src/worker/wire.js';
import { createLogger } from '../../src/log.js';
import { EMPTY_SNAPSHOT, type Secret, type Snapshot } from '../../src/model/input.js';
import type { Server } from '../../src/model/types.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { trim, type Kind, type KubeObject } from '../../src/store/kinds.js';

/** An Ingress of class portico: `host`'s path / to the Service web. */
const ing = (name: string, host: string) => ingress(name, { className: 'portico', host, paths: [{ path: '/', type: 'Prefix', service: 'web' }] });
/** The class and the Service the Ingresses of `ing` need. */
const base = { ...EMPTY_SNAPSHOT, ingressClasses: [ingressClass('portico')], services: [service('web')] };

test('a dead build worker is replaced and the next build succeeds', async () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-offload-test'], {});
  const deaths: string[] = [];
  const o = new Offload(config, renderOptions(config, undefined), (why) => {
    deaths.push(why);
  });
  try {
    const snap = {
      ...EMPTY_SNAPSHOT,
      ingressClasses: [ingressClass('portico')],
      services: [service('web')],
      ingresses: [ingress('a', { className: 'portico', host: 'a.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] })],
    };
    const first = await o.build(snap);
    assert.deepEqual(
      first.model.servers.map((s) => s.host),
      ['a.test', '_'],
    );
    // The worker dies (as out of memory would end it): the death is reported, and the next build starts a new one.
    await (o as unknown as { worker: Worker }).worker.terminate();
    for (let i = 0; i < 100 && deaths.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    assert.equal(deaths.length, 1);
    assert.match(deaths[0] ?? '', /the build worker exited/);
    const again = await o.build(snap);
    assert.equal(again.conf.hash, first.conf.hash, 'the new worker renders the same configuration');
    assert.equal(o.starts, 2);
  } finally {
    await o.close();
  }
});

test('successive builds see each change: a changed, an added and a removed Ingress (only changes cross to the worker)', async () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-offload-test'], {});
  const o = new Offload(config, renderOptions(config, undefined));
  try {
    const a = ing('a', 'a.test');
    const hosts = async (ingresses: ReturnType<typeof ing>[]) => (await o.build({ ...base, ingresses })).model.servers.map((s) => s.host);
    assert.deepEqual(await hosts([a, ing('b', 'b.test')]), ['a.test', 'b.test', '_']);
    assert.deepEqual(await hosts([a, ing('b', 'b2.test'), ing('c', 'c.test')]), ['a.test', 'b2.test', 'c.test', '_']);
    assert.deepEqual(await hosts([ing('c', 'c.test')]), ['c.test', '_']);
  } finally {
    await o.close();
  }
});

test('the model comes back as changes: equal to an in-process build after each change, unchanged servers kept as the same objects, a changed Secret reaching its server', async () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-offload-test'], {});
  const o = new Offload(config, renderOptions(config, undefined));
  try {
    const ing = (name: string, host: string, annotations?: Record<string, string>) =>
      ingress(name, { className: 'portico', host, paths: [{ path: '/', type: 'Prefix', service: 'web' }], ...(annotations ? { annotations } : {}) });
    const users = (line: string): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'users', namespace: 'default' }, stringData: { auth: line } });
    const guarded = ing('g', 'g.test', { 'nginx.ingress.kubernetes.io/auth-type': 'basic', 'nginx.ingress.kubernetes.io/auth-secret': 'users' });
    const base = { ...EMPTY_SNAPSHOT, ingressClasses: [ingressClass('portico')], services: [service('web')], endpointSlices: [slice('web', 80, ['10.0.0.1'])] };
    const snaps: Snapshot[] = [
      { ...base, ingresses: [ing('a', 'a.test'), ing('b', 'b.test'), guarded], secrets: [users('bob:{SHA}xjbo4jj9evl+LlAPjG8PTAvtr7A=')] },
      { ...base, ingresses: [ing('a', 'a.test'), ing('b', 'b.test', { 'nginx.ingress.kubernetes.io/proxy-body-size': '2m' }), guarded], secrets: [users('bob:{SHA}xjbo4jj9evl+LlAPjG8PTAvtr7A=')] },
      // Only the Secret's content changes: the server's settings differ only in a Sensitive value.
      { ...base, ingresses: [ing('a', 'a.test'), ing('b', 'b.test', { 'nginx.ingress.kubernetes.io/proxy-body-size': '2m' }), guarded], secrets: [users('eve:{SHA}xjbo4jj9evl+LlAPjG8PTAvtr7A=')] },
      { ...base, endpointSlices: [slice('web', 80, ['10.0.0.2'])], ingresses: [ing('a', 'a.test'), guarded], secrets: [users('eve:{SHA}xjbo4jj9evl+LlAPjG8PTAvtr7A=')] },
    ];
    const stage = new AnnotationStage(config, createLogger('silent'));
    const servers: Server[][] = [];
    for (const snap of snaps) {
      const got = await o.build(snap);
      const want = buildAndRender(stage, snap, config, renderOptions(config, undefined));
      // pack() shows each Sensitive's value, which deepEqual cannot see in a private field.
      assert.deepEqual(pack(got.model).value, pack(want.model).value);
      assert.equal(got.conf.hash, want.conf.hash);
      servers.push([...got.model.servers]);
    }
    const host = (i: number, h: string) => servers[i]?.find((s) => s.host === h);
    assert.equal(host(1, 'a.test'), host(0, 'a.test'), 'an unchanged server is the object already held');
    assert.notEqual(host(1, 'b.test'), host(0, 'b.test'), 'a changed server crossed again');
    assert.notEqual(host(2, 'g.test'), host(1, 'g.test'), 'a server whose Secret changed crossed again');
    const usersOf = (s: Server | undefined) => JSON.stringify(pack(s).value).match(/(bob|eve):/)?.[1];
    assert.deepEqual([usersOf(host(1, 'g.test')), usersOf(host(2, 'g.test'))], ['bob', 'eve']);
  } finally {
    await o.close();
  }
});

test('a snapshot delta the worker refuses fails its build, and the next build sends the whole snapshot', async () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-offload-test'], {});
  const o = new Offload(config, renderOptions(config, undefined));
  try {
    await o.build({ ...base, ingresses: [ing('a', 'a.test'), ing('b', 'b.test')] });
    // this side loses track of the Ingresses the worker holds (as if a delta had gone missing)
    (o as unknown as { sender: { held: Map<string, readonly object[]> } }).sender.held.set('ingresses', []);
    const next = { ...base, ingresses: [ing('a', 'a.test'), ing('c', 'c.test')] };
    await assert.rejects(o.build(next), /snapshot delta/);
    const again = await o.build(next);
    assert.deepEqual(
      again.model.servers.map((s) => s.host),
      ['a.test', 'c.test', '_'],
    );
  } finally {
    await o.close();
  }
});

/** A build worker and the startup builder over it (controller/head-beside.ts), closed after `run`. */
async function withHeadBeside(run: (o: Offload, head: HeadBeside) => Promise<void>): Promise<void> {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-offload-test'], {});
  const o = new Offload(config, renderOptions(config, undefined));
  try {
    await run(o, new HeadBeside(o, config, renderOptions(config, undefined), createLogger('silent')));
  } finally {
    await o.close();
  }
}

test('a build started ahead answers the next build of its snapshot; another snapshot drops it and is built as asked', async () => {
  await withHeadBeside(async (o, head) => {
    const whole: Snapshot = { ...base, ingresses: [ing('a', 'a.test'), ing('b', 'b.test')] };
    o.ahead(whole);
    o.ahead(whole); // the same snapshot again: one build
    const part: Snapshot = { ...base, ingresses: [ing('a', 'a.test')] };
    head.split(part, whole);
    // the head is built on this thread (no request to the worker), the whole by the worker, asked once
    const asked = (): number => (o as unknown as { next: number }).next;
    const before = asked();
    assert.deepEqual(
      (await head.build(part)).model.servers.map((s) => s.host),
      ['a.test', '_'],
    );
    const built = await head.build(whole);
    assert.equal(asked(), before, 'neither the head nor the whole asked the worker again');
    assert.deepEqual(
      built.model.servers.map((s) => s.host),
      ['a.test', 'b.test', '_'],
    );
    // a later build of another snapshot is its own, and sees every change
    const next: Snapshot = { ...base, ingresses: [ing('b', 'b.test'), ing('c', 'c.test')] };
    o.ahead(next);
    assert.deepEqual(
      (await o.build({ ...next, ingresses: [ing('c', 'c.test')] })).model.servers.map((s) => s.host),
      ['c.test', '_'],
    );
    assert.deepEqual(
      (await o.build(next)).model.servers.map((s) => s.host),
      ['b.test', 'c.test', '_'],
    );
  });
});

test('the startup head is built on the main thread only for a whole of at most AHEAD_MAX_INGRESSES', async () => {
  await withHeadBeside(async (o, head) => {
    const part: Snapshot = { ...base, ingresses: [ing('a', 'a.test')] };
    const large = { ...base, ingresses: Array.from({ length: AHEAD_MAX_INGRESSES + 1 }, () => part.ingresses[0]!) };
    head.split(part, large);
    // not split: the head goes to the worker (which holds no snapshot ahead), and builds the same
    assert.deepEqual(
      (await head.build(part)).model.servers.map((s) => s.host),
      ['a.test', '_'],
    );
    assert.equal((o as unknown as { early?: unknown }).early, undefined, 'nothing was started ahead');
  });
});

test('objects read before the first snapshot are parsed by the worker ahead of it, and its build sees exactly them; after it nothing is sent ahead', async () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-offload-test'], {});
  const o = new Offload(config, renderOptions(config, undefined));
  try {
    // as the store keeps them: each with its JSON text until it crosses
    const stored = <T extends KubeObject>(obj: T, kind: Kind): T => trim(obj, kind);
    const objects = {
      a: stored(ing('a', 'a.test'), 'Ingress'),
      b: stored(ing('b', 'b.test'), 'Ingress'),
      web: stored(service('web'), 'Service'),
      s: stored(slice('web', 80, ['10.0.0.1']), 'EndpointSlice'),
    };
    o.preload(Object.values(objects));
    const snap: Snapshot = { ...base, services: [objects.web], endpointSlices: [objects.s], ingresses: [objects.a, objects.b] };
    const got = await o.build(snap);
    const want = buildAndRender(new AnnotationStage(config, createLogger('silent')), snap, config, renderOptions(config, undefined));
    assert.deepEqual(pack(got.model).value, pack(want.model).value);
    assert.equal(got.conf.hash, want.conf.hash);
    const c = stored(ing('c', 'c.test'), 'Ingress');
    o.preload([c]); // after the first snapshot: ignored, and c's text crosses with the next delta
    const next = await o.build({ ...snap, ingresses: [objects.a, objects.b, c] });
    assert.deepEqual(
      next.model.servers.map((s) => s.host),
      ['a.test', 'b.test', 'c.test', '_'],
    );
  } finally {
    await o.close();
  }
});

test("a first read's files read by the worker are built from its own copies: the snapshot names them by id alone", async () => {
  const config = parseFlags(['--manifests', '/nonexistent', '--work-dir', '/tmp/portico-offload-test'], {});
  const dir = await mkdtemp(join(tmpdir(), 'portico-offload-read-'));
  const o = new Offload(config, renderOptions(config, undefined));
  try {
    const items = [ingressClass('portico'), ing('a', 'a.test'), ing('b', 'b.test'), service('web'), slice('web', 80, ['10.0.0.1', '10.0.0.2'])];
    await writeFile(join(dir, 'all.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    const files = (await o.readAhead(dir, ['all.json'])) ?? [];
    // as the store keeps them (trim() freezes each as it is)
    const got = files.flatMap((f) => f.objects).map((obj) => trim(obj, obj.kind as Kind));
    const of = (kind: string): KubeObject[] => got.filter((obj) => obj.kind === kind);
    const snap = { ...EMPTY_SNAPSHOT, ingressClasses: of('IngressClass'), ingresses: of('Ingress'), services: of('Service'), endpointSlices: of('EndpointSlice') } as unknown as Snapshot;
    const worker = (o as unknown as { worker: Worker }).worker;
    const texts: unknown[] = [];
    const post = worker.postMessage.bind(worker);
    worker.postMessage = (m: { delta?: { lists: Record<string, { added: unknown[][] }> } }) => {
      for (const l of Object.values(m.delta?.lists ?? {})) for (const a of l.added) if (a[1] !== undefined) texts.push(a[1]);
      post(m);
    };
    const built = await o.build(snap);
    assert.deepEqual(texts, [], 'no object crossed as text: the worker held each one');
    const want = buildAndRender(new AnnotationStage(config, createLogger('silent')), snap, config, renderOptions(config, undefined));
    assert.deepEqual(pack(built.model).value, pack(want.model).value);
    assert.equal(built.conf.hash, want.conf.hash);
    assert.deepEqual(
      built.model.upstreams[0]?.endpoints.map((e) => e.address),
      ['10.0.0.1', '10.0.0.2'],
    );
  } finally {
    await o.close();
    await rm(dir, { recursive: true, force: true });
  }
});
