// The narrow interface translation reads: a frozen snapshot of the objects Portico keeps.
import type { Ingress, IngressClass } from 'kubernetes-types/networking/v1.js';
import type { ConfigMap, Namespace, Secret, Service } from 'kubernetes-types/core/v1.js';
import type { TlsOptions } from './tls-types.js';
import type { TargetPolicy } from './targets.js';
import type { ModelMemo } from './memo.js';
import type { StreamOptions } from './stream.js';
import type { Gateway, GatewayClass, GRPCRoute, HTTPRoute, ListenerSet, ReferenceGrant, TLSRoute } from './gateway/api.js';
import type { BackendTLSPolicy } from './gateway/backend-tls.js';
import type { GatewayOptions } from './gateway/translate.js';
import type { L4Route } from './gateway/l4-api.js';
import type { StoredEndpointSlice } from './packed-endpoints.js';

export type { Ingress, IngressClass, ConfigMap, Namespace, Secret, Service, Gateway, GatewayClass, HTTPRoute, ReferenceGrant };
/** An EndpointSlice as the snapshot holds it: its endpoints packed or as the API gave them (model/packed-endpoints.ts). */
export type EndpointSlice = StoredEndpointSlice;

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
    readonly ownerReferences?: unknown;
  };
}

/**
 * What the controller resolved a Service's `spec.externalName` to (src/sources/external-names.ts): every address, or
 * why none. Not an API object: the controller adds these to the snapshot; the model never resolves anything.
 */
export interface ResolvedName {
  readonly name: string;
  readonly addresses: readonly string[];
  readonly error?: string;
}

/** Every object the model may read, frozen; arrays in no particular order. */
export interface Snapshot {
  readonly ingresses: readonly Ingress[];
  readonly ingressClasses: readonly IngressClass[];
  readonly services: readonly Service[];
  /** As stored: endpoints packed or as the API gave them; read through endpointList() (model/packed-endpoints.ts). */
  readonly endpointSlices: readonly EndpointSlice[];
  readonly secrets: readonly Secret[];
  readonly configMaps: readonly ConfigMap[];
  /** Gateway API (docs/gateway-api.md); absent in snapshots built by hand: none. */
  readonly gatewayClasses?: readonly GatewayClass[];
  readonly gateways?: readonly Gateway[];
  readonly httpRoutes?: readonly HTTPRoute[];
  readonly grpcRoutes?: readonly GRPCRoute[];
  /** TLSRoutes: SNI → backends through the stream section (model/gateway/tlsroute.ts). */
  readonly tlsRoutes?: readonly TLSRoute[];
  readonly tcpRoutes?: readonly L4Route[];
  readonly udpRoutes?: readonly L4Route[];
  /** ListenerSets: listeners of a parent Gateway that allows them (model/gateway/listenerset.ts). */
  readonly listenerSets?: readonly ListenerSet[];
  readonly referenceGrants?: readonly ReferenceGrant[];
  readonly backendTLSPolicies?: readonly BackendTLSPolicy[];
  /** Namespaces (their labels: allowedRoutes Selector); absent: none known. */
  readonly namespaces?: readonly Namespace[];
  /** ExternalName Services' names as resolved; absent or missing a name: not resolved yet (no endpoints). */
  readonly externalNames?: readonly ResolvedName[];
}

/** The parts of the configuration translation depends on. */
export interface ModelOptions {
  readonly controllerClass: string;
  readonly ingressClass: string;
  readonly watchIngressWithoutClass: boolean;
  /** --ingress-class-by-name: ingressClassName equal to ingressClass is ours whatever its controller; absent: false. */
  readonly ingressClassByName?: boolean;
  /** --disable-catch-all: an Ingress with a spec.defaultBackend is not ours; absent: false. */
  readonly disableCatchAll?: boolean;
  readonly defaultBackendService: { readonly namespace: string; readonly name: string } | undefined;
  readonly loadBalance: 'round_robin' | 'ewma';
  /** A host belongs to the namespace of its oldest Ingress (docs/adr/0008); absent: false. */
  readonly strictHostOwnership?: boolean;
  /** --allow-cross-namespace-canaries: a canary may attach to another namespace's main path (docs/security.md); absent: false. */
  readonly allowCrossNamespaceCanaries?: boolean;
  /** TLS: annotation prefix, default certificate, global settings (model/tls.ts); absent: DEFAULT_TLS_OPTIONS. */
  readonly tls?: TlsOptions;
  /** Where upstream, mirror and auth targets may point (model/targets.ts); absent: DEFAULT_TARGET_POLICY, the strictest. */
  readonly targets?: TargetPolicy;
  /** --tcp/udp-services-configmap and --enable-ssl-passthrough (model/stream.ts); absent: no stream section. */
  readonly stream?: StreamOptions;
  /** Gateway API translation (model/gateway/), with --enable-gateway-api; absent: Gateway API objects are ignored. */
  readonly gateway?: GatewayOptions;
  /** --disable-svc-external-name: ExternalName Services get no endpoints (a Warning on each); absent: false. */
  readonly disableExternalNames?: boolean;
  /** Work kept between builds by the caller (model/memo.ts); absent: everything is computed. */
  readonly memo?: ModelMemo;
}

export const EMPTY_SNAPSHOT: Snapshot = Object.freeze({
  ingresses: [],
  ingressClasses: [],
  services: [],
  endpointSlices: [],
  secrets: [],
  configMaps: [],
  gatewayClasses: [],
  gateways: [],
  httpRoutes: [],
  grpcRoutes: [],
  tlsRoutes: [],
  tcpRoutes: [],
  udpRoutes: [],
  listenerSets: [],
  referenceGrants: [],
  backendTLSPolicies: [],
  namespaces: [],
});
