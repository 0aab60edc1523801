// A folder's first read split with the build worker (worker/split-read.ts, docs/adr/0066): the store ends as a read on
// one thread leaves it, each object the worker holds is the store's to the byte, and a worker that fails leaves the
// files to the main thread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManifestSource } from '../../src/sources/manifests.js';
import { PLACEHOLDER } from '../../src/sources/manifest-stamp.js';
import type { StampedFile } from '../../src/sources/manifest-files.js';
import { Store } from '../../src/store/store.js';
import { peekWireText, type KubeObject } from '../../src/store/kinds.js';
import { readForMain, receiveBatch, type ReadBatch } from '../../src/worker/split-read.js';
import { WORKER_IDS_FROM } from '../../src/worker/snapshot-wire.js';
import { createLogger } from '../../src/log.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';

const list = (items: unknown[]): string => JSON.stringify({ apiVersion: 'v1', kind: 'List', items });
const aged = (name: string): KubeObject => {
  const i = ingress(name, { className: 'portico', host: `${name}.test`, paths: [{ path: '/', type: 'Prefix', service: 'web' }] });
  return { ...i, metadata: { name, namespace: 'default' } }; // no creationTimestamp: the stamp gives its age
};

/** A folder of twelve files: JSON Lists, YAML, a cluster-scoped kind, an object the store trims, a bad manifest. */
async function folder(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-split-read-'));
  for (let i = 0; i < 10; i += 1)
    await writeFile(join(dir, `f${String(i).padStart(2, '0')}.json`), list([aged(`app-${String(i)}`), service(`svc-${String(i)}`), slice(`svc-${String(i)}`, 80, ['10.0.0.1', '10.0.0.2'])]));
  const managed = { ...service('managed'), metadata: { name: 'managed', namespace: 'default', managedFields: [{ manager: 'kubectl' }] } };
  await writeFile(join(dir, 'g-more.json'), list([ingressClass('portico'), managed, { kind: 'Ingress', apiVersion: 'networking.k8s.io/v1' }]));
  await writeFile(join(dir, 'h-yaml.yaml'), 'apiVersion: v1\nkind: Service\nmetadata:\n  name: from-yaml\n  annotations:\n    note: "two\\nlines"\nspec:\n  ports:\n  - port: 80\n');
  return dir;
}

/** The build worker's part run on this thread: what it holds by id, and the batches it posts. */
function asWorker(dir: string, names: readonly string[]): { held: Map<number, unknown>; batches: ReadBatch[] } {
  const held = new Map<number, unknown>();
  const batches: ReadBatch[] = [];
  readForMain(
    { dir, names, placeholder: PLACEHOLDER },
    (id, o) => held.set(id, o),
    (b) => batches.push(structuredClone(b)),
  );
  return { held, batches };
}

test('the worker stamps as the main thread does: each object it holds is the one the main thread parses, under the same id', async () => {
  const dir = await folder();
  try {
    const names = ['f00.json', 'g-more.json', 'h-yaml.yaml', 'gone.json'];
    const { held, batches } = asWorker(dir, names);
    const adopted = new Map<number, object>();
    const files: StampedFile[] = batches.flatMap((b) => receiveBatch(b, (o, id) => adopted.set(id, o)));
    assert.deepEqual(
      files.map((f) => [f.name, f.objects.length]),
      [
        ['f00.json', 3],
        ['g-more.json', 2],
        ['h-yaml.yaml', 1],
        ['gone.json', 0],
      ],
    );
    // every object the worker holds is adopted under its id, equal to the worker's own (the YAML's line break too)
    assert.equal(adopted.size, held.size);
    for (const [id, o] of adopted) {
      assert.ok(id >= WORKER_IDS_FROM);
      assert.deepEqual(o, held.get(id));
      assert.equal(peekWireText(o), undefined, 'no text kept for the wire: the worker holds it');
    }
    const all = files.flatMap((f) => f.objects);
    // the Service with managedFields is not held: the store trims a copy of it, which crosses as any other object
    const managed = all.find((o) => o.metadata?.name === 'managed');
    assert.ok(managed && ![...adopted.values()].includes(managed));
    assert.match((all.find((o) => o.metadata?.name === 'from-yaml')?.metadata?.annotations ?? {})['note'] ?? '', /two\nlines/);
    // each object carries a content version; the Ingress without a creationTimestamp is aged by the stamp
    for (const o of all) assert.match(o.metadata?.resourceVersion ?? '', /^[0-9a-f]{16}$/);
    assert.deepEqual(
      files.flatMap((f) => f.aged.map((o) => o.metadata?.name)),
      ['app-0'],
    );
    assert.deepEqual(files[1]?.errors.length, 1, 'the Ingress without a name is the file error it is on one thread');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a first read split with the worker leaves the store as a read on one thread, its ages kept for the next read; a worker that fails leaves the files to this thread', async () => {
  const dir = await folder();
  const contents = (store: Store): unknown => {
    const snap = store.snapshot() as unknown as Record<string, readonly KubeObject[] | undefined>;
    // creation times given at the read differ between the two reads: compared without them, and without the versions they enter
    const plain = (o: KubeObject): unknown => ({ ...o, metadata: { ...o.metadata, creationTimestamp: undefined, resourceVersion: undefined } });
    return Object.fromEntries(Object.entries(snap).map(([k, v]) => [k, Array.isArray(v) ? (v as KubeObject[]).map(plain) : v]));
  };
  const one = new Store();
  const alone = new ManifestSource(dir, one, createLogger('silent'));
  const split = new Store();
  let asked: readonly string[] = [];
  const preloaded: string[] = [];
  const withWorker = new ManifestSource(dir, split, createLogger('silent'), undefined, {
    preload: (objects) => preloaded.push(...objects.map((o) => o.metadata?.name ?? '')),
    read: (d, names) => {
      asked = names;
      const { batches } = asWorker(d, names);
      return Promise.resolve(batches.flatMap((b) => receiveBatch(b, () => undefined)));
    },
  });
  const failing = new Store();
  const failed = new ManifestSource(dir, failing, createLogger('silent'), undefined, { preload: () => undefined, read: () => Promise.reject(new Error('the build worker exited')) });
  try {
    await alone.start();
    await withWorker.start();
    await failed.start();
    assert.ok(asked.length > 0 && asked.length < 12, `the worker read part of the folder (${String(asked.length)} files)`);
    assert.ok(!preloaded.includes('app-9'), 'what the worker read is not sent ahead again');
    assert.deepEqual(contents(split), contents(one));
    assert.deepEqual(contents(failing), contents(one));
    assert.deepEqual(
      withWorker.unreadable().map((u) => u.file),
      alone.unreadable().map((u) => u.file),
    );
    // an Ingress the worker aged keeps its age when its file is read again here
    const age = (s: Store, name: string): string | undefined => (s.snapshot() as unknown as { ingresses: KubeObject[] }).ingresses.find((i) => i.metadata?.name === name)?.metadata?.creationTimestamp;
    const before = age(split, 'app-9');
    assert.ok(before !== undefined && asked.includes('f09.json'));
    await writeFile(join(dir, 'f09.json'), list([aged('app-9'), service('svc-9'), slice('svc-9', 80, ['10.0.0.3'])]));
    for (let i = 0; i < 200 && (split.snapshot() as unknown as { endpointSlices: KubeObject[] }).endpointSlices.every((s) => !JSON.stringify(s).includes('10.0.0.3')); i += 1)
      await new Promise((r) => setTimeout(r, 10));
    assert.equal(age(split, 'app-9'), before);
  } finally {
    alone.stop();
    withWorker.stop();
    failed.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
