// test/gateway-conformance/inventory.json, the tests in test/gateway-conformance and the conformance section of
// docs/gateway-api.md must agree: every passing or failed row has a test named exactly its ShortName in its file (a
// todo exactly when failed), every test there is a row, a row is skipped exactly when it needs a feature Portico does
// not claim, and the report in the doc is the one the inventory gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO } from '../support/portico.js';
import { testsIn, type FoundTest } from '../ingress-nginx/inventory.js';
import { isExtended, loadInventory, profilesOf, report, STATUSES } from '../gateway-conformance/inventory.js';
import { renderSection, sectionOf } from '../gateway-conformance/report-doc.js';

const inv = loadInventory(REPO);
const folder = 'test/gateway-conformance';
const declared = new Map<string, FoundTest[]>();
for (const f of readdirSync(join(REPO, folder)).filter((n) => n.endsWith('.test.ts'))) declared.set(`${folder}/${f}`, testsIn(readFileSync(join(REPO, folder, f), 'utf8'), f));

void test('every row is well formed, once per ShortName', () => {
  assert.equal(new Set(inv.rows.map((r) => r.shortName)).size, inv.rows.length, 'ShortNames are unique');
  for (const r of inv.rows) {
    assert.ok(STATUSES.includes(r.status), `${r.shortName}: unknown status ${r.status}`);
    const needsTest = r.status === 'passes' || r.status === 'failed';
    assert.equal(r.test !== undefined, needsTest, `${r.shortName}: a ${r.status} row ${needsTest ? 'needs' : 'has no'} test file`);
    if (r.test !== undefined) assert.ok(r.test.startsWith(`${folder}/`), `${r.shortName}: test file ${r.test} outside ${folder}`);
    if (r.status === 'failed') assert.ok((r.defect ?? '').length > 10, `${r.shortName}: a failed row names its defect`);
  }
});

void test('a row is skipped exactly when it needs a feature Portico does not claim, and says which', () => {
  for (const r of inv.rows) {
    const missing = r.features.filter((f) => inv.unsupportedFeatures[f] !== undefined);
    assert.equal(r.status === 'skipped', missing.length > 0, `${r.shortName}: ${r.status} with unsupported features [${missing.join(', ')}]`);
    if (r.status === 'skipped') for (const f of missing) assert.ok(r.reason?.includes(f), `${r.shortName}: the reason names ${f}`);
  }
});

void test('every passing or failed row has a test of exactly its ShortName in its file, todo exactly when failed', () => {
  for (const r of inv.rows) {
    if (r.test === undefined) continue;
    const tests = declared.get(r.test);
    assert.ok(tests !== undefined, `${r.test} does not exist (row ${r.shortName})`);
    const have = tests.filter((t) => t.title === r.shortName);
    assert.equal(have.length, 1, `${r.test}: one test named ${r.shortName}`);
    assert.equal(have[0]?.todo, r.status === 'failed', `${r.test}: ${r.shortName} is todo exactly when failed`);
  }
});

void test('every test in test/gateway-conformance is a row of the inventory, in that file', () => {
  for (const [file, tests] of declared) {
    for (const t of tests)
      assert.ok(
        inv.rows.some((r) => r.test === file && r.shortName === t.title),
        `${file}: test ${JSON.stringify(t.title)} is not a row of the inventory`,
      );
  }
});

void test("the report counts each test in every profile holding all its features, as core or extended by the profile's core features", () => {
  const rep = report(inv, '0.0.0') as { profiles: { name: string; core: { statistics: Record<string, number> }; extended?: { statistics: Record<string, number> } }[] };
  for (const p of rep.profiles) {
    const def = inv.profiles[p.name];
    assert.ok(def !== undefined);
    const rows = inv.rows.filter((r) => profilesOf(inv, r).includes(p.name));
    const sum = (s: Record<string, number> | undefined): number => (s === undefined ? 0 : (s['Passed'] ?? 0) + (s['Skipped'] ?? 0) + (s['Failed'] ?? 0));
    assert.equal(sum(p.core.statistics), rows.filter((r) => !isExtended(def, r)).length, `${p.name} core`);
    assert.equal(sum(p.extended?.statistics), rows.filter((r) => isExtended(def, r)).length, `${p.name} extended`);
  }
});

void test('docs/gateway-api.md carries the report the inventory gives (regenerate: npm run docs)', () => {
  const version = (JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')) as { version: string }).version;
  assert.equal(sectionOf(readFileSync(join(REPO, 'docs/gateway-api.md'), 'utf8')), renderSection(inv, version));
});
