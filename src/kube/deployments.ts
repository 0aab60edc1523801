// Reads Deployments for `portico migrate-check` (ingress-nginx's controller and its flags); never used by the controller.
import { AppsV1Api } from '@kubernetes/client-node';
import type { Deployment } from 'kubernetes-types/apps/v1.js';
import { errorMessage } from '../errors.js';
import { loadConnection, type ConnectOptions } from './connect.js';

/** The Deployments of `namespace` (all namespaces when undefined), as plain API JSON; or why they could not be read. */
export async function listDeployments(opts: ConnectOptions, namespace: string | undefined): Promise<{ items: Deployment[] } | { error: string }> {
  try {
    const api = loadConnection(opts).kc.makeApiClient(AppsV1Api);
    const list = namespace === undefined ? await api.listDeploymentForAllNamespaces() : await api.listNamespacedDeployment({ namespace });
    return { items: list.items.map((d) => JSON.parse(JSON.stringify(d)) as Deployment) };
  } catch (err) {
    return { error: `cannot list Deployments: ${errorMessage(err)}` };
  }
}
