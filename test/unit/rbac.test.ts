// deploy/rbac.yaml grants exactly what src/kube reads: the same resources, with exactly the verbs informers use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { readResources, VERBS } from '../../src/kube/resources.js';
import { REPO } from '../support/portico.js';

interface Rule { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }
interface Doc { kind: string; metadata: { name: string; namespace?: string }; rules?: Rule[];
  roleRef?: { kind: string; name: string }; subjects?: { kind: string; name: string; namespace?: string }[] }

async function docs(): Promise<Doc[]> {
  const text = await readFile(join(REPO, 'deploy/rbac.yaml'), 'utf8');
  return parseAllDocuments(text).map((d) => d.toJS() as Doc);
}

void test('the ClusterRole grants list and watch on exactly the resources src/kube watches', async () => {
  const all = await docs();
  const roles = all.filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role');
  assert.equal(roles.length, 1);
  const granted = new Map<string, string[]>();
  for (const rule of roles[0]!.rules ?? []) {
    assert.equal(rule.resourceNames, undefined);
    for (const g of rule.apiGroups) for (const r of rule.resources) {
      assert.ok(!granted.has(`${g}/${r}`), `${g}/${r} is granted twice`);
      granted.set(`${g}/${r}`, [...rule.verbs].sort());
    }
  }
  assert.deepEqual([...granted.keys()].sort(), readResources());
  for (const [resource, verbs] of granted) assert.deepEqual(verbs, [...VERBS].sort(), `verbs on ${resource}`);
});

void test('the binding gives that role to the ServiceAccount the file creates', async () => {
  const all = await docs();
  const sa = all.find((d) => d.kind === 'ServiceAccount');
  const binding = all.find((d) => d.kind === 'ClusterRoleBinding');
  const role = all.find((d) => d.kind === 'ClusterRole');
  assert.ok(sa && binding && role);
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace }]);
});
