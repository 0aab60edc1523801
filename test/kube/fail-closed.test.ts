// Attacks 3-5 against the API server double: one tenant's bad value gets a Warning Event on its own
// Ingress and costs nothing else (the same host's owner, other hosts, /healthz, later changes), also when the bad
// Ingress is already there when Portico starts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../support/certs.js';
import { BAD_VALUES, badObjects } from '../support/bad-values.js';
import { type KubeObject } from '../support/apiserver/index.js';
import { put, route, serves, serviceObjects, startCluster, healthz, namespace, type Cluster } from './cluster.js';
import { until, type Running } from '../support/portico.js';

interface EventView {
  regarding: { name: string; namespace: string };
  type: string;
  note: string;
}

describe('one bad value costs its own Ingress only (API server double, real nginx)', () => {
  let cluster: Cluster;
  let portico: Running;
  let certDir = '';

  const warnings = (name = 'bad'): EventView[] => (cluster.api.list('events.k8s.io/v1/Event', 'evil') as unknown as EventView[]).filter((e) => e.type === 'Warning' && e.regarding.name === name);
  const removeBad = (objects: unknown[]): void => {
    for (const o of objects as KubeObject[]) cluster.api.remove(o.kind ?? '', o.metadata.namespace ?? 'evil', o.metadata.name ?? '');
  };
  /** The bad Ingress of a case renamed, so its Events are its own. */
  const renamed = (objects: unknown[], name: string): unknown[] => (objects as KubeObject[]).map((o) => (o.kind === 'Ingress' ? { ...o, metadata: { ...o.metadata, name } } : o));

  before(async () => {
    cluster = await startCluster(['victim'], ['default', 'evil']);
    put(cluster.api, namespace('evil'));
    for (const o of serviceObjects('victim', cluster.backends.get('victim')!, 'evil')) put(cluster.api, o);
    put(cluster.api, route('owner', 'shared.test', 'victim'));
    put(cluster.api, route('elsewhere', 'other.test', 'victim'));
    certDir = mkdtempSync(join(tmpdir(), 'portico-fck-'));
    // The first bad value is there before Portico starts: nginx must start and serve the others all the same.
    const early = renamed(badObjects(BAD_VALUES[0]!, makeCert(certDir, 'x')), 'early');
    for (const o of early) put(cluster.api, o);
    portico = await cluster.portico();
    await serves(portico, 'shared.test', 'victim');
    await serves(portico, 'other.test', 'victim');
    assert.equal(await healthz(portico), 200, 'a bad Ingress present at start does not keep nginx from serving');
    await until('a Warning Event for the early bad Ingress', () => warnings('early').length > 0, 10_000);
    removeBad(early);
  });

  after(async () => {
    await cluster?.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  let round = 0;
  for (const c of BAD_VALUES) {
    test(`${c.name}: ${c.accepted ? 'served' : 'a Warning Event on evil/bad'}; the owner, other hosts and later changes keep being served`, async () => {
      round += 1;
      const objects = badObjects(c, makeCert(certDir, 'shared.test'));
      const before = warnings().length;
      for (const o of objects) put(cluster.api, o);
      if (c.accepted) await serves(portico, 'shared.test', 'victim');
      else await until(`a Warning Event for ${c.name}`, () => warnings().length > before, 10_000);
      assert.equal(await healthz(portico), 200);
      put(cluster.api, route(`later-${round}`, `later${round}.test`, 'victim'));
      await serves(portico, `later${round}.test`, 'victim');
      await serves(portico, 'shared.test', 'victim');
      await serves(portico, 'other.test', 'victim');
      removeBad(objects);
      put(cluster.api, route(`gone-${round}`, `gone${round}.test`, 'victim'));
      await serves(portico, `gone${round}.test`, 'victim');
      await serves(portico, 'shared.test', 'victim');
      assert.equal(await healthz(portico), 200);
    });
  }
});
