// Typed settings the model carries: what annotations and the global ConfigMap asked for, already validated.
import { DEFAULT_NO_REDIRECT_LOCATIONS, DEFAULT_TLS_SETTINGS, type AuthTlsSettings, type RedirectCode, type Sensitive, type TlsSettings } from './tls-types.js';
import { GLOBAL_AUTH_DEFAULTS, type GlobalAuthSettings, type LocationAuth } from './settings-auth.js';
import { TRAFFIC_GLOBAL_DEFAULTS, type TrafficGlobals, type TrafficSettings } from './settings-traffic.js';
import { COMPAT_DEFAULTS, type HttpGlobals } from './settings-http.js';
import { TLS_GLOBAL_DEFAULTS, tlsSessionOf, type TlsGlobals } from './settings-tls.js';
import { TRACING_GLOBAL_DEFAULTS, type LocationTracing, type TracingGlobals } from './settings-tracing.js';

/** A size nginx understands: digits with an optional k/m/g unit (`1m`, `8k`, `0`). */
export type Size = string;
/** A duration in seconds. */
export type Seconds = number;

/** AUTO_HTTP: HTTP or HTTPS as the client used; FCGI: FastCGI (fastcgi_pass) with the `fastcgi` settings. */
export type BackendProtocol = 'HTTP' | 'HTTPS' | 'GRPC' | 'GRPCS' | 'AUTO_HTTP' | 'FCGI';

/** fastcgi-index and the fastcgi-params-configmap (`namespace/name`), and the parameters the controller read from it. */
export interface FastcgiSettings {
  readonly index?: string;
  readonly paramsConfigMap?: string;
  readonly params?: readonly (readonly [string, string])[];
}

/** Settings of the locations of one Ingress. Absent fields inherit the global (http-level) value. */
export interface LocationSettings {
  readonly rewriteTarget?: string;
  readonly useRegex?: boolean;
  readonly appRoot?: string;
  readonly redirect?: { readonly url: string; readonly code: number };
  /** relative-redirects: nginx's own redirects in these locations keep a relative Location (absolute_redirect off). */
  readonly relativeRedirects?: boolean;
  readonly xForwardedPrefix?: string;
  readonly upstreamVhost?: string;
  readonly backendProtocol?: BackendProtocol;
  /** Only rendered with backendProtocol FCGI. */
  readonly fastcgi?: FastcgiSettings;
  readonly connectTimeout?: Seconds;
  readonly sendTimeout?: Seconds;
  readonly readTimeout?: Seconds;
  readonly bodySize?: Size;
  readonly clientBodyBufferSize?: Size;
  readonly buffering?: boolean;
  readonly bufferSize?: Size;
  readonly buffersNumber?: number;
  readonly requestBuffering?: boolean;
  readonly nextUpstream?: readonly string[];
  readonly nextUpstreamTries?: number;
  readonly nextUpstreamTimeout?: Seconds;
  readonly httpVersion?: '1.0' | '1.1';
  /** use-port-in-redirects, proxy-max-temp-file-size, proxy-busy-buffers-size. */
  readonly portInRedirect?: boolean;
  readonly maxTempFileSize?: Size;
  readonly busyBuffersSize?: Size;
  readonly redirectFrom?: string;
  readonly redirectTo?: string;
  readonly cookieDomain?: readonly [string, string] | 'off';
  readonly cookiePath?: readonly [string, string] | 'off';
  readonly connectionHeader?: string;
  readonly sslVerify?: boolean;
  readonly sslVerifyDepth?: number;
  readonly sslName?: string;
  readonly sslServerName?: boolean;
  readonly sslProtocols?: readonly string[];
  readonly sslCiphers?: string;
  /** Secret (`name` or `namespace/name`) holding `ca.crt` (and a client `tls.crt`/`tls.key`) for backend TLS. */
  readonly sslSecret?: string;
  /** What the model resolved `sslSecret` to: the files nginx reads, or why it could not (the paths answer 503). */
  readonly proxySsl?: ProxySsl;
  readonly customHttpErrors?: readonly number[];
  /** disable-proxy-intercept-errors: the backend's own error answers pass, custom-http-errors or not. */
  readonly disableProxyInterceptErrors?: boolean;
  /** Service name (same namespace) for this Ingress's 503s and custom errors. */
  readonly defaultBackend?: string;
  /** The upstream the model resolved `defaultBackend` to. */
  readonly defaultBackendUpstream?: string;
  readonly sslRedirect?: boolean;
  readonly forceSslRedirect?: boolean;
  readonly preserveTrailingSlash?: boolean;
  /**
   * The Ingress asked for cookie affinity (`affinity: cookie`): its own paths set the cookie, with session-cookie-path
   * when given (`path`), else the path of the location (as ingress-nginx); other paths of the same backend do not.
   */
  readonly affinityCookie?: { readonly path?: string };
  /** Response headers from the `custom-headers` ConfigMap, resolved by the model. */
  readonly customHeaders?: string;
  readonly responseHeaders?: readonly (readonly [string, string])[];
  readonly configurationSnippet?: string;
  /** Authentication and access lists (model/settings-auth.ts). */
  readonly auth?: LocationAuth;
  /** Rate limits, CORS, mirroring, logs and canary (model/settings-traffic.ts). */
  readonly traffic?: TrafficSettings;
  /** OpenTelemetry annotations (model/settings-tracing.ts). */
  readonly tracing?: LocationTracing;
}

/** Backend TLS material from a `proxy-ssl-secret`; file names are digests of their content. */
export type ProxySsl =
  | {
      readonly secret: string;
      readonly denied?: undefined;
      readonly caPem: string;
      readonly caDigest: string;
      readonly crlPem?: string;
      readonly crlDigest?: string;
      /** A client certificate for the backend: `tls.crt` and `tls.key` in one PEM file. */
      readonly client?: { readonly digest: string; readonly pem: Sensitive };
    }
  | { readonly secret: string; readonly denied: string };

/** Settings of the servers (hosts) of one Ingress; the oldest Ingress of a host wins. */
export interface ServerSettings {
  readonly serverAlias?: readonly string[];
  readonly fromToWwwRedirect?: boolean;
  readonly serverSnippet?: string;
  readonly streamSnippet?: string;
  /** ssl_ciphers and ssl_prefer_server_ciphers of the host's server (TLS up to 1.2). */
  readonly sslCiphers?: string;
  readonly sslPreferServerCiphers?: 'on' | 'off';
}

/** Everything the annotations of one Ingress asked for. */
/** Cookie session affinity (ingress-nginx's `affinity: cookie` and `session-cookie-*`). */
export interface Affinity {
  readonly mode: 'balanced' | 'persistent';
  readonly name: string;
  readonly path: string;
  readonly maxAge?: number;
  readonly expires?: number;
  readonly sameSite?: 'None' | 'Lax' | 'Strict';
  readonly secure?: boolean;
  /** affinity-canary-behavior `legacy`: this side's cookie never decides the canary (absent: ingress-nginx's default, sticky). */
  readonly canaryBehavior?: 'legacy';
}

/** How the Lua balancer picks peers for the Services an Ingress names (the oldest Ingress of a Service wins). */
export interface UpstreamSettings {
  readonly loadBalance?: 'round_robin' | 'ewma';
  /** An nginx variable expression, e.g. `$request_uri`; evaluated by Lua, never rendered into nginx.conf. */
  readonly hashBy?: string;
  /** upstream-hash-by-subset: the hash picks a subset of this many endpoints, and the request a random one of them. */
  readonly hashSubset?: number;
  readonly affinity?: Affinity;
  /** `service-upstream`: one endpoint, the Service's cluster IP and port, instead of the pod endpoints. */
  readonly serviceUpstream?: boolean;
}

export interface IngressSettings {
  readonly location: LocationSettings;
  readonly server: ServerSettings;
  readonly upstream?: UpstreamSettings;
  /** Client-certificate authentication (auth-tls-*), read by the TLS model for the Ingress's hosts. */
  readonly authTls?: AuthTlsSettings;
}

export const NO_SETTINGS: IngressSettings = Object.freeze({ location: Object.freeze({}), server: Object.freeze({}) });

export type RiskLevel = 'Low' | 'Medium' | 'High' | 'Critical';
export const RISK_ORDER: readonly RiskLevel[] = ['Low', 'Medium', 'High', 'Critical'];

/** The global settings of the ConfigMap, with ingress-nginx's defaults. */
export interface GlobalSettings extends GlobalAuthSettings, TrafficGlobals, HttpGlobals, TlsGlobals, TracingGlobals {
  readonly proxyBodySize: Size;
  readonly proxyConnectTimeout: Seconds;
  readonly proxyReadTimeout: Seconds;
  readonly proxySendTimeout: Seconds;
  readonly proxyBuffering: boolean;
  readonly proxyBufferSize: Size;
  readonly clientBodyBufferSize: Size;
  readonly sslRedirect: boolean;
  readonly httpRedirectCode: RedirectCode;
  readonly hsts: boolean;
  readonly hstsMaxAge: number;
  readonly hstsIncludeSubdomains: boolean;
  readonly hstsPreload: boolean;
  readonly useHttp2: boolean;
  /** TLS versions offered on the HTTPS port, e.g. `TLSv1.2 TLSv1.3`. */
  readonly sslProtocols: string;
  /** OpenSSL cipher list for TLS up to 1.2. */
  readonly sslCiphers: string;
  readonly useForwardedHeaders: boolean;
  readonly computeFullForwardedFor: boolean;
  readonly forwardedForHeader: string;
  /** With both use-proxy-protocol and use-forwarded-headers: the request header realip reads the client address from. */
  readonly forwardedForProxyProtocolHeader: string;
  readonly enableRealIp: boolean;
  readonly proxyRealIpCidr: readonly string[];
  readonly useProxyProtocol: boolean;
  readonly serverTokens: boolean;
  readonly keepAlive: Seconds;
  readonly keepAliveRequests: number;
  readonly upstreamKeepaliveConnections: number;
  readonly upstreamKeepaliveTimeout: Seconds;
  readonly upstreamKeepaliveRequests: number;
  readonly workerProcesses: number | 'auto';
  readonly maxWorkerConnections: number;
  readonly workerShutdownTimeout: Seconds;
  readonly logFormatUpstream: string | undefined;
  readonly logFormatEscapeJson: boolean;
  readonly accessLogPath: string | undefined;
  readonly errorLogLevel: 'debug' | 'info' | 'notice' | 'warn' | 'error' | 'crit' | 'alert' | 'emerg';
  /** Undefined: the --default-load-balance flag. */
  readonly loadBalance: 'round_robin' | 'ewma' | undefined;
  readonly customHttpErrors: readonly number[];
  /** `namespace/name` of a ConfigMap of response headers, and what the controller resolved it to. */
  readonly addHeaders: string | undefined;
  readonly proxySetHeaders: string | undefined;
  readonly allowSnippetAnnotations: boolean | undefined;
  readonly annotationsRiskLevel: RiskLevel | undefined;
  readonly strictValidatePathType: boolean;
  /** `service-upstream`: the default of the Ingress annotation of the same name. */
  readonly serviceUpstream: boolean;
  readonly blockCidrs: readonly string[];
  readonly blockUserAgents: readonly string[];
}

/** ingress-nginx's defaults of the global ConfigMap. */
export const GLOBAL_DEFAULTS: GlobalSettings = Object.freeze({
  ...TRAFFIC_GLOBAL_DEFAULTS,
  ...COMPAT_DEFAULTS,
  ...TLS_GLOBAL_DEFAULTS,
  ...TRACING_GLOBAL_DEFAULTS,
  proxyBodySize: '1m',
  proxyConnectTimeout: 5,
  proxyReadTimeout: 60,
  proxySendTimeout: 60,
  proxyBuffering: false,
  proxyBufferSize: '4k',
  clientBodyBufferSize: '8k',
  sslRedirect: true,
  httpRedirectCode: 308,
  hsts: true,
  hstsMaxAge: 31536000,
  hstsIncludeSubdomains: true,
  hstsPreload: false,
  useHttp2: true,
  sslProtocols: DEFAULT_TLS_SETTINGS.protocols,
  sslCiphers: DEFAULT_TLS_SETTINGS.ciphers,
  useForwardedHeaders: false,
  computeFullForwardedFor: false,
  forwardedForHeader: 'X-Forwarded-For',
  forwardedForProxyProtocolHeader: 'X-Forwarded-For-Proxy-Protocol',
  enableRealIp: false,
  proxyRealIpCidr: ['0.0.0.0/0'],
  useProxyProtocol: false,
  serverTokens: false,
  keepAlive: 75,
  keepAliveRequests: 1000,
  upstreamKeepaliveConnections: 320,
  upstreamKeepaliveTimeout: 60,
  upstreamKeepaliveRequests: 10000,
  workerProcesses: 'auto',
  maxWorkerConnections: 16384,
  workerShutdownTimeout: 240,
  logFormatUpstream: undefined,
  logFormatEscapeJson: false,
  accessLogPath: undefined,
  errorLogLevel: 'notice',
  loadBalance: undefined,
  customHttpErrors: [],
  addHeaders: undefined,
  proxySetHeaders: undefined,
  allowSnippetAnnotations: undefined,
  annotationsRiskLevel: undefined,
  strictValidatePathType: true,
  serviceUpstream: false,
  blockCidrs: [],
  blockUserAgents: [],
  ...GLOBAL_AUTH_DEFAULTS,
});

/** Header sets resolved from the ConfigMaps named by `add-headers` and `proxy-set-headers`. */
export interface ResolvedHeaders {
  readonly add: readonly (readonly [string, string])[];
  readonly proxySet: readonly (readonly [string, string])[];
}

/** What the annotation step hands to translation: settings per Ingress (`namespace/name`) and path strictness. */
export interface AnnotationInput {
  readonly settings: ReadonlyMap<string, IngressSettings>;
  readonly strictPaths: boolean;
  /** The ConfigMap's service-upstream: Ingresses without the annotation proxy to the Service's cluster IP; absent: false. */
  readonly serviceUpstream?: boolean;
}

export const NO_HEADERS: ResolvedHeaders = Object.freeze({ add: [], proxySet: [] });

const sameList = (a: readonly string[], b: readonly string[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

/** The TLS part of the global ConfigMap, as the TLS model takes it (keys at their default are left out: model fixtures stay as they were). */
export function tlsSettingsOf(g: GlobalSettings): TlsSettings {
  return {
    protocols: g.sslProtocols,
    ciphers: g.sslCiphers,
    http2: g.useHttp2,
    sslRedirect: g.sslRedirect,
    redirectCode: g.httpRedirectCode,
    hsts: g.hsts,
    hstsMaxAge: g.hstsMaxAge,
    hstsIncludeSubdomains: g.hstsIncludeSubdomains,
    hstsPreload: g.hstsPreload,
    ...(sameList(g.noTlsRedirectLocations, DEFAULT_NO_REDIRECT_LOCATIONS) ? {} : { noRedirectLocations: g.noTlsRedirectLocations }),
    ...(tlsSessionOf(g) ? { session: tlsSessionOf(g) } : {}),
    ...(g.sslRejectHandshake ? { rejectHandshake: true } : {}),
    ...(g.sslDhParam !== undefined ? { dhParam: g.sslDhParam } : {}),
  };
}
