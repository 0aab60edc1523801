// deploy/rbac.yaml grants exactly what src/kube calls: the same resources and verbs, cluster-wide only where the
// calls span namespaces (test/duties/rbac-calls.test.ts checks the calls a running Portico really makes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DUTY_VERBS, OWN_NAMESPACE_VERBS, readResources, VERBS } from '../../src/kube/resources.js';
import { accessOf, allows, rbacDocs as docs, type RbacDoc as Doc } from '../support/rbac.js';

void test('the ClusterRole grants list and watch on exactly the resources src/kube watches', async () => {
  const all = await docs();
  const roles = all.filter((d) => d.kind === 'ClusterRole' && d.metadata.name === 'portico');
  assert.equal(roles.length, 1);
  const granted = new Map<string, string[]>();
  for (const rule of roles[0]!.rules ?? []) {
    assert.equal(rule.resourceNames, undefined);
    for (const g of rule.apiGroups)
      for (const r of rule.resources) {
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

void test("status and Events get exactly what src/kube calls cluster-wide; Leases and pods only in Portico's namespace", async () => {
  const all = await docs();
  const sorted = (m: Readonly<Record<string, readonly string[]>>) => Object.fromEntries(Object.entries(m).map(([k, v]) => [k, [...v].sort()]));
  const duties = grants(all.find((d) => d.kind === 'ClusterRole' && d.metadata.name === 'portico-duties'));
  assert.deepEqual(Object.fromEntries(duties), sorted(DUTY_VERBS));
  const own = all.find((d) => d.kind === 'Role' && d.metadata.name === 'portico');
  assert.equal(own?.metadata.namespace, 'portico');
  assert.deepEqual(Object.fromEntries(grants(own)), sorted(OWN_NAMESPACE_VERBS));
  for (const [kind, name] of [
    ['ClusterRoleBinding', 'portico-duties'],
    ['RoleBinding', 'portico'],
  ] as const) {
    const b = all.find((d) => d.kind === kind && d.metadata.name === name);
    assert.deepEqual(b?.subjects, [{ kind: 'ServiceAccount', name: 'portico', namespace: 'portico' }], name);
  }
  assert.deepEqual(
    all.map((d) => `${d.kind} ${d.metadata.namespace ?? ''}/${d.metadata.name}`),
    [
      'ServiceAccount portico/portico',
      'ClusterRole /portico',
      'ClusterRoleBinding /portico',
      'ClusterRole /portico-duties',
      'ClusterRoleBinding /portico-duties',
      'Role portico/portico',
      'RoleBinding portico/portico',
    ],
    'nothing else is granted',
  );
});

void test("the authorizer: pods in Portico's namespace only, Ingress status and Events everywhere, nodes cluster-wide", async () => {
  const all = await docs();
  const sa = { namespace: 'portico', name: 'portico' };
  const cases: [string, string, boolean][] = [
    ['GET /api/v1/namespaces/portico/pods/portico-abc', 'get', true],
    ['GET /api/v1/namespaces/portico/pods?labelSelector=app%3Dportico', 'list', true],
    ['GET /api/v1/namespaces/tenant/pods/x', 'get', false],
    ['GET /api/v1/pods', 'list', false],
    ['GET /api/v1/nodes/node-1', 'get', true],
    ['GET /api/v1/nodes', 'list', false],
    ['PATCH /apis/networking.k8s.io/v1/namespaces/tenant/ingresses/web/status', 'patch', true],
    ['PATCH /apis/networking.k8s.io/v1/namespaces/tenant/ingresses/web', 'patch', false],
    ['PATCH /apis/gateway.networking.k8s.io/v1/namespaces/tenant/httproutes/web/status', 'patch', true],
    ['PATCH /apis/gateway.networking.k8s.io/v1/gatewayclasses/portico/status', 'patch', true],
    ['PATCH /apis/gateway.networking.k8s.io/v1/namespaces/tenant/httproutes/web', 'patch', false],
    ['POST /apis/events.k8s.io/v1/namespaces/tenant/events', 'create', true],
    ['GET /apis/coordination.k8s.io/v1/namespaces/portico/leases/portico-leader', 'get', true],
    ['GET /apis/coordination.k8s.io/v1/namespaces/tenant/leases/portico-leader', 'get', false],
    ['GET /api/v1/secrets?watch=true', 'watch', true],
    ['GET /api/v1/namespaces/tenant/secrets/x', 'get', false],
    ['GET /api/v1/namespaces', 'list', true],
    ['GET /api/v1/namespaces/tenant', 'get', false],
  ];
  const got = cases.map(([req, verb]) => {
    const a = accessOf({ path: req.split(' ')[1]!, verb });
    return [req, verb, a !== undefined && allows(all, sa, a)];
  });
  assert.deepEqual(got, cases);
  assert.equal(accessOf({ path: '/apis', verb: 'discovery' }), undefined);
});
