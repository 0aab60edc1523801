// The kinds Portico keeps, their API versions, and how an object is keyed and trimmed before it is stored.

export const KINDS = {
  Ingress: { apiVersion: 'networking.k8s.io/v1', namespaced: true },
  IngressClass: { apiVersion: 'networking.k8s.io/v1', namespaced: false },
  Service: { apiVersion: 'v1', namespaced: true },
  EndpointSlice: { apiVersion: 'discovery.k8s.io/v1', namespaced: true },
  Secret: { apiVersion: 'v1', namespaced: true },
  ConfigMap: { apiVersion: 'v1', namespaced: true },
  // Gateway API, standard channel (issue 19; docs/gateway-api.md): read only with --enable-gateway-api.
  GatewayClass: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: false },
  Gateway: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  HTTPRoute: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  ReferenceGrant: { apiVersion: 'gateway.networking.k8s.io/v1beta1', namespaced: true },
  // Namespaces, for their labels only: Gateway listeners' allowedRoutes.namespaces.from Selector (model/gateway/attach.ts).
  Namespace: { apiVersion: 'v1', namespaced: false },
} as const;

/** The Gateway API kinds: left empty when --enable-gateway-api is off. */
export const GATEWAY_KINDS: readonly Kind[] = ['GatewayClass', 'Gateway', 'HTTPRoute', 'ReferenceGrant'];

export type Kind = keyof typeof KINDS;

/** The minimum every stored object has. */
export interface KubeObject {
  readonly apiVersion?: string;
  readonly kind?: string;
  readonly metadata?: {
    readonly name?: string;
    readonly namespace?: string;
    readonly resourceVersion?: string;
    readonly creationTimestamp?: string;
    readonly uid?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly annotations?: Readonly<Record<string, string>>;
    readonly managedFields?: unknown;
  };
}

export function isKind(kind: unknown): kind is Kind {
  return typeof kind === 'string' && Object.hasOwn(KINDS, kind);
}

/** `namespace/name` (or `name` for cluster-scoped kinds). */
export function keyOf(kind: Kind, obj: KubeObject): string {
  const name = obj.metadata?.name ?? '';
  return KINDS[kind].namespaced ? `${obj.metadata?.namespace ?? 'default'}/${name}` : name;
}

/** Deep-freezes a value in place and returns it. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

/** Drops what the model never reads (managedFields, last-applied annotation) and freezes the copy. */
export function trim<T extends KubeObject>(obj: T): T {
  const meta = { ...(obj.metadata ?? {}) };
  delete meta.managedFields;
  if (meta.annotations?.['kubectl.kubernetes.io/last-applied-configuration'] !== undefined) {
    const annotations = { ...meta.annotations };
    delete annotations['kubectl.kubernetes.io/last-applied-configuration'];
    meta.annotations = annotations;
  }
  return deepFreeze({ ...obj, metadata: meta });
}
