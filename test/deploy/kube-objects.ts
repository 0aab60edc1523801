// Builds deploy/ with `kubectl kustomize` and validates every object against the Kubernetes OpenAPI schemas.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { Namespace } from 'kubernetes-models/v1/Namespace';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { Service } from 'kubernetes-models/v1/Service';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { ClusterRole } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRole';
import { ClusterRoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/ClusterRoleBinding';
import { Role } from 'kubernetes-models/rbac.authorization.k8s.io/v1/Role';
import { RoleBinding } from 'kubernetes-models/rbac.authorization.k8s.io/v1/RoleBinding';
import { IngressClass } from 'kubernetes-models/networking.k8s.io/v1/IngressClass';
import { HorizontalPodAutoscaler } from 'kubernetes-models/autoscaling/v2/HorizontalPodAutoscaler';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ValidatingWebhookConfiguration } from 'kubernetes-models/admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration';
import { REPO } from '../support/portico.js';

const run = promisify(execFile);

/** One rendered object, as plain JSON. */
export interface Obj {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [field: string]: unknown;
}

/** Every kind deploy/ may render, with its schema-checked model class (an unknown kind fails the test). */
const MODELS: Readonly<Record<string, new (data: never) => { validate(): void }>> = {
  'v1/Namespace': Namespace,
  'v1/ServiceAccount': ServiceAccount,
  'v1/ConfigMap': ConfigMap,
  'v1/Service': Service,
  'apps/v1/Deployment': Deployment,
  'rbac.authorization.k8s.io/v1/ClusterRole': ClusterRole,
  'rbac.authorization.k8s.io/v1/ClusterRoleBinding': ClusterRoleBinding,
  'rbac.authorization.k8s.io/v1/Role': Role,
  'rbac.authorization.k8s.io/v1/RoleBinding': RoleBinding,
  'networking.k8s.io/v1/IngressClass': IngressClass,
  'autoscaling/v2/HorizontalPodAutoscaler': HorizontalPodAutoscaler,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'admissionregistration.k8s.io/v1/ValidatingWebhookConfiguration': ValidatingWebhookConfiguration,
};

/** The reasons an object fails its schema, or [] (an unknown kind is a failure too). */
export function schemaErrors(o: Obj): string[] {
  const Model = MODELS[`${o.apiVersion}/${o.kind}`];
  if (!Model) return [`${o.apiVersion} ${o.kind}: no schema known for this kind`];
  try {
    new Model(o as never).validate();
    return [];
  } catch (err) {
    return [`${o.kind} ${o.metadata.name}: ${(err as Error).message}`];
  }
}

/** `kubectl kustomize DIR` (relative to the repo), parsed. */
export async function kustomize(dir: string): Promise<Obj[]> {
  const { stdout } = await run('kubectl', ['kustomize', join(REPO, dir)], { maxBuffer: 16 * 1024 * 1024, timeout: 60_000 });
  return parseAllDocuments(stdout).map((d) => d.toJS() as Obj);
}

/** The one object of `kind` named `name` (throws when missing). */
export function one(objs: readonly Obj[], kind: string, name: string): Obj {
  const o = objs.find((x) => x.kind === kind && x.metadata.name === name);
  if (!o) throw new Error(`${kind} ${name} is not in the build`);
  return o;
}

export const idOf = (o: Obj): string => `${o.kind} ${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Whether kubectl (with kustomize) is on this machine. */
export async function haveKubectl(): Promise<boolean> {
  return run('kubectl', ['version', '--client'], { timeout: 20_000 }).then(
    () => true,
    () => false,
  );
}
