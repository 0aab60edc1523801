// Kind registry of the API server double: which resources it serves, where, and with which conventions.

/** One served resource: its identity, its URL plural, scope and the conventions its strategy follows. */
export interface KindInfo {
  readonly kind: string;
  readonly listKind: string;
  readonly group: string; // '' for the core group
  readonly version: string;
  readonly plural: string;
  readonly singular: string;
  readonly namespaced: boolean;
  /** Has a /status subresource: main writes ignore status, /status writes change only status. */
  readonly status: boolean;
  /** The strategy sets metadata.generation = 1 on create and bumps it when anything but metadata/status changes. */
  readonly generation: boolean;
  /** Writable through the API (Pods and Nodes are get/list/watch only, seeded by tests with put()). */
  readonly writable: boolean;
  /** Field selectors this kind supports besides metadata.name and metadata.namespace. */
  readonly fields: readonly string[];
}

function k(kind: string, groupVersion: string, plural: string, opts: Partial<Pick<KindInfo, 'namespaced' | 'status' | 'generation' | 'writable' | 'fields'>> = {}): KindInfo {
  const slash = groupVersion.indexOf('/');
  return Object.freeze({
    kind,
    listKind: `${kind}List`,
    group: slash < 0 ? '' : groupVersion.slice(0, slash),
    version: slash < 0 ? groupVersion : groupVersion.slice(slash + 1),
    plural,
    singular: kind.toLowerCase(),
    namespaced: opts.namespaced ?? true,
    status: opts.status ?? false,
    generation: opts.generation ?? false,
    writable: opts.writable ?? true,
    fields: Object.freeze([...(opts.fields ?? [])]),
  });
}

/** Every kind the double serves. */
export const KINDS: readonly KindInfo[] = Object.freeze([
  k('Ingress', 'networking.k8s.io/v1', 'ingresses', { status: true, generation: true }),
  k('IngressClass', 'networking.k8s.io/v1', 'ingressclasses', { namespaced: false, generation: true }),
  k('Service', 'v1', 'services', { status: true }),
  k('EndpointSlice', 'discovery.k8s.io/v1', 'endpointslices', { generation: true }),
  k('Secret', 'v1', 'secrets', { fields: ['type'] }),
  k('ConfigMap', 'v1', 'configmaps'),
  k('Namespace', 'v1', 'namespaces', { namespaced: false, status: true, fields: ['status.phase'] }),
  k('Lease', 'coordination.k8s.io/v1', 'leases'),
  k('Event', 'v1', 'events', { fields: ['involvedObject.kind', 'involvedObject.name', 'involvedObject.namespace', 'involvedObject.uid', 'reason', 'type', 'source'] }),
  k('Event', 'events.k8s.io/v1', 'events', { fields: ['regarding.kind', 'regarding.name', 'regarding.namespace', 'reason', 'type'] }),
  k('Pod', 'v1', 'pods', { status: true, writable: false, fields: ['spec.nodeName', 'status.phase', 'status.podIP'] }),
  k('Node', 'v1', 'nodes', { namespaced: false, status: true, writable: false, fields: ['spec.unschedulable'] }),
  // Read by `portico migrate-check` only (ingress-nginx's controller and its flags).
  k('Deployment', 'apps/v1', 'deployments', { status: true, generation: true }),
  // Gateway API custom resources, as their CRDs declare them: a status subresource, and a generation.
  k('GatewayClass', 'gateway.networking.k8s.io/v1', 'gatewayclasses', { namespaced: false, status: true, generation: true }),
  k('Gateway', 'gateway.networking.k8s.io/v1', 'gateways', { status: true, generation: true }),
  k('HTTPRoute', 'gateway.networking.k8s.io/v1', 'httproutes', { status: true, generation: true }),
  k('GRPCRoute', 'gateway.networking.k8s.io/v1', 'grpcroutes', { status: true, generation: true }),
  k('BackendTLSPolicy', 'gateway.networking.k8s.io/v1', 'backendtlspolicies', { status: true, generation: true }),
  k('TLSRoute', 'gateway.networking.k8s.io/v1', 'tlsroutes', { status: true, generation: true }),
  k('TCPRoute', 'gateway.networking.k8s.io/v1', 'tcproutes', { status: true, generation: true }),
  k('ListenerSet', 'gateway.networking.k8s.io/v1', 'listenersets', { status: true, generation: true }),
  k('UDPRoute', 'gateway.networking.k8s.io/v1', 'udproutes', { status: true, generation: true }),
  k('ReferenceGrant', 'gateway.networking.k8s.io/v1beta1', 'referencegrants', { generation: true }),
  // Served at v1 too from Gateway API v1.5. The double stores each version apart (an API server converts between
  // them): a test puts a grant at the version it means Portico to read.
  k('ReferenceGrant', 'gateway.networking.k8s.io/v1', 'referencegrants', { generation: true }),
  // Read by the Gateway API status writer for the CRDs' bundle-version annotation (GatewayClass SupportedVersion).
  k('CustomResourceDefinition', 'apiextensions.k8s.io/v1', 'customresourcedefinitions', { namespaced: false, generation: true }),
]);

/** "v1" or "group/version", as it appears in apiVersion. */
export function apiVersionOf(info: KindInfo): string {
  return info.group === '' ? info.version : `${info.group}/${info.version}`;
}

/** The kind served at group/version/plural, if any. */
export function kindByPlural(group: string, version: string, plural: string): KindInfo | undefined {
  return KINDS.find((i) => i.group === group && i.version === version && i.plural === plural);
}

/** The kind named by apiVersion + kind (as in an object body), if served. */
export function kindByApiVersion(apiVersion: string, kind: string): KindInfo | undefined {
  return KINDS.find((i) => apiVersionOf(i) === apiVersion && i.kind === kind);
}

/**
 * The kind a test names loosely: "Ingress", "ingresses", or "events.k8s.io/v1/Event". A bare "Event" means core v1.
 */
export function resolveKind(name: string): KindInfo | undefined {
  const slash = name.lastIndexOf('/');
  if (slash >= 0) return kindByApiVersion(name.slice(0, slash), name.slice(slash + 1));
  return KINDS.find((i) => i.kind === name || i.plural === name);
}

/** Storage key of a kind: group/version/plural is unique, and two Event kinds must not collide. */
export function kindKey(info: KindInfo): string {
  return `${info.group}/${info.version}/${info.plural}`;
}
