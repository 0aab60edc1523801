// ConfigMap keys of global external auth (global-auth-*) and cross-namespace references, spliced into CONFIGMAP_KEYS.
import type { KeySpec } from './configmap.js';
import { cacheDuration, cacheKey, headerList, method, redirectParam } from './table-auth.js';
import * as v from './values.js';
import { key } from './configmap-key.js';
import { authSignin, authUrl } from './auth-urls.js';

/** The keys (global-auth-snippet is not one: raw nginx is logged as an unknown key); the global-auth-* family applies to every Ingress that does not say `enable-global-auth: "false"`. */
export const AUTH_CONFIGMAP_KEYS: readonly KeySpec[] = [
  key('allow-cross-namespace-resources', 'allowCrossNamespaceResources', 'false', 'Lets auth-secret name a Secret of another namespace (`namespace/name`).', v.bool),
  key('global-auth-url', 'globalAuthUrl', '', 'External auth service for every Ingress (as auth-url; the host may be `$host`).', authUrl),
  key('global-auth-method', 'globalAuthMethod', '', 'HTTP method of global-auth-url.', method),
  key('global-auth-signin', 'globalAuthSignin', '', 'Where a 401 from global-auth-url redirects (variables as auth-signin).', authSignin),
  key('global-auth-signin-redirect-param', 'globalAuthSigninRedirectParam', 'rd', 'Query parameter of global-auth-signin carrying the original URL.', redirectParam),
  key('global-auth-response-headers', 'globalAuthResponseHeaders', '', 'Headers of the global auth response copied to the backend request.', headerList),
  key('global-auth-request-redirect', 'globalAuthRequestRedirect', '', 'X-Auth-Request-Redirect sent to global-auth-url.', v.httpUrl),
  key('global-auth-cache-key', 'globalAuthCacheKey', '', 'Cache key of global auth responses (known nginx variables).', cacheKey),
  key('global-auth-cache-duration', 'globalAuthCacheDuration', '200 202 401 5m', 'How long global auth responses are cached, per status code.', cacheDuration),
  key(
    'global-allowed-response-headers',
    'allowedResponseHeaders',
    '',
    'Comma-separated header names a custom-headers ConfigMap may set (exact names, as ingress-nginx compares them); any other refuses the Ingress naming the header. Empty (the default): custom-headers sets none.',
    v.list(v.headerName, /\s*,\s*/, 256),
  ),
  key('global-auth-always-set-cookie', 'globalAuthAlwaysSetCookie', 'false', "Sends the global auth response's Set-Cookie with every answer.", v.bool),
];
