// Portico against the API server double: objects created, changed and deleted through the API change what nginx serves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { slice } from '../support/objects.js';
import { syncCount, until, type Running } from '../support/portico.js';
import { put, route, serves, startCluster, type Cluster } from './cluster.js';

describe('kube source', () => {
  let c: Cluster;
  let p: Running;

  before(async () => {
    c = await startCluster(['one', 'two', 'three']);
    put(c.api, route('app', 'app.test', 'one'));
    p = await c.portico();
  });

  after(async () => {
    assert.deepEqual(await c.stop(), [0], 'SIGTERM stops Portico (and its watches) with exit code 0');
  });

  test('the state listed at start is served by the first sync', async () => {
    await serves(p, 'app.test', 'one');
    await until('the first sync logged', () => syncCount(p.output, 'reload') >= 1);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(syncCount(p.output, 'reload'), 1, 'one reload for the whole first state, not one per kind');
    assert.ok(p.output.some((l) => l.includes('"msg":"connected to the Kubernetes API"') && l.includes(c.api.url)));
  });

  test('an Ingress created, changed and deleted through the API', async () => {
    put(c.api, route('new', 'new.test', 'two'));
    const created = await serves(p, 'new.test', 'two');
    put(c.api, route('new', 'new.test', 'three'));
    const changed = await serves(p, 'new.test', 'three');
    c.api.remove('Ingress', 'default', 'new');
    const deleted = await serves(p, 'new.test', '404');
    process.stdout.write(`# applied in: create ${created} ms, change ${changed} ms, delete ${deleted} ms\n`);
  });

  test('EndpointSlice churn is applied (through Lua while the Service keeps endpoints)', async () => {
    const one = c.backends.get('one')!;
    const two = c.backends.get('two')!;
    await new Promise((r) => setTimeout(r, 500)); // the log line of the last test's sync may still be in the pipe
    const reloads = syncCount(p.output, 'reload');
    for (let i = 0; i < 10; i++) {
      const b = i % 2 === 0 ? two : one;
      put(c.api, slice('one', b.port, ['127.0.0.1']));
      await serves(p, 'app.test', b.id);
    }
    assert.equal(syncCount(p.output, 'reload'), reloads, 'endpoint changes go through Lua');
    c.api.remove('EndpointSlice', 'default', 'one-abc');
    await serves(p, 'app.test', '503');
    put(c.api, slice('one', one.port, ['127.0.0.1']));
    await serves(p, 'app.test', 'one');
  });

  test('a Service deleted and created again', async () => {
    c.api.remove('Service', 'default', 'one');
    await serves(p, 'app.test', '503');
    put(c.api, { apiVersion: 'v1', kind: 'Service', metadata: { name: 'one', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80 }] } });
    await serves(p, 'app.test', 'one');
  });

  test('a Secret of a type Portico never reads is not listed or watched', () => {
    const secretCalls = c.api.requests().filter((r) => r.kind === 'Secret');
    assert.ok(secretCalls.length >= 4, 'two lists and two watches');
    for (const r of secretCalls) assert.match(decodeURIComponent(r.query), /fieldSelector=type=(kubernetes\.io\/tls|Opaque)/);
  });
});
