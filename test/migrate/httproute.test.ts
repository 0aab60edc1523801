// `portico migrate-check --httproute`: the HTTPRoutes expressing each Ingress and the annotations with no Gateway API
// equivalent, compared whole (UPDATE_FIXTURES=1 rewrites the expected files for review); one Ingress by name; --json;
// the output is valid YAML whose HTTPRoutes Portico's own parser reads back.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { parseManifests } from '../../src/sources/parse.js';
import { EXPECTED, FIXTURE, portico } from './run.js';

const ROUTES = join(EXPECTED, 'httproute');

async function expectWhole(file: string, actual: string): Promise<void> {
  const path = join(EXPECTED, file);
  if (process.env['UPDATE_FIXTURES'] === '1') await writeFile(path, actual);
  assert.equal(actual, await readFile(path, 'utf8'), `${file} (UPDATE_FIXTURES=1 rewrites it)`);
}

void test('every Ingress of the class: host routes, filters from annotations, canaries merged, what is left behind; exit 1', async () => {
  const r = await portico(['migrate-check', '--manifests', ROUTES, '--httproute', 'all']);
  assert.equal(r.stderr, '');
  await expectWhole('httproute-expected.yaml', r.stdout);
  assert.equal(r.code, 1, 'ssl-redirect, spec.tls and canary-by-cookie have no equivalent');
  // Valid YAML: every document but the comments is an HTTPRoute Portico's manifest parser accepts.
  const docs = parseAllDocuments(r.stdout, { version: '1.1' });
  const routes = (Array.isArray(docs) ? docs : [docs]).map((d) => d.toJS() as unknown).filter((v) => v !== null);
  assert.equal(routes.length, 8);
  const parsed = parseManifests('out.yaml', r.stdout);
  assert.deepEqual([parsed.errors, parsed.objects.length, parsed.objects.every((o) => o.kind === 'HTTPRoute')], [[], 8, true]);
  const beta = routes.find((x) => (x as { metadata: { name: string } }).metadata.name === 'beta') as { spec: { rules: { matches: { headers?: { value: unknown }[] }[] }[] } };
  assert.equal(beta.spec.rules[0]?.matches[0]?.headers?.[0]?.value, 'yes', 'a header value "yes" stays a string for YAML 1.1 readers (kubectl)');
});

void test("the realistic ingress-nginx folder: each Ingress's route and its annotations with no equivalent", async () => {
  const r = await portico(['migrate-check', '--manifests', FIXTURE, '--httproute', 'all']);
  assert.equal(r.stderr, '');
  await expectWhole('httproute-cluster-expected.yaml', r.stdout);
  assert.equal(r.code, 1);
});

void test('one Ingress by name, --json for scripts, exit 0 when nothing is left behind; an unknown name is exit 2', async () => {
  const one = await portico(['migrate-check', '--manifests', ROUTES, '--httproute', 'shop/moved', '--json']);
  assert.equal(one.code, 0);
  const report = JSON.parse(one.stdout) as { ok: boolean; parent: unknown; ingresses: { name: string; unmapped: unknown[]; httpRoutes: { spec: { rules: { filters: unknown[] }[] } }[] }[] };
  assert.deepEqual([report.ok, report.parent, report.ingresses.map((i) => i.name), report.ingresses[0]?.unmapped], [true, { name: 'public', namespace: 'gateway' }, ['moved'], []]);
  assert.deepEqual(report.ingresses[0]?.httpRoutes[0]?.spec.rules[0]?.filters, [
    { type: 'RequestRedirect', requestRedirect: { scheme: 'https', hostname: 'new.example.com', path: { type: 'ReplaceFullPath', replaceFullPath: '/landing' }, statusCode: 302 } },
  ]);
  const none = await portico(['migrate-check', '--manifests', ROUTES, '--httproute', 'shop/nope']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /--httproute: no Ingress shop\/nope of class nginx/);
});
