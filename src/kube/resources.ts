// The resources Portico lists and watches: their API paths, list calls and selectors; deploy/rbac.yaml follows it.
import { CoreV1Api, CustomObjectsApi, DiscoveryV1Api, NetworkingV1Api, type KubeConfig, type KubernetesListObject, type KubernetesObject } from '@kubernetes/client-node';
import type { Kind } from '../store/kinds.js';
import { GATEWAY_RESOURCES } from './gateway-resources.js';

/** One page of a list call: the query parameters every typed list function takes. */
export interface PageQuery {
  readonly fieldSelector?: string;
  readonly labelSelector?: string;
  readonly limit: number;
  readonly _continue?: string;
}

export type ListPage = (namespace: string | undefined, q: PageQuery) => Promise<KubernetesListObject<KubernetesObject>>;

/** The typed API clients the list calls use. */
export interface Apis {
  readonly core: CoreV1Api;
  readonly net: NetworkingV1Api;
  readonly discovery: DiscoveryV1Api;
  /** Gateway API kinds (kube/gateway-resources.ts). */
  readonly custom: CustomObjectsApi;
}

export function makeApis(kc: KubeConfig): Apis {
  return { core: kc.makeApiClient(CoreV1Api), net: kc.makeApiClient(NetworkingV1Api), discovery: kc.makeApiClient(DiscoveryV1Api), custom: kc.makeApiClient(CustomObjectsApi) };
}

/** A watched resource. `feed` names one informer; two feeds may fill one store kind (Secrets of two types). */
export interface Resource {
  readonly feed: string;
  readonly kind: Kind;
  readonly group: string;
  readonly version: string;
  readonly plural: string;
  readonly namespaced: boolean;
  /** Server-side filter: Secrets of types Portico never reads are never sent, so never held in memory. */
  readonly fieldSelector?: string;
  readonly list: (apis: Apis) => ListPage;
  /** Gateway API: watched only with --enable-gateway-api, and a failed first list (CRDs not installed) leaves the kind empty instead of stopping Portico. */
  readonly optional?: boolean;
  /** The same kind at an older version, listed instead when the cluster does not serve this one (404). */
  readonly fallback?: Resource;
}

/** Secret types Portico reads: TLS certificates, and Opaque for basic-auth files. */
export const SECRET_TYPES = ['kubernetes.io/tls', 'Opaque'] as const;

export const RESOURCES: readonly Resource[] = Object.freeze([
  {
    feed: 'Ingress',
    kind: 'Ingress',
    group: 'networking.k8s.io',
    version: 'v1',
    plural: 'ingresses',
    namespaced: true,
    list:
      ({ net }) =>
      (namespace, q) =>
        namespace ? net.listNamespacedIngress({ namespace, ...q }) : net.listIngressForAllNamespaces(q),
  },
  {
    feed: 'IngressClass',
    kind: 'IngressClass',
    group: 'networking.k8s.io',
    version: 'v1',
    plural: 'ingressclasses',
    namespaced: false,
    list:
      ({ net }) =>
      (_ns, q) =>
        net.listIngressClass(q),
  },
  {
    feed: 'Service',
    kind: 'Service',
    group: '',
    version: 'v1',
    plural: 'services',
    namespaced: true,
    list:
      ({ core }) =>
      (namespace, q) =>
        namespace ? core.listNamespacedService({ namespace, ...q }) : core.listServiceForAllNamespaces(q),
  },
  {
    feed: 'EndpointSlice',
    kind: 'EndpointSlice',
    group: 'discovery.k8s.io',
    version: 'v1',
    plural: 'endpointslices',
    namespaced: true,
    list:
      ({ discovery }) =>
      (namespace, q) =>
        namespace ? discovery.listNamespacedEndpointSlice({ namespace, ...q }) : discovery.listEndpointSliceForAllNamespaces(q),
  },
  ...SECRET_TYPES.map((type) => ({
    feed: `Secret/${type}`,
    kind: 'Secret' as const,
    group: '',
    version: 'v1',
    plural: 'secrets',
    namespaced: true,
    fieldSelector: `type=${type}`,
    list:
      ({ core }: Apis): ListPage =>
      (namespace, q) =>
        namespace ? core.listNamespacedSecret({ namespace, ...q }) : core.listSecretForAllNamespaces(q),
  })),
  {
    feed: 'ConfigMap',
    kind: 'ConfigMap',
    group: '',
    version: 'v1',
    plural: 'configmaps',
    namespaced: true,
    list:
      ({ core }) =>
      (namespace, q) =>
        namespace ? core.listNamespacedConfigMap({ namespace, ...q }) : core.listConfigMapForAllNamespaces(q),
  },
  ...GATEWAY_RESOURCES,
]);

/** Watched only with --watch-namespace-selector: the namespaces whose objects Portico keeps. */
export const NAMESPACES: Resource = Object.freeze({
  feed: 'Namespace',
  kind: 'Namespace',
  group: '',
  version: 'v1',
  plural: 'namespaces',
  namespaced: false,
  list:
    ({ core }: Apis): ListPage =>
    (_ns, q) =>
      core.listNamespace(q),
});

/** The watch path of a resource, within one namespace or across all. */
export function watchPath(r: Resource, namespace: string | undefined): string {
  const prefix = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
  return namespace && r.namespaced ? `${prefix}/namespaces/${namespace}/${r.plural}` : `${prefix}/${r.plural}`;
}

/** The verbs Portico uses on every resource above (informers only list and watch). */
export const VERBS = ['list', 'watch'] as const;

/** `group/plural` of everything Portico reads, for the RBAC check. */
export function readResources(): string[] {
  return [...new Set([...RESOURCES, NAMESPACES].map((r) => `${r.group}/${r.plural}`))].sort();
}

/**
 * What the cluster duties call beyond the watches in any namespace (`group/resource` → verbs): status writes
 * (status.ts), the --publish-service Service and the nodes of the controller's pods (status-inputs.ts), and Events
 * on Ingresses in their own namespaces (events.ts). deploy/rbac.yaml grants them with a ClusterRole.
 */
export const DUTY_VERBS: Readonly<Record<string, readonly string[]>> = {
  'networking.k8s.io/ingresses/status': ['patch'],
  'gateway.networking.k8s.io/gatewayclasses/status': ['patch'],
  'gateway.networking.k8s.io/gateways/status': ['patch'],
  'gateway.networking.k8s.io/httproutes/status': ['patch'],
  'gateway.networking.k8s.io/grpcroutes/status': ['patch'],
  'gateway.networking.k8s.io/backendtlspolicies/status': ['patch'],
  'gateway.networking.k8s.io/tlsroutes/status': ['patch'],
  'gateway.networking.k8s.io/tcproutes/status': ['patch'],
  'gateway.networking.k8s.io/udproutes/status': ['patch'],
  'gateway.networking.k8s.io/listenersets/status': ['patch'],
  'apiextensions.k8s.io/customresourcedefinitions': ['get'],
  '/services': ['get'],
  '/nodes': ['get'],
  'events.k8s.io/events': ['create', 'patch'],
};

/**
 * What Portico calls only in its own namespace (POD_NAMESPACE), granted by a Role there: leader election on a Lease
 * (leader.ts), and its own pod and its replicas, for the status address and the last-replica check (status-inputs.ts).
 */
export const OWN_NAMESPACE_VERBS: Readonly<Record<string, readonly string[]>> = { 'coordination.k8s.io/leases': ['create', 'get', 'update', 'watch'], '/pods': ['get', 'list'] };
