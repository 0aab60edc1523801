// docs/annotations.md, docs/configmap.md and docs/flags.md are generated from the tables: this test fails when someone
// changed one without the other (regenerate: npm run docs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { generatedDocs } from '../../src/docs/annotations.js';
import { REPO } from '../support/portico.js';

for (const [path, text] of Object.entries(generatedDocs())) {
  void test(`${path} is up to date (regenerate: npm run docs)`, async () => {
    assert.equal(await readFile(join(REPO, path), 'utf8'), text);
  });
}
