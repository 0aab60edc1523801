// migrate-check against a cluster (--kubeconfig) reads the same objects through the API, ingress-nginx's controller
// Deployment included, and reports exactly what it reports for the folder (the report, and --httproute's routes);
// a Deployment list the API refuses is a note, not a failure.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { ApiServerDouble, type KubeObject } from '../support/apiserver/index.js';
import { FIXTURE, portico } from './run.js';

let api: ApiServerDouble;
let kubeconfig = '';

before(async () => {
  api = new ApiServerDouble({ bookmarkIntervalMs: 0 });
  await api.start();
  kubeconfig = await api.writeKubeconfig();
  for (const f of (await readdir(FIXTURE)).sort()) {
    for (const doc of parseAllDocuments(await readFile(join(FIXTURE, f), 'utf8'))) {
      const o = doc.toJS() as KubeObject & { stringData?: Record<string, string>; data?: Record<string, string> };
      if (o.kind === 'Secret' && o.stringData) {
        o.data = Object.fromEntries(Object.entries(o.stringData).map(([k, v]) => [k, Buffer.from(v).toString('base64')]));
        delete o.stringData;
      }
      api.put(o);
    }
  }
});

after(async () => {
  await api.stop();
  await rm(dirname(kubeconfig), { recursive: true, force: true });
});

void test('the same report through the API as from the folder, flags of the Deployment included', async () => {
  const fromFolder = await portico(['migrate-check', '--manifests', FIXTURE, '--json']);
  const fromApi = await portico(['migrate-check', '--kubeconfig', kubeconfig, '--json']);
  assert.equal(fromApi.code, 1);
  assert.deepEqual(JSON.parse(fromApi.stdout), JSON.parse(fromFolder.stdout));
  assert.ok(
    api.requests().some((r) => r.kind === 'Deployment' && r.verb === 'list'),
    'the Deployments were listed',
  );
});

void test('--httproute through the API prints the routes it prints for the folder', async () => {
  const fromFolder = await portico(['migrate-check', '--manifests', FIXTURE, '--httproute', 'all']);
  const fromApi = await portico(['migrate-check', '--kubeconfig', kubeconfig, '--httproute', 'all']);
  assert.deepEqual([fromApi.code, fromApi.stderr], [1, '']);
  assert.equal(fromApi.stdout, fromFolder.stdout);
  assert.match(fromApi.stdout, /^kind: HTTPRoute$/m);
});

void test('an API that refuses to list Deployments gives a note and no flags; the rest is judged', async () => {
  api.failRequests({ kind: 'Deployment', verb: 'list' }, { code: 403, reason: 'Forbidden', message: 'deployments.apps is forbidden' });
  const r = await portico(['migrate-check', '--kubeconfig', kubeconfig, '--json', '--configmap', 'ingress-nginx/ingress-nginx-controller']);
  const report = JSON.parse(r.stdout) as { notes: string[]; controllers: unknown[]; ingresses: unknown[] };
  assert.equal(report.controllers.length, 0);
  assert.match(report.notes[0] ?? '', /^ingress-nginx's flags were not read: cannot list Deployments/);
  assert.equal(report.ingresses.length, 13);
});
