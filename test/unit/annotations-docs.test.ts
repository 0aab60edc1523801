// docs/annotations.md is generated from the table: this test fails when someone changed one without the other.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { annotationsMarkdown } from '../../src/annotations/docs.js';
import { REPO } from '../support/portico.js';

void test('docs/annotations.md is up to date (regenerate: node dist/src/annotations/docs.js > docs/annotations.md)', async () => {
  const onDisk = await readFile(join(REPO, 'docs/annotations.md'), 'utf8');
  assert.equal(onDisk, annotationsMarkdown());
});
