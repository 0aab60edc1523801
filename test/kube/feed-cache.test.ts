// One feed against the API server double: the handlers get every object whole, once, and client-node's cache keeps
// only names and resourceVersions of what they have (docs/adr/0055), unless lighten is off.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { KubernetesObject } from '@kubernetes/client-node';
import { ApiServerDouble, type KubeObject } from '../support/apiserver/index.js';
import { ingress } from '../support/objects.js';
import { until } from '../support/portico.js';
import { createLogger } from '../../src/log.js';
import { loadConnection } from '../../src/kube/connect.js';
import { Feed, type Change } from '../../src/kube/feed.js';
import { RESOURCES, makeApis } from '../../src/kube/resources.js';

const INGRESSES = RESOURCES.find((r) => r.kind === 'Ingress')!;

interface Seen {
  readonly listed: KubernetesObject[][];
  readonly changed: { change: Change; obj: KubernetesObject }[];
}

/** What the handlers were given, copied as they got it (the feed may change its own objects afterwards). */
function recorder(): { seen: Seen; handlers: { listed: (items: readonly KubernetesObject[]) => void; changed: (change: Change, obj: KubernetesObject) => void } } {
  const seen: Seen = { listed: [], changed: [] };
  const copy = (o: KubernetesObject): KubernetesObject => JSON.parse(JSON.stringify(o)) as KubernetesObject;
  return { seen, handlers: { listed: (items) => seen.listed.push(items.map(copy)), changed: (change, obj) => seen.changed.push({ change, obj: copy(obj) }) } };
}

const hostOf = (o: KubernetesObject | undefined): unknown => (o as { spec?: { rules?: { host?: string }[] } } | undefined)?.spec?.rules?.[0]?.host;

describe('a feed and client-node cache', () => {
  let api: ApiServerDouble;
  let kubeconfig: string;

  before(async () => {
    api = new ApiServerDouble({ bookmarkIntervalMs: 0 });
    await api.start();
    kubeconfig = await api.writeKubeconfig();
  });

  after(async () => {
    await api.stop();
  });

  const start = async (lighten: boolean): Promise<{ feed: Feed; seen: Seen }> => {
    const conn = loadConnection({ kubeconfig, apiserverHost: undefined });
    const { seen, handlers } = recorder();
    const feed = new Feed({ resource: INGRESSES, kc: conn.kc, apis: makeApis(conn.kc), namespace: undefined, labelSelector: undefined, lighten }, handlers, createLogger('warn'));
    await feed.start();
    return { feed, seen };
  };

  test('with lighten: each object reaches the handlers whole and once; the cache keeps its names and version', async () => {
    api.put(ingress('listed', { host: 'listed.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] }) as unknown as KubeObject);
    const { feed, seen } = await start(true);
    try {
      assert.equal(seen.listed.length, 1);
      assert.equal(hostOf(seen.listed[0]!.find((o) => o.metadata?.name === 'listed')), 'listed.test', 'the list reaches the handlers whole');
      await new Promise((r) => setTimeout(r, 200));
      assert.equal(seen.changed.length, 0, "the informer's own add of each listed object is not handled a second time");
      const cached = feed.cached().find((o) => o.metadata?.name === 'listed');
      assert.ok(cached, 'the cache still names the object');
      assert.deepEqual(Object.keys(cached), ['metadata'], 'the cache keeps no spec');
      assert.equal(cached.metadata?.namespace, 'default');
      assert.ok(cached.metadata?.resourceVersion, 'the cache keeps the resourceVersion it compares');

      api.put(ingress('listed', { host: 'changed.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] }) as unknown as KubeObject);
      await until('the change handled', () => seen.changed.length >= 1);
      assert.equal(seen.changed[0]!.change, 'update');
      assert.equal(hostOf(seen.changed[0]!.obj), 'changed.test', 'a watched change reaches the handlers whole');
      api.put(ingress('added', { host: 'added.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] }) as unknown as KubeObject);
      await until('the new object handled', () => seen.changed.length >= 2);
      assert.equal(seen.changed[1]!.change, 'add');
      assert.equal(hostOf(seen.changed[1]!.obj), 'added.test');
      assert.ok(
        feed.cached().every((o) => Object.keys(o).join() === 'metadata'),
        'watched objects are lightened too',
      );

      api.remove('Ingress', 'default', 'listed');
      await until('the deletion handled', () => seen.changed.length >= 3);
      assert.equal(seen.changed[2]!.change, 'delete');
      assert.equal(seen.changed[2]!.obj.metadata?.name, 'listed');
      assert.deepEqual(
        feed.cached().map((o) => o.metadata?.name),
        ['added'],
      );
    } finally {
      feed.stop();
      api.remove('Ingress', 'default', 'added');
    }
  });

  test('a relist after the watch expired: what went meanwhile is deleted, the rest comes whole', async () => {
    api.put(ingress('stays', { host: 'stays.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] }) as unknown as KubeObject);
    api.put(ingress('goes', { host: 'goes.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] }) as unknown as KubeObject);
    const { feed, seen } = await start(true);
    try {
      api.expireResourceVersions();
      api.remove('Ingress', 'default', 'goes');
      api.dropWatches('end');
      await until('the relist and the deletion handled', () => seen.listed.length >= 2 && seen.changed.some((c) => c.change === 'delete'));
      const deleted = seen.changed.find((c) => c.change === 'delete');
      assert.equal(deleted?.obj.metadata?.name, 'goes', 'a relist names what is gone (from the lightened cache)');
      assert.equal(hostOf(seen.listed[1]!.find((o) => o.metadata?.name === 'stays')), 'stays.test');
    } finally {
      feed.stop();
      api.remove('Ingress', 'default', 'stays');
    }
  });

  test('without lighten (a namespace selector reads the caches again): the cache keeps whole objects', async () => {
    api.put(ingress('whole', { host: 'whole.test', paths: [{ path: '/', type: 'Prefix', service: 'one' }] }) as unknown as KubeObject);
    const { feed } = await start(false);
    try {
      assert.equal(hostOf(feed.cached().find((o) => o.metadata?.name === 'whole')), 'whole.test');
    } finally {
      feed.stop();
      api.remove('Ingress', 'default', 'whole');
    }
  });
});
