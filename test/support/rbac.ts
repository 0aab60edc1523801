// A small RBAC authorizer over deploy/rbac.yaml, as the API server decides: ClusterRoleBindings grant everywhere,
// RoleBindings only in their namespace (never cluster-scoped resources). Tests check recorded API calls with it.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { RequestRecord } from './apiserver/index.js';
import { REPO } from './portico.js';

export interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}
export interface RbacDoc {
  kind: string;
  metadata: { name: string; namespace?: string };
  rules?: Rule[];
  roleRef?: { apiGroup: string; kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

/** One API call as RBAC sees it: `resource` includes a subresource (`ingresses/status`); namespace undefined = cluster. */
export interface Access {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace: string | undefined;
}

export async function rbacDocs(file = join(REPO, 'deploy/rbac.yaml')): Promise<RbacDoc[]> {
  return parseAllDocuments(await readFile(file, 'utf8')).map((d) => d.toJS() as RbacDoc);
}

const has = (list: readonly string[], v: string): boolean => list.includes(v) || list.includes('*');

/** Whether the ServiceAccount `sa` (namespace/name) may make the call `a` under `docs`. */
export function allows(docs: readonly RbacDoc[], sa: { namespace: string; name: string }, a: Access): boolean {
  return docs.some((b) => {
    if (b.kind !== 'ClusterRoleBinding' && b.kind !== 'RoleBinding') return false;
    if (!b.subjects?.some((s) => s.kind === 'ServiceAccount' && s.name === sa.name && s.namespace === sa.namespace)) return false;
    if (b.kind === 'RoleBinding' && (a.namespace === undefined || a.namespace !== b.metadata.namespace)) return false;
    const ref = b.roleRef;
    const role = docs.find((r) => r.kind === ref?.kind && r.metadata.name === ref.name && (r.kind === 'ClusterRole' || r.metadata.namespace === b.metadata.namespace));
    return (role?.rules ?? []).some((r) => r.resourceNames === undefined && has(r.apiGroups, a.group) && has(r.resources, a.resource) && has(r.verbs, a.verb));
  });
}

/** The RBAC view of a request the API server double recorded; undefined for discovery (allowed to everyone). */
export function accessOf(r: Pick<RequestRecord, 'path' | 'verb'>): Access | undefined {
  const parts = r.path.split('?')[0]!.split('/').filter(Boolean);
  const core = parts[0] === 'api';
  if (r.verb === 'discovery' || parts.length < (core ? 3 : 4)) return undefined;
  const group = core ? '' : parts[1]!;
  const rest = parts.slice(core ? 2 : 3);
  const namespaced = rest[0] === 'namespaces' && rest.length >= 3;
  const [resource, , sub] = namespaced ? rest.slice(2) : rest;
  return { verb: r.verb, group, resource: sub ? `${resource}/${sub}` : resource!, namespace: namespaced ? rest[1] : undefined };
}
