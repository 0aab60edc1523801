// Manifest parsing: multi-document YAML, JSON, Lists, unknown kinds, and errors naming file and line.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseManifests } from '../../src/sources/parse.js';

test('multi-document YAML, kind: List and JSON all give objects; other kinds are ignored', () => {
  const yaml = [
    'apiVersion: v1\nkind: Service\nmetadata: {name: a}\nspec: {ports: [{port: 80}]}',
    'apiVersion: v1\nkind: List\nitems:\n  - {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: x}}\n  - {apiVersion: apps/v1, kind: Deployment, metadata: {name: d}}',
    '# only a comment',
  ].join('\n---\n');
  const r = parseManifests('f.yaml', yaml);
  assert.deepEqual(r.errors, []);
  assert.deepEqual(
    r.objects.map((o) => `${o.kind}/${o.object.metadata?.namespace}/${o.object.metadata?.name}@${o.where}`),
    ['Service/default/a@f.yaml:1', 'ConfigMap/x/c@f.yaml:6 items[0]'],
  );
  assert.deepEqual(r.ignored, ['f.yaml:6 items[1] Deployment/d']);
  const j = parseManifests('g.json', JSON.stringify({ apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'p' }, spec: { controller: 'x' } }));
  assert.equal(j.objects[0]?.object.metadata?.namespace, undefined, 'cluster-scoped kinds have no namespace');
});

test('syntax errors name the file, line and column; bad objects name the field', () => {
  const r = parseManifests('bad.yaml', 'apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  name: b\n');
  assert.equal(r.syntaxError, true);
  assert.match(r.errors[0] ?? '', /^bad\.yaml:5:\d+: DUPLICATE_KEY/);
  const o = parseManifests('o.yaml', 'apiVersion: extensions/v1beta1\nkind: Ingress\nmetadata: {name: old}\n---\nkind: Service\napiVersion: v1\nmetadata: {name: s, labels: {a: 1}}\n');
  assert.equal(o.syntaxError, false);
  assert.deepEqual(o.errors, ['o.yaml:1: Ingress needs apiVersion networking.k8s.io/v1, got "extensions/v1beta1"', 'o.yaml:5: Service s: metadata.labels must map strings to strings']);
});
