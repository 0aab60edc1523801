// deploy/gateway-api/ builds with `kubectl kustomize`, each CRD passes the CustomResourceDefinition schema, and each
// schema is structural as the API server requires (every node typed, or an object kept whole), so a real API server
// takes the files as written.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { CustomResourceDefinition } from 'kubernetes-models/apiextensions.k8s.io/v1/CustomResourceDefinition';
import { haveKubectl, kustomize, type Obj } from './kube-objects.js';

interface Schema {
  type?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  additionalProperties?: Schema | boolean;
  'x-kubernetes-preserve-unknown-fields'?: boolean;
}
type Version = { name: string; schema: { openAPIV3Schema: Schema } };

/** The paths of schema nodes without a type (the API server refuses a CRD whose schema is not structural). */
function untyped(s: Schema, path: string, out: string[]): string[] {
  if (s.type === undefined) out.push(path || '(root)');
  for (const [k, v] of Object.entries(s.properties ?? {})) untyped(v, `${path}.${k}`, out);
  if (s.items) untyped(s.items, `${path}[]`, out);
  if (typeof s.additionalProperties === 'object') untyped(s.additionalProperties, `${path}{}`, out);
  return out;
}

describe('deploy/gateway-api', () => {
  let crds: Obj[] = [];
  let skip: string | false = false;
  before(async () => {
    if (!(await haveKubectl())) {
      skip = 'kubectl is not installed';
      return;
    }
    crds = await kustomize('deploy/gateway-api');
  });

  test('builds, and every object is a valid CustomResourceDefinition', (t) => {
    if (skip) {
      t.skip(skip);
      return;
    }
    assert.equal(crds.length, 10);
    for (const o of crds) {
      assert.equal(o.kind, 'CustomResourceDefinition');
      assert.doesNotThrow(() => {
        new CustomResourceDefinition(o as never).validate();
      }, o.metadata.name);
    }
  });

  test('every version has a structural schema', (t) => {
    if (skip) {
      t.skip(skip);
      return;
    }
    const bad = crds.flatMap((o) => ((o['spec'] as { versions: Version[] }).versions ?? []).flatMap((v) => untyped(v.schema.openAPIV3Schema, '', []).map((p) => `${o.metadata.name} ${v.name}: ${p}`)));
    assert.deepEqual(bad, []);
  });
});
