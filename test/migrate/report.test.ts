// `portico migrate-check --manifests` on a folder of realistic ingress-nginx Ingresses prints the expected table and
// JSON (compared whole; UPDATE_FIXTURES=1 rewrites them for review when a verdict changes on purpose) and exits 1;
// a folder where everything maps exits 0; the notes tables name only rows of the code's own tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BY_KEY } from '../../src/annotations/table.js';
import { CONFIGMAP_KEYS } from '../../src/annotations/configmap.js';
import { FLAGS } from '../../src/config/flags.js';
import { ANNOTATION_DIFFERENCES, CONFIGMAP_DIFFERENCES, EVALUATED_FLAGS, FLAG_DIFFERENCES } from '../../src/migrate/differences.js';
import { EXPECTED, FIXTURE, portico } from './run.js';

async function expectWhole(file: string, actual: string): Promise<void> {
  const path = join(EXPECTED, file);
  if (process.env['UPDATE_FIXTURES'] === '1') await writeFile(path, actual);
  assert.equal(actual, await readFile(path, 'utf8'), `${file} (UPDATE_FIXTURES=1 rewrites it)`);
}

void test('the table: every Ingress, annotation, ConfigMap key and flag with its verdict, a summary, exit 1', async () => {
  const r = await portico(['migrate-check', '--manifests', FIXTURE]);
  assert.equal(r.stderr, '');
  await expectWhole('expected.txt', r.stdout);
  assert.equal(r.code, 1);
});

void test('--json: the same report for scripts', async () => {
  const r = await portico(['migrate-check', '--manifests', FIXTURE, '--json']);
  await expectWhole('expected.json', r.stdout);
  assert.equal(r.code, 1);
  const report = JSON.parse(r.stdout) as { ok: boolean; summary: { ingresses: Record<string, number> } };
  assert.equal(report.ok, false);
  assert.ok((report.summary.ingresses['skipped'] ?? 0) > 0);
});

void test("a folder where everything maps exits 0; flags given win over the Deployment's; no source is exit 2", async () => {
  const dir = await mkdtemp(join(tmpdir(), 'portico-migrate-ok-'));
  try {
    const all = await readFile(join(FIXTURE, 'ingresses.yaml'), 'utf8');
    await writeFile(join(dir, 'ingress.yaml'), all.split('\n---\n')[0] ?? '');
    await writeFile(
      join(dir, 'class.yaml'),
      'apiVersion: networking.k8s.io/v1\nkind: IngressClass\nmetadata: { name: nginx }\nspec: { controller: k8s.io/ingress-nginx }\n' +
        '---\napiVersion: v1\nkind: Service\nmetadata: { name: web, namespace: shop }\nspec: { ports: [{ port: 80 }] }\n',
    );
    const ok = await portico(['migrate-check', '--manifests', dir]);
    assert.match(ok.stdout, /^shop\/web {2}served$/m);
    assert.match(ok.stdout, /everything maps \(exit 0\)/);
    assert.equal(ok.code, 0);
    // Judged as Portico's own class instead, nothing is of that class.
    const mine = await portico(['migrate-check', '--manifests', dir, '--controller-class', 'portico.dev/ingress-controller', '--ingress-class', 'portico', '--json']);
    assert.deepEqual((JSON.parse(mine.stdout) as { ingresses: unknown[] }).ingresses, []);
    const none = await portico(['migrate-check']);
    assert.equal(none.code, 2);
    assert.match(none.stderr, /give --manifests DIR or --kubeconfig FILE/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

void test("the notes name annotations, ConfigMap keys and flags of the code's tables", () => {
  assert.deepEqual(
    Object.keys(ANNOTATION_DIFFERENCES).filter((k) => !BY_KEY.has(k)),
    [],
    'differences of annotations the table lacks',
  );
  const keys = new Set(CONFIGMAP_KEYS.map((k) => k.key));
  assert.deepEqual(
    Object.keys(CONFIGMAP_DIFFERENCES).filter((k) => !keys.has(k)),
    [],
  );
  assert.deepEqual(
    [...Object.keys(FLAG_DIFFERENCES), ...EVALUATED_FLAGS].filter((f) => FLAGS[f] === undefined),
    [],
  );
});
