// Typed settings of authentication and access lists: basic auth, external auth (auth_request), allow/deny lists.
import type { Sensitive } from './tls-types.js';

/** HTTP basic authentication from an htpasswd Secret (`auth-type: basic`). */
export interface BasicAuth {
  /** `namespace/name` of the Secret, as the annotation named it (the namespace filled in). */
  readonly secret: string;
  readonly secretType: 'auth-file' | 'auth-map';
  readonly realm: string;
  /** Set once the Secret is read: the file (relative to the work dir) and its checked htpasswd lines. */
  readonly file?: string;
  readonly users?: Sensitive;
}

/** External authentication through nginx's auth_request (`auth-url` and the ConfigMap's `global-auth-url`). */
export interface ExternalAuth {
  readonly url: string;
  readonly method?: string;
  readonly signin?: string;
  readonly redirectParam: string;
  readonly responseHeaders: readonly string[];
  readonly requestRedirect?: string;
  /** An nginx variable expression (known variables only) and `proxy_cache_valid` arguments. */
  readonly cacheKey?: string;
  readonly cacheDuration: readonly string[];
  /** With cacheKey: `namespace/name` of the Ingress, so two Ingresses never share a cached verdict (set when resolved). */
  readonly cacheScope?: string;
  readonly alwaysSetCookie: boolean;
  /** `namespace/name` of a ConfigMap of headers sent to the auth service, and the headers it held. */
  readonly proxySetHeadersRef?: string;
  readonly proxySetHeaders?: readonly (readonly [string, string])[];
  readonly snippet?: string;
  /** True when it came from the ConfigMap's global-auth-* keys. */
  readonly global: boolean;
}

/** Authentication and access lists of the locations of one Ingress. */
export interface LocationAuth {
  readonly basic?: BasicAuth;
  readonly external?: ExternalAuth;
  /** `enable-global-auth` (default true). */
  readonly enableGlobal: boolean;
  readonly allow?: readonly string[];
  readonly deny?: readonly string[];
  readonly satisfy?: 'any' | 'all';
  /** Why the protection could not be set up: the locations answer 503 (fail closed). */
  readonly denied?: string;
}

/** ConfigMap keys of global external auth, cross-namespace references and the custom-headers allowlist. */
export interface GlobalAuthSettings {
  readonly allowCrossNamespaceResources: boolean;
  readonly globalAuthUrl: string | undefined;
  readonly globalAuthMethod: string | undefined;
  readonly globalAuthSignin: string | undefined;
  readonly globalAuthSigninRedirectParam: string;
  readonly globalAuthResponseHeaders: readonly string[];
  readonly globalAuthRequestRedirect: string | undefined;
  readonly globalAuthCacheKey: string | undefined;
  readonly globalAuthCacheDuration: readonly string[];
  readonly globalAuthAlwaysSetCookie: boolean;
  /** global-allowed-response-headers: the only header names a custom-headers ConfigMap may set (none by default, as ingress-nginx). */
  readonly allowedResponseHeaders: readonly string[];
}

/** ingress-nginx's defaults (allow-cross-namespace-resources is false since 1.12). */
export const GLOBAL_AUTH_DEFAULTS: GlobalAuthSettings = Object.freeze({
  allowCrossNamespaceResources: false,
  globalAuthUrl: undefined,
  globalAuthMethod: undefined,
  globalAuthSignin: undefined,
  globalAuthSigninRedirectParam: 'rd',
  globalAuthResponseHeaders: [],
  globalAuthRequestRedirect: undefined,
  globalAuthCacheKey: undefined,
  globalAuthCacheDuration: ['200', '202', '401', '5m'],
  globalAuthAlwaysSetCookie: false,
  allowedResponseHeaders: [],
});

/** The external auth the global ConfigMap asks for, or undefined. */
export function globalExternalAuth(g: GlobalAuthSettings & { readonly globalAuthSnippet?: string | undefined }): ExternalAuth | undefined {
  if (g.globalAuthUrl === undefined) return undefined;
  return {
    url: g.globalAuthUrl,
    ...(g.globalAuthMethod !== undefined ? { method: g.globalAuthMethod } : {}),
    ...(g.globalAuthSignin !== undefined ? { signin: g.globalAuthSignin } : {}),
    redirectParam: g.globalAuthSigninRedirectParam,
    responseHeaders: g.globalAuthResponseHeaders,
    ...(g.globalAuthRequestRedirect !== undefined ? { requestRedirect: g.globalAuthRequestRedirect } : {}),
    ...(g.globalAuthCacheKey !== undefined ? { cacheKey: g.globalAuthCacheKey } : {}),
    cacheDuration: g.globalAuthCacheDuration,
    alwaysSetCookie: g.globalAuthAlwaysSetCookie,
    ...(g.globalAuthSnippet !== undefined ? { snippet: g.globalAuthSnippet } : {}),
    global: true,
  };
}
