// Watch streams of the double through client-node's Watch: events, replay, selectors, bookmarks, 410, hooks.
/* eslint-disable @typescript-eslint/no-unsafe-class-instance-assignment --
   client-node's V1* models are data-only classes; object literals are how callers build request bodies. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CoreV1Api, Watch } from '@kubernetes/client-node';
import type { KubeConfig } from '@kubernetes/client-node';
import { startDouble, until } from './helpers.js';

interface Seen {
  type: string;
  object: { kind?: string; apiVersion?: string; code?: number; reason?: string; metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string> } };
}

/** A watch that records its events and how it ended; abort() it when done. */
async function watch(kc: KubeConfig, path: string, query: Record<string, string>) {
  const events: Seen[] = [];
  let done: { err: unknown } | undefined;
  const ctl = await new Watch(kc).watch(
    path,
    query,
    (type: string, object: Seen['object']) => {
      events.push({ type, object });
    },
    (err: unknown) => {
      done = { err };
    },
  );
  return {
    events,
    ended: () => done,
    abort: () => {
      ctl.abort();
    },
  };
}

const names = (events: Seen[]) => events.map((e) => `${e.type} ${e.object.metadata?.name ?? ''}`);
const cm = (name: string, labels: Record<string, string> = {}) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'web', labels }, data: { v: name } });

void test('a watch from a list resourceVersion sees ADDED, MODIFIED and DELETED in order', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  api.put(cm('before'));
  const core = kc.makeApiClient(CoreV1Api);
  const list = await core.listNamespacedConfigMap({ namespace: 'web' });
  const w = await watch(kc, '/api/v1/namespaces/web/configmaps', { resourceVersion: list.metadata?.resourceVersion ?? '' });
  t.after(w.abort);
  await api.waitForWatches(1);
  await core.createNamespacedConfigMap({ namespace: 'web', body: { metadata: { name: 'a' } } });
  await core.patchNamespacedConfigMap({ name: 'a', namespace: 'web', body: [{ op: 'add', path: '/data', value: { k: 'v' } }] });
  await core.deleteNamespacedConfigMap({ name: 'a', namespace: 'web' });
  api.put(cm('b')); // seen; the next one is in another namespace and must not be
  api.put({ ...cm('elsewhere'), metadata: { name: 'elsewhere', namespace: 'kube-system' } });
  await until(() => w.events.length >= 4, '4 events');
  assert.deepEqual(names(w.events), ['ADDED a', 'MODIFIED a', 'DELETED a', 'ADDED b']);
  const rvs = w.events.map((e) => Number(e.object.metadata?.resourceVersion));
  assert.deepEqual(
    rvs,
    [...rvs].sort((a, b) => a - b),
    'resourceVersions increase',
  );
  assert.equal(new Set(rvs).size, 4, 'the DELETED event carries the resourceVersion of the delete');
  assert.equal(w.events[0]?.object.kind, 'ConfigMap', 'watch objects carry kind and apiVersion');
});

void test('a watch without resourceVersion starts with synthetic ADDED events; one from N replays after N', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  api.put(cm('a'));
  const mid = api.resourceVersion;
  api.put(cm('b'));
  api.remove('ConfigMap', 'web', 'a');
  const fresh = await watch(kc, '/api/v1/configmaps', {});
  t.after(fresh.abort);
  const replay = await watch(kc, '/api/v1/configmaps', { resourceVersion: mid });
  t.after(replay.abort);
  await until(() => fresh.events.length >= 1 && replay.events.length >= 2, 'initial events');
  assert.deepEqual(names(fresh.events), ['ADDED b']);
  assert.deepEqual(names(replay.events), ['ADDED b', 'DELETED a']);
  const future = await watch(kc, '/api/v1/configmaps', { resourceVersion: String(Number(api.resourceVersion) + 2) });
  t.after(future.abort);
  await api.waitForWatches(3);
  for (const name of ['c', 'd', 'e']) api.put(cm(name));
  await until(() => future.events.length >= 1 && fresh.events.length >= 4, 'live events');
  assert.deepEqual(names(future.events), ['ADDED e'], 'a watch from a future resourceVersion starts after it');
});

void test('a watch from a resourceVersion older than the history gets one ERROR event with a 410 Status', async (t) => {
  const { api, kc } = await startDouble({ historyLimit: 3 });
  t.after(() => api.stop());
  api.put(cm('a'));
  const old = api.resourceVersion;
  for (let i = 0; i < 5; i++) api.put(cm('a', { i: String(i) }));
  const w = await watch(kc, '/api/v1/namespaces/web/configmaps', { resourceVersion: old });
  await until(() => w.ended() !== undefined, 'the watch to end');
  assert.equal(w.events.length, 1);
  assert.equal(w.events[0]?.type, 'ERROR');
  assert.deepEqual([w.events[0]?.object.kind, w.events[0]?.object.code, w.events[0]?.object.reason], ['Status', 410, 'Expired']);
  assert.equal(w.ended()?.err, null, 'the stream ends cleanly after the ERROR event');
  const recent = await watch(kc, '/api/v1/namespaces/web/configmaps', { resourceVersion: String(Number(api.resourceVersion) - 2) });
  t.after(recent.abort);
  await until(() => recent.events.length >= 2, 'replay inside the window');
  assert.deepEqual(names(recent.events), ['MODIFIED a', 'MODIFIED a']);
});

void test('expireResourceVersions sends open watches a 410 ERROR and makes every earlier resourceVersion too old', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  api.put(cm('a'));
  const rv = api.resourceVersion;
  const w = await watch(kc, '/api/v1/namespaces/web/configmaps', { resourceVersion: rv });
  await api.waitForWatches(1);
  assert.equal(api.expireResourceVersions(), 1);
  await until(() => w.ended() !== undefined, 'the open watch to end');
  assert.deepEqual(
    w.events.map((e) => [e.type, e.object.code]),
    [['ERROR', 410]],
  );
  const again = await watch(kc, '/api/v1/namespaces/web/configmaps', { resourceVersion: rv });
  await until(() => again.ended() !== undefined, 'a watch from the old resourceVersion to end');
  assert.equal(again.events[0]?.object.code, 410);
  const current = await watch(kc, '/api/v1/namespaces/web/configmaps', { resourceVersion: api.resourceVersion });
  t.after(current.abort);
  api.put(cm('b'));
  await until(() => current.events.length >= 1, 'a watch from the current resourceVersion to work');
  assert.deepEqual(names(current.events), ['ADDED b']);
});

void test('label-selected watches see objects enter as ADDED and leave as DELETED', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  api.put(cm('a', { tier: 'back' }));
  const w = await watch(kc, '/api/v1/namespaces/web/configmaps', { resourceVersion: api.resourceVersion, labelSelector: 'tier=front' });
  t.after(w.abort);
  await api.waitForWatches(1);
  api.put(cm('a', { tier: 'front' }));
  api.put({ ...cm('a', { tier: 'front' }), data: { v: 'changed' } });
  api.put(cm('a', { tier: 'back' }));
  api.put(cm('b', { tier: 'back' }));
  await until(() => w.events.length >= 3, '3 events');
  assert.deepEqual(names(w.events), ['ADDED a', 'MODIFIED a', 'DELETED a']);
});

void test('bookmarks only when allowed, carrying only kind, apiVersion and resourceVersion', async (t) => {
  const { api, kc } = await startDouble({ bookmarkIntervalMs: 30 });
  t.after(() => api.stop());
  api.put(cm('a'));
  const withMarks = await watch(kc, '/api/v1/namespaces/web/configmaps', { resourceVersion: api.resourceVersion, allowWatchBookmarks: 'true' });
  t.after(withMarks.abort);
  const without = await watch(kc, '/api/v1/namespaces/web/configmaps', { resourceVersion: api.resourceVersion });
  t.after(without.abort);
  await until(() => withMarks.events.length >= 2, '2 bookmarks');
  assert.ok(withMarks.events.every((e) => e.type === 'BOOKMARK'));
  assert.deepEqual(withMarks.events[0]?.object, { kind: 'ConfigMap', apiVersion: 'v1', metadata: { resourceVersion: api.resourceVersion } });
  assert.equal(without.events.length, 0);
});

void test('timeoutSeconds ends the stream; dropWatches ends or resets every open stream', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  const timed = await watch(kc, '/api/v1/configmaps', { timeoutSeconds: '1' });
  const ended = await watch(kc, '/api/v1/configmaps', {});
  const ended2 = await watch(kc, '/api/v1/configmaps', {});
  await api.waitForWatches(3);
  await until(() => timed.ended() !== undefined, 'timeoutSeconds', 3000);
  assert.equal(timed.ended()?.err, null);
  const raw = await fetch(`${api.url}/api/v1/configmaps?watch=1`);
  assert.equal(raw.headers.get('transfer-encoding'), 'chunked');
  assert.equal(raw.headers.get('content-type'), 'application/json');
  await api.waitForWatches(3);
  assert.equal(api.dropWatches('end'), 3);
  await until(() => ended.ended() !== undefined && ended2.ended() !== undefined, 'dropped watches to end');
  assert.equal(ended.ended()?.err, null);
  await raw.body?.cancel();
  const cut = await watch(kc, '/api/v1/configmaps', {});
  await api.waitForWatches(1);
  assert.equal(api.dropWatches('reset'), 1);
  await until(() => cut.ended() !== undefined, 'a reset watch to end');
  assert.ok(cut.ended()?.err instanceof Error, 'a reset connection reaches the client as an error');
});
