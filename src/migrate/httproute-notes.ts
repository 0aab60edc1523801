// Which ingress-nginx annotations an HTTPRoute expresses (migrate/httproute.ts), and, for the common ones it cannot,
// what Gateway API offers instead. Every other annotation gets the generic reason.

/** Annotations the conversion turns into HTTPRoute fields (paths, filters, rules). */
export const MAPPED: ReadonlySet<string> = new Set([
  'use-regex',
  'rewrite-target',
  'upstream-vhost',
  'x-forwarded-prefix',
  'permanent-redirect',
  'permanent-redirect-code',
  'temporal-redirect',
  'app-root',
]);

/** On a canary Ingress: merged into its main Ingress's route as weights and header rules. */
export const CANARY_MAPPED: ReadonlySet<string> = new Set(['canary', 'canary-weight', 'canary-weight-total', 'canary-by-header', 'canary-by-header-value']);

const HTTPS = "HTTP to HTTPS is a second HTTPRoute on the Gateway's HTTP listener with a RequestRedirect filter (scheme https, statusCode 301)";
const TIMEOUT = 'no per-operation timeout in Gateway API: timeouts.request and timeouts.backendRequest bound the whole request';
const AUTH = 'no authentication in the Gateway API v1.6 standard channel (ExternalAuth is experimental)';
const SESSION = 'session persistence is experimental in Gateway API v1.6 (not in the standard channel)';
const CANARY = 'express the canary as a second backendRef with a weight, or a rule with a header match, in the main route';

/** Reasons for annotations with no equivalent, by name without the prefix. */
export const ANNOTATION_NOTES: Readonly<Record<string, string>> = {
  'ssl-redirect': HTTPS,
  'force-ssl-redirect': HTTPS,
  'proxy-connect-timeout': TIMEOUT,
  'proxy-read-timeout': TIMEOUT,
  'proxy-send-timeout': TIMEOUT,
  'proxy-body-size': 'no request size limit in Gateway API',
  'auth-type': AUTH,
  'auth-secret': AUTH,
  'auth-realm': AUTH,
  'auth-url': AUTH,
  'auth-signin': AUTH,
  'auth-response-headers': AUTH,
  affinity: SESSION,
  'session-cookie-name': SESSION,
  'session-cookie-expires': SESSION,
  'session-cookie-max-age': SESSION,
  'canary-by-cookie': CANARY,
  'canary-by-header-pattern': CANARY,
  'whitelist-source-range': 'no client address filtering in Gateway API',
  'allowlist-source-range': 'no client address filtering in Gateway API',
  'denylist-source-range': 'no client address filtering in Gateway API',
  'backend-protocol': 'HTTPS backends need a BackendTLSPolicy for the Service, gRPC a GRPCRoute',
  'ssl-passthrough': 'TLS passthrough is a TLSRoute on a TLS listener with tls.mode Passthrough',
  'configuration-snippet': 'no snippets in Gateway API',
  'server-snippet': 'no snippets in Gateway API',
  'upstream-hash-by': 'no load-balancing policy in Gateway API',
  'load-balance': 'no load-balancing policy in Gateway API',
  'limit-rps': 'no rate limiting in Gateway API',
  'limit-connections': 'no rate limiting in Gateway API',
  'mirror-target': 'RequestMirror mirrors to a Service backendRef, not a URL',
};
