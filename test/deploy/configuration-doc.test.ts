// docs/configuration.md is generated from the flag and ConfigMap tables: this test fails when one changed without it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { configurationMarkdown } from '../../src/docs/config-docs.js';
import { FLAGS } from '../../src/config/flags.js';
import { COMPAT_FLAGS } from '../../src/config/flags-without-setting.js';
import { CONFIGMAP_KEYS } from '../../src/annotations/configmap.js';
import { REPO } from '../support/portico.js';

void test('docs/configuration.md is up to date (regenerate: node dist/src/docs/config-docs.js > docs/configuration.md)', async () => {
  assert.equal(await readFile(join(REPO, 'docs/configuration.md'), 'utf8'), configurationMarkdown());
});

void test('it has a row for every flag and every ConfigMap key', () => {
  const doc = configurationMarkdown();
  assert.deepEqual(
    [...Object.keys(FLAGS), ...Object.keys(COMPAT_FLAGS)].filter((f) => !doc.includes(`| \`--${f}\` |`)),
    [],
  );
  assert.deepEqual(
    CONFIGMAP_KEYS.map((k) => k.key).filter((k) => !doc.includes(`| \`${k}\` |`)),
    [],
  );
});
