// test/ingress-nginx/inventory.json, the tests in test/ingress-nginx and docs/ingress-nginx-e2e.md must agree: every
// row with a test file has a test of exactly that title there (a todo exactly when the row is an open gap), and every
// test there is a row of the inventory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { REPO } from '../support/portico.js';
import { loadInventory, renderDoc, STATUSES, testFileFor, testsIn, type FoundTest } from '../ingress-nginx/inventory.js';

const inv = loadInventory(REPO);

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? testFiles(join(dir, e.name)) : e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []));
}

const declared = new Map<string, FoundTest[]>();
for (const abs of testFiles(join(REPO, 'test/ingress-nginx'))) declared.set(relative(REPO, abs), testsIn(readFileSync(abs, 'utf8'), abs));

void test('every inventory row is well formed', () => {
  for (const r of inv.rows) {
    const at = `${r.folder}/${r.file}: ${r.title}`;
    assert.ok(STATUSES.includes(r.status), `${at}: unknown status ${r.status}`);
    const needsTest = r.status === 'passes' || r.status === 'deliberate' || r.status === 'open-gap';
    assert.equal(r.test !== undefined, needsTest, `${at}: a ${r.status} row ${needsTest ? 'needs' : 'has no'} test file`);
    if (r.test !== undefined) assert.equal(r.test, testFileFor(r), `${at}: test file`);
    if (r.status === 'deliberate' || r.status === 'not-applicable') assert.ok((r.reason ?? '').length > 10, `${at}: reason`);
    if (r.status === 'open-gap') assert.ok((r.gap ?? '').length > 3, `${at}: gap name`);
  }
});

void test('every row with a test file has a test of exactly its title there, todo exactly when an open gap', () => {
  for (const r of inv.rows) {
    if (r.test === undefined) continue;
    const tests = declared.get(r.test);
    assert.ok(tests !== undefined, `${r.test} does not exist (row: ${r.title})`);
    const want = inv.rows.filter((o) => o.test === r.test && o.title === r.title);
    const have = tests.filter((t) => t.title === r.title);
    assert.equal(have.length, want.length, `${r.test}: tests titled ${JSON.stringify(r.title)}`);
    // Several Its of one file may share a title (ingress-nginx repeats some): as many todo tests as open-gap rows.
    const gaps = want.filter((o) => o.status === 'open-gap').length;
    assert.equal(have.filter((t) => t.todo).length, gaps, `${r.test}: ${r.title}: todo tests against open-gap rows (status ${r.status})`);
  }
});

void test('every test in test/ingress-nginx is a row of the inventory', () => {
  for (const [file, tests] of declared) {
    for (const t of tests) {
      assert.ok(
        inv.rows.some((r) => r.test === file && r.title === t.title),
        `${file}: test ${JSON.stringify(t.title)} is not in test/ingress-nginx/inventory.json`,
      );
    }
  }
});

void test('docs/ingress-nginx-e2e.md is up to date (regenerate: npm run docs)', () => {
  assert.equal(readFileSync(join(REPO, 'docs/ingress-nginx-e2e.md'), 'utf8'), renderDoc(inv));
});

void test('testsIn reads titles and todo-ness from test()/it() calls', () => {
  const src = "test('a b', async () => {});\nit(\"c 'd'\", { todo: 'gap x' }, () => {});\ntest.todo('e');\ndescribe('not a test', () => {});\n";
  assert.deepEqual(testsIn(src, 'x.ts'), [
    { title: 'a b', todo: false },
    { title: "c 'd'", todo: true },
    { title: 'e', todo: true },
  ]);
});
