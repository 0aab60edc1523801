// The quick YAML path (js-yaml) gives what the yaml library gives, or steps aside: every manifest in this repository
// (deploy/, the test fixtures, the Gateway API CRDs), hand-made edge cases, and the text it must leave to the library.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { LineCounter, parseAllDocuments } from 'yaml';
import { quickYamlDocuments } from '../../src/sources/yaml-documents.js';
import { parseManifests } from '../../src/sources/parse.js';

const root = new URL('../../..', import.meta.url).pathname;

/** What the yaml library reads: each document's value and first content line, or undefined on any error. */
function library(text: string): { value: unknown; line: number }[] | undefined {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.some((d) => d.errors.length > 0)) return undefined;
  return list.map((d) => ({ value: d.toJS({ maxAliasCount: 100 }) as unknown, line: lineCounter.linePos(d.contents?.range[0] ?? d.range[0]).line }));
}

/** Documents with content (an empty one is nothing to either reader's caller). */
const filled = (docs: readonly { value: unknown; line: number }[]): { value: unknown; line: number }[] => docs.filter((d) => d.value !== null && d.value !== undefined);

function yamlFiles(dir: string, out: string[] = []): string[] {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) yamlFiles(path, out);
    else if (/\.ya?ml$/.test(name)) out.push(path);
  }
  return out;
}

test('every YAML file of the repository reads the same through js-yaml as through the yaml library', () => {
  const files = yamlFiles(root);
  assert.ok(files.length >= 50, `found ${files.length} YAML files`);
  let quick = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const q = quickYamlDocuments(text);
    if (q === undefined) continue;
    quick += 1;
    assert.deepEqual(filled(q), filled(library(text) ?? []), file);
  }
  assert.ok(quick >= files.length * 0.8, `${quick} of ${files.length} files took the quick path`);
});

test('edge cases read the same, or go to the yaml library', () => {
  const cases = [
    'a: 1\n---\nb: 2\n',
    '---\na: 1\n--- # second\n\n# c\nb: [1, {c: d}]\n---\n',
    '# lead\n\na: |\n  x\n  ---\n  y\nb: >-\n  p\n  q\n',
    "a: \"x\\ty \\u00e9\"\nb: 'it''s'\nc: ~\nd: Null\ne: TRUE\nf: yes\ng: 0o17\nh: 0x1F\ni: 1e3\nj: .inf\nk: 014\nl: 2001-12-14\n",
    '__proto__: {a: 1}\nb: 2\n',
    '? a\n: b\nc: x\n  y\n',
    'a:\r\n- 1\r\n- "2"\r\n',
    'metadata:\n  annotations:\n    x: "*"\n    y: \'&a\'\n',
  ];
  for (const text of cases) {
    const q = quickYamlDocuments(text);
    assert.notEqual(q, undefined, `quick path for ${JSON.stringify(text)}`);
    assert.deepEqual(filled(q ?? []), filled(library(text) ?? []), JSON.stringify(text));
  }
  const leave = ['a: &x 1\nb: *x\n', 'a: !!binary aGk=\n', '%YAML 1.2\n---\na: 1\n', 'a: 1\n...\n', '--- {a: 1}\n', 'a: 0b11\n', 'a: -0x1f\n', 'a: +.5\n', '\ufeffa: 1\n', 'a: 1\na: 2\n', 'a: [1\n'];
  for (const text of leave) assert.equal(quickYamlDocuments(text), undefined, `left to the library: ${JSON.stringify(text)}`);
});

test('a manifest read on either path gives the same objects, lines and errors', () => {
  const text = 'apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n# c\napiVersion: v1\nkind: Service\nmetadata: {name: b, labels: {x: 1}}\n';
  const quick = parseManifests('q.yaml', text);
  const slow = parseManifests('q.yaml', `${text}---\nk: &a 1\n`); // an anchor sends the whole file to the library
  assert.deepEqual(
    quick.objects.map((o) => o.where),
    ['q.yaml:1'],
  );
  assert.deepEqual(quick.errors, ['q.yaml:6: Service b: metadata.labels must map strings to strings']);
  assert.deepEqual(slow.objects, quick.objects);
  assert.deepEqual(slow.errors.slice(0, 1), quick.errors);
});
