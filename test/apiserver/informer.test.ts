// client-node informers against the double: list+watch, catch-up after dropped watches, relist on 410, outages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ADD, DELETE, ERROR, NetworkingV1Api, UPDATE, makeInformer } from '@kubernetes/client-node';
import type { KubeConfig, V1Ingress } from '@kubernetes/client-node';
import type { ApiServerDouble, KubeObject } from '../support/apiserver/index.js';
import { startDouble, until } from './helpers.js';

function ing(name: string, ns = 'web', host = `${name}.example.com`): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name, namespace: ns },
    spec: { rules: [{ host, http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'svc', port: { number: 80 } } } }] } }] },
  };
}

/** An informer on all Ingresses that logs its callbacks; restartOnError follows client-node's documented pattern. */
function ingressInformer(kc: KubeConfig, restartOnError = false) {
  const net = kc.makeApiClient(NetworkingV1Api);
  const informer = makeInformer<V1Ingress>(kc, '/apis/networking.k8s.io/v1/ingresses', () => net.listIngressForAllNamespaces());
  const log: string[] = [];
  const errors: unknown[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let stopped = false;
  informer.on(ADD, (o) => log.push(`add ${o.metadata?.name ?? ''}`));
  informer.on(UPDATE, (o) => log.push(`update ${o.metadata?.name ?? ''}`));
  informer.on(DELETE, (o) => log.push(`delete ${o.metadata?.name ?? ''}`));
  informer.on(ERROR, (err) => {
    errors.push(err);
    if (!restartOnError || stopped) return;
    const timer = setTimeout(() => {
      timers.delete(timer);
      void informer.start().catch(() => undefined);
    }, 50);
    timers.add(timer);
  });
  const cache = () =>
    informer
      .list()
      .map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}:${o.spec?.rules?.[0]?.host ?? ''}`)
      .sort();
  const stop = async () => {
    stopped = true;
    for (const t of timers) clearTimeout(t);
    await informer.stop();
  };
  return { informer, log, errors, cache, stop };
}

/** What the double holds, in the same shape as the informer cache. */
function truth(api: ApiServerDouble): string[] {
  return api
    .list('Ingress')
    .map((o) => {
      const spec = o.spec as { rules?: { host?: string }[] } | undefined;
      return `${o.metadata.namespace ?? ''}/${o.metadata.name ?? ''}:${spec?.rules?.[0]?.host ?? ''}`;
    })
    .sort();
}

const countVerb = (api: ApiServerDouble, verb: string) => api.requests().filter((r) => r.kind === 'Ingress' && r.verb === verb).length;

void test('an informer lists, then watches ADDED, MODIFIED and DELETED into its cache', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  api.put(ing('a'));
  const inf = ingressInformer(kc);
  t.after(inf.stop);
  await inf.informer.start();
  await api.waitForWatches(1);
  api.put(ing('b', 'other'));
  api.put(ing('a', 'web', 'a2.example.com'));
  api.remove('Ingress', 'web', 'a');
  await until(() => inf.log.length >= 4, '4 callbacks');
  assert.deepEqual(inf.log, ['add a', 'add b', 'update a', 'delete a']);
  assert.deepEqual(inf.cache(), truth(api));
  const watchReq = api.requests().find((r) => r.verb === 'watch');
  assert.match(watchReq?.query ?? '', /resourceVersion=\d+/, 'the informer watches from the list resourceVersion');
});

void test('after a dropped watch the informer re-watches from its resourceVersion and catches up', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  api.put(ing('a'));
  api.put(ing('b'));
  const inf = ingressInformer(kc);
  t.after(inf.stop);
  await inf.informer.start();
  await api.waitForWatches(1);
  assert.equal(api.dropWatches(), 1);
  // these happen before client-node can reconnect: only the replay from its resourceVersion can deliver them
  api.put(ing('c'));
  api.put(ing('a', 'web', 'moved.example.com'));
  api.remove('Ingress', 'web', 'b');
  await until(() => inf.log.length >= 5, 'catch-up callbacks');
  assert.deepEqual(inf.log, ['add a', 'add b', 'add c', 'update a', 'delete b']);
  assert.deepEqual(inf.cache(), truth(api));
  assert.equal(countVerb(api, 'list'), 1, 'no relist was needed');
  assert.equal(countVerb(api, 'watch'), 2);
  assert.deepEqual(inf.errors, []);
});

void test('a 410 on the open watch makes the informer relist and end with the right cache', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  api.put(ing('a'));
  api.put(ing('b'));
  const inf = ingressInformer(kc);
  t.after(inf.stop);
  await inf.informer.start();
  await api.waitForWatches(1);
  assert.equal(api.expireResourceVersions(), 1);
  api.remove('Ingress', 'web', 'a');
  api.put(ing('b', 'web', 'b2.example.com'));
  api.put(ing('c'));
  await until(() => countVerb(api, 'list') === 2 && api.openWatches === 1, 'a relist and a new watch');
  await until(() => inf.cache().join() === truth(api).join(), 'the cache to match the server');
  assert.deepEqual(inf.log.slice(2).sort(), ['add c', 'delete a', 'update b']);
  assert.deepEqual(inf.errors, []);
});

void test('a watch restarted from an expired resourceVersion gets 410 and the informer relists', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  api.put(ing('a'));
  const inf = ingressInformer(kc);
  t.after(inf.stop);
  await inf.informer.start();
  await api.waitForWatches(1);
  api.dropWatches();
  api.expireResourceVersions({ keepOpenWatches: true }); // the informer's reconnect now starts from a too-old RV
  api.remove('Ingress', 'web', 'a');
  api.put(ing('z'));
  await until(() => inf.cache().join() === truth(api).join() && api.openWatches === 1, 'the cache to match the server');
  assert.equal(countVerb(api, 'list'), 2);
  assert.deepEqual(inf.log, ['add a', 'delete a', 'add z']);
});

void test('an API outage and restart on the same port: an informer that restarts on error recovers', async (t) => {
  const { api, kc } = await startDouble();
  t.after(() => api.stop());
  api.put(ing('a'));
  const inf = ingressInformer(kc, true);
  t.after(inf.stop);
  await inf.informer.start();
  await api.waitForWatches(1);
  const url = api.url;
  await api.stopAcceptingConnections();
  await until(() => inf.errors.length >= 1, 'the informer to see the outage');
  api.put(ing('b'));
  api.remove('Ingress', 'web', 'a');
  const rvBefore = Number(api.resourceVersion);
  await api.restart();
  assert.equal(api.url, url, 'same port');
  await until(() => inf.cache().join() === truth(api).join() && api.openWatches === 1, 'recovery after restart', 8000);
  assert.deepEqual(inf.cache(), ['web/b:b.example.com']);
  assert.equal(countVerb(api, 'list'), 2, 'the restarted watch cache answered 410, so the informer relisted');
  api.put(ing('c'));
  await until(() => inf.cache().length === 2, 'live events after restart');
  assert.ok(Number(api.resourceVersion) > rvBefore, 'resourceVersions continue across a restart');
});
