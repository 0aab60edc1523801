// deploy/gateway-api/ defines the resources src/kube watches for the Gateway API, at the versions it asks for, and the
// other kinds of the pinned release's standard channel (status/gateway-version.ts), all of that release.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { GATEWAY_RESOURCES } from '../../src/kube/gateway-resources.js';
import { GATEWAY_CRD_NAMES, PINNED_RELEASE } from '../../src/status/gateway-version.js';

const DIR = fileURLToPath(new URL('../../../deploy/gateway-api/', import.meta.url));

interface Crd {
  kind: string;
  metadata: { name: string; annotations: Record<string, string> };
  spec: { group: string; scope: string; names: { kind: string; plural: string }; versions: { name: string; served: boolean; storage: boolean; subresources?: { status?: object } }[] };
}

void test('one CRD per watched resource, served at the version Portico lists (or its fallback), with a status subresource where Portico writes status', async () => {
  const kustomization = parse(await readFile(join(DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  const crds = await Promise.all(kustomization.resources.map(async (f) => parse(await readFile(join(DIR, f), 'utf8')) as Crd));
  // the watched resources, then the CRDs no reader watches yet (their readers come with their kinds)
  const watched = crds.filter((c) => GATEWAY_RESOURCES.some((r) => r.plural === c.spec.names.plural));
  const got = watched.map((c) => {
    // a resource Portico lists at its version, or at its fallback when the API server has not that one (ReferenceGrant)
    const r = GATEWAY_RESOURCES.find((x) => x.plural === c.spec.names.plural);
    const version = c.spec.versions.find((v) => v.name === r?.version) ?? c.spec.versions.find((v) => v.name === r?.fallback?.version);
    return [c.kind, c.metadata.name, c.spec.names.kind, c.spec.scope, version?.served, Boolean(version?.subresources?.status)];
  });
  const expected = GATEWAY_RESOURCES.map((r) => ['CustomResourceDefinition', `${r.plural}.${r.group}`, r.kind, r.namespaced ? 'Namespaced' : 'Cluster', true, r.kind !== 'ReferenceGrant']);
  const byName = (a: readonly unknown[], b: readonly unknown[]): number => String(a[1]).localeCompare(String(b[1]));
  assert.deepEqual(got.sort(byName), expected.sort(byName));
});

void test('every CRD is of the pinned release and channel, stores one version, and is one whose bundle-version SupportedVersion reads', async () => {
  const kustomization = parse(await readFile(join(DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  const crds = await Promise.all(kustomization.resources.map(async (f) => parse(await readFile(join(DIR, f), 'utf8')) as Crd));
  assert.deepEqual(crds.map((c) => c.metadata.name).sort(), [...GATEWAY_CRD_NAMES].sort());
  for (const c of crds) {
    const a = c.metadata.annotations;
    assert.deepEqual(
      [c.metadata.name, a['gateway.networking.k8s.io/bundle-version'], a['gateway.networking.k8s.io/channel'], c.spec.versions.filter((v) => v.storage).length],
      [c.metadata.name, PINNED_RELEASE, 'standard', 1],
    );
  }
});
