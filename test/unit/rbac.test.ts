// deploy/rbac.yaml grants exactly what src/kube reads: the same resources, with exactly the verbs informers use.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { DUTY_VERBS, LEASE_VERBS, readResources, VERBS } from '../../src/kube/resources.js';
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
  const roles = all.filter((d) => d.kind === 'ClusterRole' && d.metadata.name === 'portico');
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
  const binding = all.find((d) => d.kind === 'ClusterRoleBinding' && d.metadata.name === 'portico');
  const role = all.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'portico');
  assert.ok(sa && binding && role);
  assert.deepEqual(binding.roleRef, { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role.metadata.name });
  assert.deepEqual(binding.subjects, [{ kind: 'ServiceAccount', name: sa.metadata.name, namespace: sa.metadata.namespace }]);
});

function grants(role: Doc | undefined): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const rule of role?.rules ?? []) {
    for (const g of rule.apiGroups) for (const r of rule.resources) out.set(`${g}/${r}`, [...rule.verbs].sort());
  }
  return out;
}

void test('status, Events and leader election get exactly what src/kube calls, Leases only in Portico\'s namespace', async () => {
  const all = await docs();
  const duties = grants(all.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'portico-duties'));
  assert.deepEqual(Object.fromEntries(duties), Object.fromEntries(Object.entries(DUTY_VERBS).map(([k, v]) => [k, [...v].sort()])));
  const leader = all.find((d) => d.kind === 'Role' && d.metadata.name === 'portico-leader');
  assert.equal(leader?.metadata.namespace, 'portico');
  assert.deepEqual(Object.fromEntries(grants(leader)), { 'coordination.k8s.io/leases': [...LEASE_VERBS].sort() });
  for (const [kind, name] of [['ClusterRoleBinding', 'portico-duties'], ['RoleBinding', 'portico-leader']] as const) {
    const b = all.find((d) => d.kind === kind && d.metadata.name === name);
    assert.deepEqual(b?.subjects, [{ kind: 'ServiceAccount', name: 'portico', namespace: 'portico' }], name);
  }
});
