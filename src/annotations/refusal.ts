// What a refused annotation costs its Ingress (docs/adr/0016): the annotations whose absence would weaken a protection
// (or move requests to another backend) fail closed, with the reason; every other one fails open: the Ingress is
// served without it, with a Warning. Read by select.ts and by the generated docs/annotations.md.
import { REMOVED_ANNOTATIONS } from './ingress-nginx-lists.js';

const AUTH = 'authentication: served without it, requests would reach the backend unchecked';
const CLIENT_CERT = 'client-certificate authentication: served without it, clients would not be checked';
const ACCESS = 'an access list: served without it, addresses it keeps out would get in';
const LIMITS = 'a limit: served without it, the backend would take unlimited requests';
const WAF = 'a WAF: served without it, requests would reach the backend unfiltered';
const SNIPPET = 'a snippet may hold access rules (deny, auth_basic, return 403): served without it, they would be gone';
const TLS = 'transport security: served without it, traffic could go unencrypted or unverified';
const CORS = "served without it, CORS would fall back to ingress-nginx's permissive default (any origin, credentials)";
const HEADERS = 'custom headers often carry security headers (Content-Security-Policy, X-Frame-Options)';
const CANARY = 'served without it, requests would go to another backend (a canary without `canary` becomes a main Ingress)';

const group = (why: string, names: readonly string[]): [string, string][] => names.map((n) => [n, why]);

const CLOSED: ReadonlyMap<string, string> = new Map([
  ...group(AUTH, [
    'auth-type',
    'auth-secret',
    'auth-secret-type',
    'auth-realm',
    'auth-url',
    'auth-method',
    'auth-signin',
    'auth-signin-redirect-param',
    'auth-response-headers',
    'auth-request-redirect',
    'auth-cache-key',
    'auth-cache-duration',
    'auth-always-set-cookie',
    'auth-proxy-set-headers',
    'auth-snippet',
  ]),
  ...group(CLIENT_CERT, ['auth-tls-secret', 'auth-tls-verify-client', 'auth-tls-verify-depth', 'auth-tls-error-page', 'auth-tls-match-cn', 'auth-tls-pass-certificate-to-upstream']),
  ...group(ACCESS, ['allowlist-source-range', 'whitelist-source-range', 'denylist-source-range', 'satisfy']),
  ...group(LIMITS, ['limit-rps', 'limit-rpm', 'limit-connections', 'limit-burst-multiplier', 'limit-rate', 'limit-rate-after', 'global-rate-limit']),
  ...group(WAF, [
    'enable-modsecurity',
    'enable-owasp-core-rules',
    'modsecurity-snippet',
    'modsecurity-transaction-id',
    ...Object.keys(REMOVED_ANNOTATIONS).filter((k) => k.startsWith('lua-resty-waf')),
  ]),
  ...group(SNIPPET, ['configuration-snippet', 'server-snippet', 'stream-snippet']),
  ...group(TLS, [
    'force-ssl-redirect',
    'backend-protocol',
    'proxy-ssl-verify',
    'proxy-ssl-verify-depth',
    'proxy-ssl-name',
    'proxy-ssl-server-name',
    'proxy-ssl-secret',
    'proxy-ssl-protocols',
    'proxy-ssl-ciphers',
    'ssl-ciphers',
    'ssl-prefer-server-ciphers',
    'secure-verify-ca-secret',
  ]),
  ...group(CORS, ['cors-allow-origin', 'cors-allow-credentials', 'cors-allow-methods', 'cors-allow-headers']),
  ...group(HEADERS, ['custom-headers']),
  ...group(CANARY, ['canary', 'canary-by-header', 'canary-by-header-value', 'canary-by-header-pattern', 'canary-by-cookie', 'canary-weight', 'canary-weight-total']),
]);

/** Why a refusal of this annotation (name without prefix) fails closed, or undefined: it fails open. */
export function failsClosed(name: string): string | undefined {
  return CLOSED.get(name);
}

/** The docs' cell: what happens to the Ingress when this annotation is refused. */
export function refusalRule(name: string): string {
  return CLOSED.has(name) ? 'not served' : 'served without it';
}
