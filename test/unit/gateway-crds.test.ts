// deploy/gateway-api/ defines exactly the resources src/kube watches for the Gateway API, at the versions it asks for.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { GATEWAY_RESOURCES } from '../../src/kube/gateway-resources.js';

const DIR = fileURLToPath(new URL('../../../deploy/gateway-api/', import.meta.url));

interface Crd {
  kind: string;
  metadata: { name: string; annotations: Record<string, string> };
  spec: { group: string; scope: string; names: { kind: string; plural: string }; versions: { name: string; served: boolean; storage: boolean; subresources?: { status?: object } }[] };
}

void test('one CRD per watched resource, served at the version Portico lists (or its fallback), with a status subresource where Portico writes status', async () => {
  const kustomization = parse(await readFile(join(DIR, 'kustomization.yaml'), 'utf8')) as { resources: string[] };
  const crds = await Promise.all(kustomization.resources.map(async (f) => parse(await readFile(join(DIR, f), 'utf8')) as Crd));
  const got = crds.map((c) => {
    // a resource Portico lists at its version, or at its fallback when the API server has not that one (ReferenceGrant)
    const r = GATEWAY_RESOURCES.find((x) => x.plural === c.spec.names.plural);
    const watched = c.spec.versions.find((v) => v.name === r?.version) ?? c.spec.versions.find((v) => v.name === r?.fallback?.version);
    return [
      c.kind,
      c.metadata.name,
      c.spec.names.kind,
      c.spec.scope,
      watched?.served,
      Boolean(watched?.subresources?.status),
      c.spec.versions.filter((v) => v.storage).length,
      c.metadata.annotations['gateway.networking.k8s.io/bundle-version'],
      c.metadata.annotations['gateway.networking.k8s.io/channel'],
    ];
  });
  // TCPRoute and UDPRoute are in the standard channel from v1.6 only: the v1.2.1 bundle here has no CRD for them (docs/adr/0023).
  const expected = GATEWAY_RESOURCES.filter((r) => r.kind !== 'TCPRoute' && r.kind !== 'UDPRoute').map((r) => [
    'CustomResourceDefinition',
    `${r.plural}.${r.group}`,
    r.kind,
    r.namespaced ? 'Namespaced' : 'Cluster',
    true,
    r.kind !== 'ReferenceGrant',
    1,
    'v1.2.1',
    'standard',
  ]);
  assert.deepEqual(got, expected);
});
