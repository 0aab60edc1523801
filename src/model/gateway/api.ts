// The Gateway API objects translation reads (standard channel, gateway.networking.k8s.io v1: HTTPRoute, GRPCRoute; ReferenceGrant v1beta1), as plain API JSON.
import type { KubeObject } from '../input.js';

export const GATEWAY_GROUP = 'gateway.networking.k8s.io';

export interface Condition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
  readonly observedGeneration?: number;
  readonly lastTransitionTime?: string;
}

interface Meta extends KubeObject {
  readonly metadata?: KubeObject['metadata'] & { readonly generation?: number };
}

export interface GatewayClass extends Meta {
  readonly spec?: {
    readonly controllerName?: string;
    readonly description?: string;
    readonly parametersRef?: { readonly group?: string; readonly kind?: string; readonly name?: string; readonly namespace?: string };
  };
  readonly status?: { readonly conditions?: readonly Condition[] };
}

export interface SecretObjectReference {
  readonly group?: string;
  readonly kind?: string;
  readonly name: string;
  readonly namespace?: string;
}

export interface RouteGroupKind {
  readonly group?: string;
  readonly kind: string;
}

export interface LabelSelector {
  readonly matchLabels?: Readonly<Record<string, string>>;
  readonly matchExpressions?: readonly { readonly key: string; readonly operator: string; readonly values?: readonly string[] }[];
}

export interface Listener {
  readonly name: string;
  readonly hostname?: string;
  readonly port: number;
  readonly protocol: string;
  readonly tls?: { readonly mode?: 'Terminate' | 'Passthrough'; readonly certificateRefs?: readonly SecretObjectReference[] };
  readonly allowedRoutes?: { readonly namespaces?: { readonly from?: 'All' | 'Same' | 'Selector'; readonly selector?: LabelSelector }; readonly kinds?: readonly RouteGroupKind[] };
}

export interface Gateway extends Meta {
  readonly spec?: {
    readonly gatewayClassName?: string;
    readonly listeners?: readonly Listener[];
    readonly addresses?: readonly { readonly type?: string; readonly value?: string }[];
    readonly infrastructure?: { readonly parametersRef?: { readonly group?: string; readonly kind?: string; readonly name?: string } };
    /** Client certificates: validation of clients per port (frontend), the certificate shown to backends (backend): model/gateway/client-cert.ts. */
    readonly tls?: GatewayTlsConfig;
    /** Which namespaces' ListenerSets may add listeners (model/gateway/listenerset.ts); unset: none. */
    readonly allowedListeners?: { readonly namespaces?: { readonly from?: 'All' | 'Same' | 'Selector' | 'None'; readonly selector?: LabelSelector } };
  };
  readonly status?: unknown;
}

/** A reference to a CA bundle (ConfigMap or Secret) or a client certificate (Secret), possibly in another namespace. */
export interface GatewayObjectReference {
  readonly group?: string;
  readonly kind?: string;
  readonly name: string;
  readonly namespace?: string;
}

/** spec.tls.frontend.default.validation and spec.tls.frontend.perPort[].tls.validation. */
export interface FrontendTlsValidation {
  readonly caCertificateRefs?: readonly GatewayObjectReference[];
  readonly mode?: 'AllowValidOnly' | 'AllowInsecureFallback';
}

/** A Gateway's spec.tls. */
export interface GatewayTlsConfig {
  readonly frontend?: {
    readonly default?: { readonly validation?: FrontendTlsValidation };
    readonly perPort?: readonly { readonly port: number; readonly tls?: { readonly validation?: FrontendTlsValidation } }[];
  };
  readonly backend?: { readonly clientCertificateRef?: GatewayObjectReference };
}

export interface ParentReference {
  readonly group?: string;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name: string;
  readonly sectionName?: string;
  readonly port?: number;
}

export interface HTTPHeader {
  readonly name: string;
  readonly value: string;
}

export interface HTTPRouteMatch {
  readonly path?: { readonly type?: 'Exact' | 'PathPrefix' | 'RegularExpression'; readonly value?: string };
  readonly headers?: readonly { readonly type?: 'Exact' | 'RegularExpression'; readonly name: string; readonly value: string }[];
  readonly queryParams?: readonly { readonly type?: 'Exact' | 'RegularExpression'; readonly name: string; readonly value: string }[];
  readonly method?: string;
}

export interface HTTPPathModifier {
  readonly type: 'ReplaceFullPath' | 'ReplacePrefixMatch';
  readonly replaceFullPath?: string;
  readonly replacePrefixMatch?: string;
}

export interface HTTPHeaderFilter {
  readonly set?: readonly HTTPHeader[];
  readonly add?: readonly HTTPHeader[];
  readonly remove?: readonly string[];
}

export interface BackendObjectReference {
  readonly group?: string;
  readonly kind?: string;
  readonly name: string;
  readonly namespace?: string;
  readonly port?: number;
}

export interface HTTPRouteFilter {
  readonly type: string;
  readonly requestHeaderModifier?: HTTPHeaderFilter;
  readonly responseHeaderModifier?: HTTPHeaderFilter;
  readonly requestRedirect?: { readonly scheme?: string; readonly hostname?: string; readonly path?: HTTPPathModifier; readonly port?: number; readonly statusCode?: number };
  readonly urlRewrite?: { readonly hostname?: string; readonly path?: HTTPPathModifier };
  readonly requestMirror?: { readonly backendRef: BackendObjectReference; readonly percent?: number; readonly fraction?: { readonly numerator: number; readonly denominator?: number } };
  readonly extensionRef?: unknown;
  readonly cors?: HTTPCORSFilter;
}

/** The CORS filter (HTTPRouteCORS, extended). */
export interface HTTPCORSFilter {
  readonly allowOrigins?: readonly string[];
  readonly allowMethods?: readonly string[];
  readonly allowHeaders?: readonly string[];
  readonly exposeHeaders?: readonly string[];
  readonly maxAge?: number;
  readonly allowCredentials?: boolean;
}

export interface HTTPBackendRef extends BackendObjectReference {
  readonly weight?: number;
  readonly filters?: readonly HTTPRouteFilter[];
}

export interface HTTPRouteRule {
  readonly name?: string;
  readonly matches?: readonly HTTPRouteMatch[];
  readonly filters?: readonly HTTPRouteFilter[];
  readonly backendRefs?: readonly HTTPBackendRef[];
  readonly timeouts?: { readonly request?: string; readonly backendRequest?: string };
  /** HTTPRouteRetry (extended): response codes to retry on, retries, the wait between tries. */
  readonly retry?: { readonly codes?: readonly number[]; readonly attempts?: number; readonly backoff?: string };
}

export interface HTTPRoute extends Meta {
  readonly spec?: { readonly parentRefs?: readonly ParentReference[]; readonly hostnames?: readonly string[]; readonly rules?: readonly HTTPRouteRule[] };
  readonly status?: unknown;
}

export interface ReferenceGrant extends Meta {
  readonly spec?: {
    readonly from?: readonly { readonly group: string; readonly kind: string; readonly namespace: string }[];
    readonly to?: readonly { readonly group: string; readonly kind: string; readonly name?: string }[];
  };
}

/** GRPCRoute `spec.rules[].matches[].method`: Exact (default) or RegularExpression over the service and the method. */
export interface GRPCMethodMatch {
  readonly type?: 'Exact' | 'RegularExpression';
  readonly service?: string;
  readonly method?: string;
}

export interface GRPCRouteMatch {
  readonly method?: GRPCMethodMatch;
  readonly headers?: readonly { readonly type?: 'Exact' | 'RegularExpression'; readonly name: string; readonly value: string }[];
}

/** GRPCRoute filters share HTTPRoute's shapes (header modifiers, RequestMirror, ExtensionRef). */
export type GRPCRouteFilter = Pick<HTTPRouteFilter, 'type' | 'requestHeaderModifier' | 'responseHeaderModifier' | 'requestMirror' | 'extensionRef'>;

export interface GRPCBackendRef extends BackendObjectReference {
  readonly weight?: number;
  readonly filters?: readonly GRPCRouteFilter[];
}

export interface GRPCRouteRule {
  readonly name?: string;
  readonly matches?: readonly GRPCRouteMatch[];
  readonly filters?: readonly GRPCRouteFilter[];
  readonly backendRefs?: readonly GRPCBackendRef[];
}

export interface GRPCRoute extends Meta {
  readonly spec?: { readonly parentRefs?: readonly ParentReference[]; readonly hostnames?: readonly string[]; readonly rules?: readonly GRPCRouteRule[] };
  readonly status?: unknown;
}

/** TLSRoute (v1 from Gateway API v1.5): SNI hostnames and rules of backendRefs only; TLS hides everything else. */
export interface TLSRouteRule {
  readonly name?: string;
  readonly backendRefs?: readonly (BackendObjectReference & { readonly weight?: number })[];
}

export interface TLSRoute extends Meta {
  readonly spec?: { readonly parentRefs?: readonly ParentReference[]; readonly hostnames?: readonly string[]; readonly rules?: readonly TLSRouteRule[] };
  readonly status?: unknown;
}

/** ListenerSet (v1 from Gateway API v1.6): listeners added to a parent Gateway whose allowedListeners admit its namespace. */
export interface ListenerSet extends Meta {
  readonly spec?: { readonly parentRef?: { readonly group?: string; readonly kind?: string; readonly name: string; readonly namespace?: string }; readonly listeners?: readonly Listener[] };
  readonly status?: unknown;
}
