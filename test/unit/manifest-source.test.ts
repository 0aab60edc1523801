// Local mode's folder source reads again only the files that changed, and the store ends as a whole read would
// leave it: a file edited, added, removed, and a key defined in two files (the later file wins, whichever changed).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ManifestSource } from '../../src/sources/manifests.js';
import { Store } from '../../src/store/store.js';
import { wireText } from '../../src/store/kinds.js';
import { createLogger } from '../../src/log.js';
import { ingress, service, slice } from '../support/objects.js';
import { endpointList, type StoredEndpointSlice } from '../../src/model/packed-endpoints.js';

/** Writes `items` as one List file of `dir`, in one rename (a watcher never sees it half written). */
const putIn =
  (dir: string) =>
  async (file: string, items: unknown[]): Promise<void> => {
    await writeFile(join(dir, `.${file}.tmp`), JSON.stringify({ apiVersion: 'v1', kind: 'List', items }));
    await rename(join(dir, `.${file}.tmp`), join(dir, file));
  };

test('after each change the store holds what the files hold, the later file winning a key defined twice', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-source-'));
  const store = new Store();
  const source = new ManifestSource(dir, store, createLogger('silent'));
  const put = putIn(dir);
  /** name → first endpoint address of each EndpointSlice, and the Services' names, as the store holds them. */
  const held = (): { slices: Record<string, string>; services: string[] } => {
    const snap = store.snapshot() as { endpointSlices?: readonly StoredEndpointSlice[]; services?: readonly { metadata?: { name?: string } }[] };
    return {
      slices: Object.fromEntries((snap.endpointSlices ?? []).map((s) => [s.metadata?.name ?? '', endpointList(s)[0]?.addresses[0] ?? ''])),
      services: (snap.services ?? []).map((s) => s.metadata?.name ?? '').sort(),
    };
  };
  const settles = async (want: ReturnType<typeof held>): Promise<void> => {
    for (let i = 0; i < 200 && JSON.stringify(held()) !== JSON.stringify(want); i += 1) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(held(), want);
  };
  try {
    await put('a.json', [service('a'), slice('a', 80, ['10.0.0.1'], { name: 'a-0' })]);
    await put('b.json', [service('b'), slice('b', 80, ['10.0.1.1'], { name: 'b-0' })]);
    await source.start();
    assert.deepEqual(held(), { slices: { 'a-0': '10.0.0.1', 'b-0': '10.0.1.1' }, services: ['a', 'b'] });
    await put('a.json', [service('a'), slice('a', 80, ['10.0.0.2'], { name: 'a-0' })]);
    await settles({ slices: { 'a-0': '10.0.0.2', 'b-0': '10.0.1.1' }, services: ['a', 'b'] });
    // c.json sorts after b.json: its b-0 wins, and stays the winner when b.json changes
    await put('c.json', [slice('b', 80, ['10.0.2.1'], { name: 'b-0' }), service('c')]);
    await settles({ slices: { 'a-0': '10.0.0.2', 'b-0': '10.0.2.1' }, services: ['a', 'b', 'c'] });
    await put('b.json', [service('b'), slice('b', 80, ['10.0.1.9'], { name: 'b-0' })]);
    await new Promise((r) => setTimeout(r, 300));
    assert.deepEqual(held(), { slices: { 'a-0': '10.0.0.2', 'b-0': '10.0.2.1' }, services: ['a', 'b', 'c'] });
    await rm(join(dir, 'c.json'));
    await settles({ slices: { 'a-0': '10.0.0.2', 'b-0': '10.0.1.9' }, services: ['a', 'b'] });
    // an object that moves from one file to another stays
    await put('a.json', [service('a')]);
    await put('b.json', [service('b'), slice('b', 80, ['10.0.1.9'], { name: 'b-0' }), slice('a', 80, ['10.0.0.3'], { name: 'a-0' })]);
    await settles({ slices: { 'a-0': '10.0.0.3', 'b-0': '10.0.1.9' }, services: ['a', 'b'] });
    await rm(join(dir, 'a.json'));
    await settles({ slices: { 'a-0': '10.0.0.3', 'b-0': '10.0.1.9' }, services: ['b'] });
  } finally {
    source.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('readOnce (portico render): the objects a watched read gives, without content resourceVersions, and no watch after', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-source-'));
  try {
    const yaml = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  namespace: x\n  creationTimestamp: "2026-01-01T00:00:00Z"\nspec:\n  ports:\n  - port: 80\n';
    await writeFile(join(dir, 'a.yaml'), yaml);
    const watched = new Store();
    const w = new ManifestSource(dir, watched, createLogger('silent'));
    await w.start();
    w.stop();
    const once = new Store();
    await new ManifestSource(dir, once, createLogger('silent')).readOnce();
    const strip = (o: { metadata?: object }): unknown => ({ ...o, metadata: { ...o.metadata, resourceVersion: undefined } });
    const [a] = watched.snapshot().services ?? [];
    const [b] = once.snapshot().services ?? [];
    assert.equal(typeof (a as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion, 'string', 'a watched read versions each object');
    assert.equal((b as { metadata?: { resourceVersion?: unknown } }).metadata?.resourceVersion, undefined, 'a single read does not');
    assert.deepEqual(strip(b as { metadata?: object }), strip(a as { metadata?: object }));
    // a file written after readOnce is never read: nothing watches the folder
    await writeFile(join(dir, 'b.yaml'), yaml.replace('name: a', 'name: b'));
    await new Promise((r) => setTimeout(r, 700));
    assert.equal(once.count('Service'), 1);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('above 100 files (light polls), a folder replaced as a whole is still read, and so is a later edit in the new folder', { timeout: 60_000 }, async () => {
  const root = await mkdtemp(join(tmpdir(), 'portico-source-'));
  const dir = join(root, 'manifests');
  const store = new Store();
  const source = new ManifestSource(dir, store, createLogger('silent'));
  const fill = async (into: string, address: string): Promise<void> => {
    await mkdir(into);
    await Promise.all(Array.from({ length: 150 }, (_, i) => writeFile(join(into, `s${String(i)}.json`), JSON.stringify(service(`s${String(i)}`)))));
    await writeFile(join(into, 'z.json'), JSON.stringify(slice('s0', 80, [address], { name: 's0-0' })));
  };
  const address = (): string | undefined => {
    const s = (store.snapshot() as { endpointSlices?: readonly StoredEndpointSlice[] }).endpointSlices?.[0];
    return s === undefined ? undefined : endpointList(s)[0]?.addresses[0];
  };
  const settles = async (want: string): Promise<void> => {
    // polls come every 500 ms at this size, and the one after the swap is a full one (the folder's inode changed)
    for (let i = 0; i < 50 && address() !== want; i += 1) await new Promise((r) => setTimeout(r, 100));
    assert.equal(address(), want);
  };
  try {
    await fill(dir, '10.0.0.1');
    await source.start();
    assert.equal(address(), '10.0.0.1');
    // the folder swapped for another one (the watcher keeps watching the old one)
    await fill(join(root, 'next'), '10.0.0.2');
    await rename(dir, join(root, 'old'));
    await rename(join(root, 'next'), dir);
    await settles('10.0.0.2');
    await writeFile(join(dir, 'z.json'), JSON.stringify(slice('s0', 80, ['10.0.0.3'], { name: 's0-0' })));
    await settles('10.0.0.3');
  } finally {
    source.stop();
    await rm(root, { recursive: true, force: true });
  }
});

test('a file that stops parsing keeps what it gave until it parses again; removed and written back broken, it gives only what parses', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-source-'));
  const store = new Store();
  const source = new ManifestSource(dir, store, createLogger('silent'));
  const names = (): string[] => ((store.snapshot() as { services?: readonly { metadata?: { name?: string } }[] }).services ?? []).map((s) => s.metadata?.name ?? '').sort();
  const settles = async (want: string[]): Promise<void> => {
    for (let i = 0; i < 200 && JSON.stringify(names()) !== JSON.stringify(want); i += 1) await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(names(), want);
  };
  const yaml = (...svcs: string[]): string => svcs.map((n) => `apiVersion: v1\nkind: Service\nmetadata:\n  name: ${n}\n  namespace: default\nspec:\n  ports: [{port: 80}]\n`).join('---\n');
  try {
    await writeFile(join(dir, 'a.yaml'), yaml('one', 'two'));
    await source.start();
    assert.deepEqual(names(), ['one', 'two']);
    // broken after its first document: the file's objects stay as they were (not just the part that parses)
    await writeFile(join(dir, 'a.yaml'), `${yaml('three')}---\nmetadata:\n  name: [unclosed\n`);
    await new Promise((r) => setTimeout(r, 700));
    assert.deepEqual(names(), ['one', 'two']);
    await writeFile(join(dir, 'a.yaml'), yaml('three'));
    await settles(['three']);
    await rm(join(dir, 'a.yaml'));
    await settles([]);
    // a new file of the same name that does not parse in full gives what parses, nothing of the removed one
    await writeFile(join(dir, 'a.yaml'), `${yaml('four')}---\nmetadata:\n  name: [unclosed\n`);
    await settles(['four']);
  } finally {
    source.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a watched read versions each object by its content: the stored object is the JSON it crosses as, and an unchanged object keeps its version', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-source-'));
  const store = new Store();
  const source = new ManifestSource(dir, store, createLogger('silent'));
  const put = putIn(dir);
  type Versioned = { metadata?: { name?: string; resourceVersion?: string; creationTimestamp?: string; managedFields?: unknown } };
  const svc = (name: string): Versioned | undefined => (store.snapshot().services as readonly Versioned[] | undefined)?.find((s) => s.metadata?.name === name);
  try {
    const managed = { ...service('m'), metadata: { ...service('m').metadata, managedFields: [{ manager: 'kubectl' }] } };
    await put('a.json', [service('a'), service('b'), managed]);
    await source.start();
    const a = svc('a');
    const rv = a?.metadata?.resourceVersion ?? '';
    assert.match(rv, /^[0-9a-f]{16}$/);
    assert.equal(typeof a?.metadata?.creationTimestamp, 'string', 'a creationTimestamp as the API server gives');
    assert.ok(Object.isFrozen(a) && Object.isFrozen(a?.metadata));
    assert.deepEqual(JSON.parse(wireText(a ?? {})), a, 'the text it crosses to the build worker as is the stored object');
    assert.notEqual(svc('b')?.metadata?.resourceVersion, rv, 'another content, another version');
    assert.equal(svc('m')?.metadata?.managedFields, undefined, 'what the model never reads is still dropped');
    // b changes, a does not: a keeps its version and its stored object
    await put('a.json', [service('a'), { ...service('b'), spec: { ports: [{ port: 81 }] } }, managed]);
    for (let i = 0; i < 200 && (svc('b') as { spec?: { ports?: { port: number }[] } } | undefined)?.spec?.ports?.[0]?.port !== 81; i += 1) await new Promise((r) => setTimeout(r, 10));
    assert.equal(svc('a')?.metadata?.resourceVersion, rv);
    assert.equal(svc('a'), a, 'an unchanged object stays the stored one');
  } finally {
    source.stop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('a creationTimestamp the manifest lacks: an Ingress gone for one read comes back as old as it was; other kinds keep theirs while they stay', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-source-'));
  const store = new Store();
  const source = new ManifestSource(dir, store, createLogger('silent'));
  const put = putIn(dir);
  type Stamped = { metadata?: { name?: string; creationTimestamp?: string }; spec?: unknown };
  const find = (kind: 'ingresses' | 'services', name: string): Stamped | undefined => (store.snapshot()[kind] as readonly Stamped[] | undefined)?.find((o) => o.metadata?.name === name);
  const until = async (done: () => boolean): Promise<void> => {
    for (let i = 0; i < 300 && !done(); i += 1) await new Promise((r) => setTimeout(r, 10));
    assert.ok(done());
  };
  const undated = <T extends { metadata?: object }>(o: T): T => ({ ...o, metadata: { ...o.metadata, creationTimestamp: undefined } });
  const web = undated(ingress('web', { host: 'web.test', paths: [{ path: '/', type: 'Prefix', service: 's' }] }));
  try {
    await put('a.json', [web, undated(service('s'))]);
    await source.start();
    const created = find('ingresses', 'web')?.metadata?.creationTimestamp ?? '';
    const svcCreated = find('services', 's')?.metadata?.creationTimestamp ?? '';
    assert.match(created, /^\d{4}-\d\d-\d\dT/);
    await new Promise((r) => setTimeout(r, 20));
    // the Service moves to another file and changes: the same object, as old as it was
    await put('b.json', [{ ...undated(service('s')), spec: { ports: [{ port: 81 }] } }]);
    await put('a.json', [web]);
    await until(() => JSON.stringify(find('services', 's')?.spec).includes('81'));
    assert.equal(find('services', 's')?.metadata?.creationTimestamp, svcCreated);
    // the Ingress's file is removed and written back: an Ingress the store lost for a read keeps its age (host ownership)
    await rm(join(dir, 'a.json'));
    await until(() => find('ingresses', 'web') === undefined);
    await put('a.json', [web]);
    await until(() => find('ingresses', 'web') !== undefined);
    assert.equal(find('ingresses', 'web')?.metadata?.creationTimestamp, created);
  } finally {
    source.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
