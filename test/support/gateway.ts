// Builders of Gateway API objects for tests: a GatewayClass of Portico's, Gateways with listeners, HTTPRoutes, GRPCRoutes, TLSRoutes, ReferenceGrants.
const V1 = 'gateway.networking.k8s.io/v1';

export const PORTICO_GATEWAY_CONTROLLER = 'portico.dev/gateway-controller';

export function gatewayClass(name: string, controllerName = PORTICO_GATEWAY_CONTROLLER): Record<string, unknown> {
  return { apiVersion: V1, kind: 'GatewayClass', metadata: { name }, spec: { controllerName } };
}

export interface ListenerSpec {
  readonly name: string;
  readonly port?: number;
  readonly protocol?: 'HTTP' | 'HTTPS';
  readonly hostname?: string;
  readonly certificateRefs?: readonly { name: string; namespace?: string }[];
  readonly from?: 'All' | 'Same' | 'Selector';
  readonly selector?: Record<string, string>;
}

export function gateway(name: string, listeners: readonly ListenerSpec[], opts: { namespace?: string; className?: string } = {}): Record<string, unknown> {
  return {
    apiVersion: V1,
    kind: 'Gateway',
    metadata: { name, namespace: opts.namespace ?? 'default' },
    spec: {
      gatewayClassName: opts.className ?? 'portico',
      listeners: listeners.map((l) => ({
        name: l.name,
        port: l.port ?? (l.protocol === 'HTTPS' ? 443 : 80),
        protocol: l.protocol ?? 'HTTP',
        ...(l.hostname ? { hostname: l.hostname } : {}),
        ...(l.certificateRefs ? { tls: { mode: 'Terminate', certificateRefs: l.certificateRefs.map((r) => ({ kind: 'Secret', group: '', ...r })) } } : {}),
        ...(l.from ? { allowedRoutes: { namespaces: { from: l.from, ...(l.selector ? { selector: { matchLabels: l.selector } } : {}) } } } : {}),
      })),
    },
  };
}

export function httpRoute(name: string, spec: Record<string, unknown>, namespace = 'default'): Record<string, unknown> {
  return { apiVersion: V1, kind: 'HTTPRoute', metadata: { name, namespace }, spec };
}

/** A ReferenceGrant in `namespace` letting HTTPRoutes of `fromNamespace` refer to `toKind` objects (Service or Secret) there. */
export function referenceGrant(name: string, namespace: string, fromNamespace: string, toKind: 'Service' | 'Secret', fromKind = 'HTTPRoute'): Record<string, unknown> {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1beta1',
    kind: 'ReferenceGrant',
    metadata: { name, namespace },
    spec: { from: [{ group: 'gateway.networking.k8s.io', kind: fromKind, namespace: fromNamespace }], to: [{ group: '', kind: toKind }] },
  };
}

export function grpcRoute(name: string, spec: Record<string, unknown>, namespace = 'default'): Record<string, unknown> {
  return { apiVersion: V1, kind: 'GRPCRoute', metadata: { name, namespace }, spec };
}

export function tlsRoute(name: string, spec: Record<string, unknown>, namespace = 'default'): Record<string, unknown> {
  return { apiVersion: V1, kind: 'TLSRoute', metadata: { name, namespace }, spec };
}
