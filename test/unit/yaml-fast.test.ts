// The fast manifest YAML reader gives exactly what the yaml library gives (values and each document's line), or
// nothing: on the repository's own YAML files, on generated documents in yaml's output styles, and on edge cases.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { LineCounter, parseAllDocuments, stringify } from 'yaml';
import { fastYamlDocuments } from '../../src/sources/yaml-fast.js';
import { parseManifests } from '../../src/sources/parse.js';
import { REPO } from '../support/portico.js';

/** The yaml library's documents, as parse.ts reads them: non-empty ones, with the line their content starts on; undefined on an error. */
function library(text: string): { value: unknown; line: number }[] | undefined {
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  if (list.some((d) => d.errors.length > 0)) return undefined;
  return list
    .map((d) => ({ value: d.toJS({ maxAliasCount: 100 }) as unknown, line: lineCounter.linePos(d.contents?.range[0] ?? d.range[0]).line }))
    .filter((d) => d.value !== null && d.value !== undefined);
}

/** Fails when the fast reader gives anything but the library's documents; true when it read the text. */
function agrees(text: string): boolean {
  const fast = fastYamlDocuments(text);
  if (fast === undefined) return false;
  const lib = library(text);
  assert.notEqual(lib, undefined, `the fast reader read text the library refuses:\n${text}`);
  assert.deepEqual(
    fast.filter((d) => d.value !== null),
    lib,
    text,
  );
  return true;
}

function yamlFiles(dir: string, depth: number): string[] {
  if (depth > 8) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.name === 'node_modules' || e.name.startsWith('.') || e.name === 'dist') return [];
    const p = join(dir, e.name);
    if (e.isDirectory()) return yamlFiles(p, depth + 1);
    return /\.ya?ml$/.test(e.name) ? [p] : [];
  });
}

test("the repository's YAML files: the library's values and lines, most of them read fast", () => {
  const files = yamlFiles(REPO, 0);
  assert.ok(files.length > 50, `only ${files.length} YAML files found`);
  const fast = files.filter((f) => agrees(readFileSync(f, 'utf8')));
  // the deploy manifests, examples and fixtures are block style: a reader that gave up on them would be no faster
  assert.ok(fast.length > files.length / 2, `read fast: ${fast.length} of ${files.length}`);
});

const trickyString = fc.constantFrom(
  '',
  'true',
  'False',
  'null',
  '~',
  '0x1F',
  '0o17',
  '017',
  '-1',
  '+3',
  '1e3',
  '.5',
  '1.',
  '.inf',
  '-.Inf',
  '.NaN',
  '10.244.0.1',
  'a: b',
  'a #b',
  'a#b',
  "it's",
  '"q"',
  '- x',
  '-v',
  '[x]',
  '{x}',
  '*a',
  '&a',
  '!t',
  '%p',
  '@a',
  '`b',
  '|',
  '>',
  'x\\y',
  'tab\there',
  'line\nbreak',
  'é ünïcode',
  ' lead',
  'trail ',
  '/api/v1',
  '2026-01-01T00:00:05.000Z',
  'nginx.ingress.kubernetes.io/rewrite-target',
  '---',
  '...',
  '? q',
  ': c',
  'a[b]',
  'x{y}z',
  'a,b',
  'a:b',
  'http://h:80/p',
  '-,',
  'a\n\nb\n',
  'x\n',
  '  indented\nfirst',
  'trailing\n\n',
  '#not comment\n x',
  'two\nlines',
  'k: ',
  '#c',
);
const key = fc.oneof(trickyString, fc.stringMatching(/^[a-z][a-zA-Z0-9./-]{0,12}$/));
const scalarValue = fc.oneof(trickyString, fc.string({ maxLength: 8 }), fc.integer(), fc.double({ noNaN: false }), fc.boolean(), fc.constant(null));
const value = fc.letrec((tie) => ({
  node: fc.oneof({ depthSize: 'small' }, scalarValue, tie('list'), tie('object')),
  list: fc.array(tie('node'), { maxLength: 4 }),
  object: fc.dictionary(key, tie('node'), { maxKeys: 5 }),
})).node;

const STYLES = [
  {},
  { indentSeq: false },
  { indent: 4 },
  { defaultStringType: 'QUOTE_DOUBLE' as const, defaultKeyType: 'PLAIN' as const },
  { defaultStringType: 'QUOTE_SINGLE' as const },
  { indentSeq: false, indent: 3 },
  { collectionStyle: 'flow' as const },
  { collectionStyle: 'flow' as const, defaultStringType: 'QUOTE_SINGLE' as const },
];

test('generated documents in the library’s output styles: the same values, or left to the library', () => {
  let read = 0;
  fc.assert(
    fc.property(fc.array(fc.dictionary(key, value, { minKeys: 1, maxKeys: 6 }), { minLength: 1, maxLength: 3 }), fc.constantFrom(...STYLES), fc.boolean(), (docs, style, comments) => {
      const texts = docs.map((d) => stringify(d, { ...style, lineWidth: 0 }));
      const text = (comments ? '# leading comment\n\n' : '') + texts.join(comments ? '--- # next\n# about it\n' : '---\n');
      if (agrees(text)) read++;
    }),
    { numRuns: 600, seed: 20261129 },
  );
  assert.ok(read > 150, `read fast: ${read} of 600`);
});

test('manifest shapes: compact sequences, sequences at their key’s indent, comments, quoted keys, document lines', () => {
  const text = [
    '# a Deployment-style file',
    '---',
    'apiVersion: v1',
    'kind: Service',
    'metadata:',
    '  name: web   # trailing comment',
    '  labels:',
    '    "app.kubernetes.io/name": web',
    "    'tier': front",
    'spec:',
    '  ports:',
    '  - name: http',
    '    port: 80',
    '    targetPort: "8080"',
    '  -   name: https',
    '      port: 443',
    '  selector: {}',
    '  externalIPs: []',
    '',
    '---',
    '',
    '# the second',
    'apiVersion: v1',
    'kind: List',
    'items:',
    '- - nested',
    '  - list',
    '-',
    '  key: 0x10',
    '- ~',
    '- -1',
    '-',
    '',
  ].join('\n');
  assert.ok(agrees(text));
  const docs = fastYamlDocuments(text) ?? [];
  assert.deepEqual(
    docs.map((d) => d.line),
    [3, 23],
  );
  assert.deepEqual((docs[1]?.value as { items: unknown[] }).items, [['nested', 'list'], { key: 16 }, null, -1, null]);
});

test('what the fast reader leaves to the library', () => {
  for (const text of [
    'a: &x 1\nb: *x\n',
    'a: !!str 1\n',
    'a: |+\n  keep\n',
    'a: |2\n   x\n',
    'a: |\n  no line break at the end',
    'a: >-\n  folded\n',
    'a: {b: 1\n  , c: 2}\n',
    'a: [1, 2,]\n',
    'a: {b}\n',
    'a: [b: 1]\n',
    'a: {"b":1}\n',
    'a: plain\n  continued\n',
    'a: "two\n  lines"\n',
    '%YAML 1.2\n---\na: 1\n',
    'a: 1\n...\n',
    '--- a: 1\n',
    'a:\n\tb: 1\n',
    'a: 1\na: 2\n',
    '__proto__: 1\n',
    '? complex\n: key\n',
    '1: one\n',
    'true: yes\n',
    'a: b: c\n',
    'a: "\\e escape"\n',
    'just a scalar\n',
    'a: 1\n- b\n',
    'a:\n    b: 1\n  c: 2\n',
  ]) {
    assert.equal(fastYamlDocuments(text), undefined, text);
  }
});

test('parseManifests reads a block-style file fast with the same objects, where and errors as the library', () => {
  const text = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  labels:\n    n: 1\n---\napiVersion: extensions/v1beta1\nkind: Ingress\nmetadata:\n  name: old\n';
  assert.notEqual(fastYamlDocuments(text), undefined);
  const r = parseManifests('f.yaml', text);
  assert.deepEqual(r.errors, ['f.yaml:1: Service a: metadata.labels must map strings to strings', 'f.yaml:8: Ingress needs apiVersion networking.k8s.io/v1, got "extensions/v1beta1"']);
  // the same text with one flow mapping goes to the library, and says the same
  const slow = parseManifests('f.yaml', text.replace('  labels:\n    n: 1', '  labels: {n: 1}\n  # the same lines'));
  assert.deepEqual(slow.errors, r.errors);
});
