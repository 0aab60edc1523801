// The declarative annotation table: key, type, default, validator, risk, scope and doc of every annotation read.
import type { LocationSettings, RiskLevel, ServerSettings } from '../model/settings.js';
import * as v from './values.js';
import { cipherList } from './cipher-list.js';
import { specRow } from './row.js';
import { snippetRefusal } from '../model/snippets/refusal.js';
import { AUTH_ANNOTATIONS, type AuthDraft } from './table-auth.js';
import { TLS_ANNOTATIONS, type TlsDraft } from './table-tls.js';
import { TRAFFIC_ANNOTATIONS } from './table-traffic.js';
import { TRACING_ANNOTATIONS } from './table-tracing.js';
import { fastcgiIndex } from './fastcgi.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
/** What parsers write into while reading one Ingress's annotations. */
export interface Draft {
  location: Mutable<LocationSettings>;
  server: Mutable<ServerSettings>;
  /** Values that only mean something together; parse.ts combines them. */
  redirect: { permanent?: string; permanentCode?: number; temporal?: string; temporalCode?: number };
  upstream: { loadBalance?: 'round_robin' | 'ewma'; hashBy?: string; hashSubset?: boolean; hashSubsetSize?: number; affinity?: 'cookie' | 'none'; serviceUpstream?: boolean };
  auth: AuthDraft;
  tls: TlsDraft;
  cookie: { mode?: 'balanced' | 'persistent'; name?: string; path?: string; maxAge?: number; expires?: number; sameSite?: 'None' | 'Lax' | 'Strict'; secure?: boolean; canaryBehavior?: 'sticky' | 'legacy' };
}

export type Scope = 'server' | 'location' | 'upstream';

/** One row of the table. `apply` validates the raw value and writes it into the draft, or returns the reason. */
export interface AnnotationSpec {
  readonly key: string;
  readonly type: string;
  readonly default: string;
  readonly risk: RiskLevel;
  readonly scope: Scope;
  readonly doc: string;
  /** Snippets: also need --allow-snippet-annotations. */
  readonly snippet?: boolean;
  readonly apply: (raw: string, draft: Draft) => string | undefined;
}

const row = specRow;

const onOff: v.Parser<boolean> = (raw) => (raw === 'on' ? v.ok(true) : raw === 'off' ? v.ok(false) : v.bad(`${v.show(raw)} is not on or off`));

/** `off`, or two tokens `from to`, each checked by `part`. */
function pair(part: v.Parser<string>): v.Parser<readonly [string, string] | 'off'> {
  return (raw) => {
    if (raw === 'off') return v.ok('off');
    const parts = raw.split(' ');
    if (parts.length !== 2) return v.bad(`${v.show(raw)} is not "off" or "FROM TO"`);
    const [a, b] = parts.map(part);
    if (!a?.ok) return a ?? v.bad('missing FROM');
    if (!b?.ok) return b ?? v.bad('missing TO');
    return v.ok([a.value, b.value] as const);
  };
}

/** `name` or `namespace/name` of a Secret (the namespace rule is checked in parse.ts). */
const SECRET_REF = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?\/)?[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const secretRef: v.Parser<string> = (raw) => (SECRET_REF.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a Secret name or namespace/name`));

/** An nginx variable expression for hashing: variables (`$name`, `${name}`) and plain separators, at least one variable. */
const hashBy: v.Parser<string> = (raw) => (/^(\$[a-z_][a-z0-9_]*|\$\{[a-z_][a-z0-9_]*\}|[A-Za-z0-9_.:/-]){1,32}$/.test(raw) && raw.includes('$')
  ? v.ok(raw) : v.bad(`${v.show(raw)} is not an nginx variable expression such as $request_uri`));
/** A cookie name: an RFC 6265 token. */
const cookieName: v.Parser<string> = (raw) => (/^[A-Za-z0-9!#%&'*+.^_`|~-]{1,64}$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a cookie name`));

/** proxy_max_temp_file_size is an nginx size slot, which reads k and m but not g: `4g` is written `4096m`. */
const tempFileSize: v.Parser<string> = (raw) => {
  const r = v.size(raw);
  if (!r.ok || !r.value.endsWith('g')) return r;
  const m = Number(r.value.slice(0, -1)) * 1024;
  return m < 1e9 ? v.ok(`${m}m`) : v.bad(`${v.show(raw)} is over 999999999m`);
};
/** proxy_redirect's arguments: off, default, a path, an http(s) URL, or a bare host[:port][/path] prefix (ingress-nginx's own example: hello.com). */
const redirectArg: v.Parser<string> = (raw) =>
  raw === 'off' || raw === 'default' ? v.ok(raw) : raw.startsWith('/') ? v.uriPath(raw) : /^[a-z0-9]([a-z0-9.-]{0,252})(:\d{1,5})?(\/[\x21-\x7e]{0,1000})?$/i.test(raw) && !/["\\$;{}'`]/.test(raw) ? v.ok(raw) : v.httpUrl(raw);
const NEXT_UPSTREAM = ['error', 'timeout', 'invalid_header', 'http_500', 'http_502', 'http_503', 'http_504', 'http_403', 'http_404', 'http_429', 'non_idempotent', 'off'] as const;
const TLS_PROTOCOLS = ['SSLv2', 'SSLv3', 'TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'] as const;
/** A snippet: simple directives only until a real parser exists (model/snippets/refusal.ts says what and why). */
const snippet: v.Parser<string> = (raw) => { const why = snippetRefusal(raw); return why === undefined ? v.ok(raw) : v.bad(why); };
function nonEmpty<T>(p: v.Parser<T[]>): v.Parser<T[]> {
  return (raw) => { const r = p(raw); return r.ok && r.value.length === 0 ? v.bad('an empty list') : r; };
}

const L = 'location' as const;
const S = 'server' as const;
const U = 'upstream' as const;


/** Every annotation Portico reads, without its prefix. */
export const ANNOTATIONS: readonly AnnotationSpec[] = [
  row('rewrite-target', { type: 'path', default: '', risk: 'Medium', scope: L, doc: 'Rewrites the request path to this target; `$1`-`$9` refer to capture groups of the path (makes the paths regexes).' }, v.rewriteTarget, (d, x) => { d.location.rewriteTarget = x; }),
  row('use-regex', { type: 'bool', default: 'false', risk: 'Low', scope: L, doc: "Treats this Ingress's Prefix and ImplementationSpecific paths as case-insensitive regular expressions." }, v.bool, (d, x) => { d.location.useRegex = x; }),
  row('app-root', { type: 'path', default: '', risk: 'Medium', scope: L, doc: 'Redirects requests for `/` to this path (302).' }, v.uriPath, (d, x) => { d.location.appRoot = x; }),
  row('permanent-redirect', { type: 'url', default: '', risk: 'Medium', scope: L, doc: 'Answers every request with a redirect to this URL, or to this path (`/new-location`) on the same host.' }, v.redirectUrl, (d, x) => { d.redirect.permanent = x; }),
  row('permanent-redirect-code', { type: 'int', default: '301', risk: 'Low', scope: L, doc: 'Status code of permanent-redirect (300-308).' }, v.int(300, 308), (d, x) => { d.redirect.permanentCode = x; }),
  row('temporal-redirect', { type: 'url', default: '', risk: 'Medium', scope: L, doc: 'Answers every request with a temporary redirect to this URL; wins over permanent-redirect.' }, v.httpUrl, (d, x) => { d.redirect.temporal = x; }),
  row('temporal-redirect-code', { type: 'int', default: '302', risk: 'Low', scope: L, doc: 'Status code of temporal-redirect (300-308).' }, v.int(300, 308), (d, x) => { d.redirect.temporalCode = x; }),
  row('ssl-ciphers', { type: 'string', default: '', risk: 'Low', scope: S, doc: "OpenSSL cipher list (TLS up to 1.2) of the host's HTTPS server in place of the ConfigMap's; only from the host owner's namespace." }, cipherList, (d, x) => { d.server.sslCiphers = x; }),
  row('ssl-prefer-server-ciphers', { type: 'bool', default: '', risk: 'Low', scope: S, doc: "Whether the host's HTTPS server prefers its own cipher order over the client's; only from the host owner's namespace." }, v.bool, (d, x) => { d.server.sslPreferServerCiphers = x ? 'on' : 'off'; }),
  row('relative-redirects', { type: 'bool', default: 'false', risk: 'Low', scope: L, doc: 'Redirects nginx makes itself in these paths (permanent-redirect to a path, a directory slash) carry a relative Location (absolute_redirect off).' }, v.bool, (d, x) => { d.location.relativeRedirects = x; }),
  row('from-to-www-redirect', { type: 'bool', default: 'false', risk: 'Low', scope: S, doc: 'Redirects `www.host` to `host` (or the reverse) with 308.' }, v.bool, (d, x) => { d.server.fromToWwwRedirect = x; }),
  row('x-forwarded-prefix', { type: 'path', default: '', risk: 'Medium', scope: L, doc: 'Sends this value as the X-Forwarded-Prefix request header.' }, v.uriPath, (d, x) => { d.location.xForwardedPrefix = x; }),
  row('upstream-vhost', { type: 'host', default: '', risk: 'Low', scope: L, doc: 'Sends this Host header to the backend.' }, v.hostPort, (d, x) => { d.location.upstreamVhost = x; }),
  row('server-alias', { type: 'host list', default: '', risk: 'High', scope: S, doc: 'More host names (comma-separated) for the servers of this Ingress.' }, v.list(v.hostname, /\s*,\s*/, 32), (d, x) => { d.server.serverAlias = x; }),
  row('preserve-trailing-slash', { type: 'bool', default: 'false', risk: 'Medium', scope: L, doc: 'Accepted for compatibility: Portico\'s HTTPS redirect always keeps the request URI as sent, trailing slash included (ingress-nginx strips a trailing slash unless this is true).' }, v.bool, (d, x) => { d.location.preserveTrailingSlash = x; }),
  row('backend-protocol', { type: 'enum', default: 'HTTP', risk: 'Low', scope: L, doc: 'Protocol to the backend: HTTP, HTTPS, GRPC, GRPCS, AUTO_HTTP (HTTP or HTTPS as the client used) or FCGI (FastCGI, with fastcgi-index and fastcgi-params-configmap).' }, v.oneOf(['HTTP', 'HTTPS', 'GRPC', 'GRPCS', 'AUTO_HTTP', 'FCGI'] as const, true), (d, x) => { d.location.backendProtocol = x; }),
  row('fastcgi-index', { type: 'file name', default: '', risk: 'Medium', scope: L, doc: 'With backend-protocol FCGI: fastcgi_index, the file name appended to URIs ending in `/` (e.g. `index.php`).' }, fastcgiIndex, (d, x) => { d.location.fastcgi = { ...d.location.fastcgi, index: x }; }),
  row('fastcgi-params-configmap', { type: 'configmap', default: '', risk: 'Medium', scope: L, doc: 'With backend-protocol FCGI: ConfigMap (`name` or `namespace/name`, same namespace) whose keys and values are sent as fastcgi_param, over the standard CGI parameters; values may use $document_root, $fastcgi_script_name, $request_uri, $http_* and the like.' }, v.objectRef, (d, x) => { d.location.fastcgi = { ...d.location.fastcgi, paramsConfigMap: x.join('/') }; }),
  row('proxy-connect-timeout', { type: 'seconds', default: '5', risk: 'Low', scope: L, doc: 'Timeout to connect to the backend.' }, v.seconds(3600), (d, x) => { d.location.connectTimeout = x; }),
  row('proxy-send-timeout', { type: 'seconds', default: '60', risk: 'Low', scope: L, doc: 'Timeout between two writes to the backend.' }, v.seconds(), (d, x) => { d.location.sendTimeout = x; }),
  row('proxy-read-timeout', { type: 'seconds', default: '60', risk: 'Low', scope: L, doc: 'Timeout between two reads from the backend.' }, v.seconds(), (d, x) => { d.location.readTimeout = x; }),
  row('proxy-body-size', { type: 'size', default: '1m', risk: 'Medium', scope: L, doc: 'Largest request body; above it nginx answers 413 (`0`: no limit).' }, v.size, (d, x) => { d.location.bodySize = x; }),
  row('client-body-buffer-size', { type: 'size', default: '8k', risk: 'Low', scope: L, doc: 'Buffer for the request body before it goes to a temp file.' }, v.bufferSize, (d, x) => { d.location.clientBodyBufferSize = x; }),
  row('proxy-buffering', { type: 'on|off', default: 'off', risk: 'Low', scope: L, doc: 'Buffers responses from the backend.' }, onOff, (d, x) => { d.location.buffering = x; }),
  row('proxy-buffer-size', { type: 'size', default: '4k', risk: 'Low', scope: L, doc: 'Buffer for the first part of the response (headers).' }, v.bufferSize, (d, x) => { d.location.bufferSize = x; }),
  row('proxy-buffers-number', { type: 'int', default: '4', risk: 'Low', scope: L, doc: 'Number of response buffers (of proxy-buffer-size each); at least 3, as nginx needs busy buffers below all but one.' }, v.int(3, 1024), (d, x) => { d.location.buffersNumber = x; }),
  row('proxy-request-buffering', { type: 'on|off', default: 'on', risk: 'Low', scope: L, doc: 'Reads the whole request body before sending it to the backend.' }, onOff, (d, x) => { d.location.requestBuffering = x; }),
  row('proxy-next-upstream', { type: 'list', default: 'error timeout', risk: 'Medium', scope: L, doc: 'When to try the next endpoint (space-separated nginx conditions).' }, nonEmpty(v.list(v.oneOf(NEXT_UPSTREAM), / +/, 12)), (d, x) => { d.location.nextUpstream = x; }),
  row('proxy-next-upstream-tries', { type: 'int', default: '3', risk: 'Low', scope: L, doc: 'Most endpoints tried for one request (0: no limit).' }, v.int(0, 100), (d, x) => { d.location.nextUpstreamTries = x; }),
  row('proxy-next-upstream-timeout', { type: 'seconds', default: '0', risk: 'Low', scope: L, doc: 'Time limit for trying further endpoints (0: none).' }, v.seconds(), (d, x) => { d.location.nextUpstreamTimeout = x; }),
  row('use-port-in-redirects', { type: 'bool', default: 'false', risk: 'Low', scope: L, doc: 'Redirects nginx makes itself keep the port the client used (port_in_redirect).' }, v.bool, (d, x) => { d.location.portInRedirect = x; }),
  row('proxy-max-temp-file-size', { type: 'size', default: '1024m', risk: 'Low', scope: L, doc: 'Largest temporary file for a buffered response (0: none, answers stream); at least the proxy buffer size (the ConfigMap\'s when the Ingress sets none). `g` is taken as 1024m, since nginx\'s size slot has no g.' }, tempFileSize, (d, x) => { d.location.maxTempFileSize = x; }),
  row('proxy-busy-buffers-size', { type: 'size', default: '', risk: 'Low', scope: L, doc: 'proxy_busy_buffers_size (default: nginx\'s, two buffers).' }, v.bufferSize, (d, x) => { d.location.busyBuffersSize = x; }),
  row('proxy-http-version', { type: 'enum', default: '1.1', risk: 'Low', scope: L, doc: 'HTTP version to the backend: 1.0 or 1.1.' }, v.oneOf(['1.0', '1.1'] as const), (d, x) => { d.location.httpVersion = x; }),
  row('proxy-redirect-from', { type: 'url', default: 'off', risk: 'Medium', scope: L, doc: 'First argument of proxy_redirect (with proxy-redirect-to).' }, redirectArg, (d, x) => { d.location.redirectFrom = x; }),
  row('proxy-redirect-to', { type: 'url', default: 'off', risk: 'Medium', scope: L, doc: 'Second argument of proxy_redirect.' }, redirectArg, (d, x) => { d.location.redirectTo = x; }),
  row('proxy-cookie-domain', { type: 'pair', default: 'off', risk: 'Medium', scope: L, doc: 'Rewrites the domain of Set-Cookie headers: `FROM TO`.' }, pair(v.hostname), (d, x) => { d.location.cookieDomain = x; }),
  row('proxy-cookie-path', { type: 'pair', default: 'off', risk: 'Medium', scope: L, doc: 'Rewrites the path of Set-Cookie headers: `FROM TO`.' }, pair(v.uriPath), (d, x) => { d.location.cookiePath = x; }),
  row('connection-proxy-header', { type: 'token', default: '', risk: 'Low', scope: L, doc: 'Value of the Connection header sent to the backend.' }, v.oneOf(['keep-alive', 'close', 'upgrade'] as const, true), (d, x) => { d.location.connectionHeader = x.toLowerCase(); }),
  row('proxy-ssl-verify', { type: 'on|off', default: 'off', risk: 'Low', scope: L, doc: "Verifies the backend's certificate." }, onOff, (d, x) => { d.location.sslVerify = x; }),
  row('proxy-ssl-verify-depth', { type: 'int', default: '1', risk: 'Low', scope: L, doc: "Depth of the backend's certificate chain check." }, v.int(0, 16), (d, x) => { d.location.sslVerifyDepth = x; }),
  row('proxy-ssl-name', { type: 'host', default: '', risk: 'High', scope: L, doc: "Name checked in the backend's certificate and sent as SNI." }, v.hostname, (d, x) => { d.location.sslName = x; }),
  row('proxy-ssl-server-name', { type: 'on|off', default: 'off', risk: 'Low', scope: L, doc: 'Sends SNI to the backend.' }, onOff, (d, x) => { d.location.sslServerName = x; }),
  row('proxy-ssl-secret', { type: 'secret', default: '', risk: 'Medium', scope: L, doc: 'Secret (`name`, or `namespace/name` with allow-cross-namespace-resources) with `ca.crt` (and optional `ca.crl`, `tls.crt`/`tls.key` for a client certificate) for TLS to the backend.' }, secretRef, (d, x) => { d.location.sslSecret = x; }),
  row('proxy-ssl-ciphers', { type: 'string', default: 'DEFAULT', risk: 'Low', scope: L, doc: 'OpenSSL cipher list for TLS to the backend (TLS up to 1.2).' }, cipherList, (d, x) => { d.location.sslCiphers = x; }),
  row('proxy-ssl-protocols', { type: 'list', default: 'TLSv1.2 TLSv1.3', risk: 'Low', scope: L, doc: 'TLS versions to the backend (space-separated).' }, nonEmpty(v.list(v.oneOf(TLS_PROTOCOLS), / +/, 6)), (d, x) => { d.location.sslProtocols = x; }),
  row('default-backend', { type: 'service', default: '', risk: 'Low', scope: L, doc: "Service (same namespace, first port) for this Ingress's 503s and custom errors." }, v.serviceName, (d, x) => { d.location.defaultBackend = x; }),
  row('custom-http-errors', { type: 'codes', default: '', risk: 'Low', scope: L, doc: 'Status codes (comma-separated) answered by the default backend instead.' }, v.errorCodes, (d, x) => { d.location.customHttpErrors = x; }),
  row('disable-proxy-intercept-errors', { type: 'bool', default: 'false', risk: 'Low', scope: L, doc: "With custom-http-errors: the backend's own error answers pass through; nginx's own errors (503 without endpoints) still get the pages." }, v.bool, (d, x) => { d.location.disableProxyInterceptErrors = x; }),
  row('custom-headers', { type: 'configmap', default: '', risk: 'Medium', scope: L, doc: 'ConfigMap (`namespace/name`) of response headers added to every answer.' }, v.objectRef, (d, x) => { d.location.customHeaders = x.join('/'); }),
  row('ssl-redirect', { type: 'bool', default: 'true', risk: 'Low', scope: L, doc: 'Redirects HTTP to HTTPS when the host has TLS.' }, v.bool, (d, x) => { d.location.sslRedirect = x; }),
  row('force-ssl-redirect', { type: 'bool', default: 'false', risk: 'Medium', scope: L, doc: 'Redirects HTTP to HTTPS (308) even without TLS in the Ingress.' }, v.bool, (d, x) => { d.location.forceSslRedirect = x; }),
  row('service-upstream', { type: 'bool', default: 'false', risk: 'Low', scope: U, doc: "Proxies to the Service's cluster IP and port instead of its pod endpoints (not for headless Services)." }, v.bool, (d, x) => { d.upstream.serviceUpstream = x; }),
  // Load balancing: upstream scope, sent to the Lua balancer as JSON (never rendered into nginx.conf).
  row('load-balance', { type: 'enum', default: 'round_robin', risk: 'Low', scope: U, doc: 'Algorithm: round_robin or ewma (latency-aware).' }, v.oneOf(['round_robin', 'ewma'] as const), (d, x) => { d.upstream.loadBalance = x; }),
  row('upstream-hash-by', { type: 'nginx variables', default: '', risk: 'High', scope: U, doc: 'Consistent hashing on an nginx variable expression, e.g. `$request_uri` or `$remote_addr`.' }, hashBy, (d, x) => { d.upstream.hashBy = x; }),
  row('upstream-hash-by-subset', { type: 'bool', default: 'false', risk: 'Low', scope: U, doc: 'With upstream-hash-by: a key reaches a subset of the endpoints (upstream-hash-by-subset-size of them), spread at random inside it.' }, v.bool, (d, x) => { d.upstream.hashSubset = x; }),
  row('upstream-hash-by-subset-size', { type: 'int', default: '3', risk: 'Low', scope: U, doc: 'Endpoints per subset of upstream-hash-by-subset.' }, v.int(1, 1000), (d, x) => { d.upstream.hashSubsetSize = x; }),
  row('affinity', { type: 'enum', default: '', risk: 'Low', scope: U, doc: 'Session affinity: `cookie` pins a client to one endpoint; the cookie is set on the paths of this Ingress only (a client\'s cookie picks its endpoint on every path of the Service).' }, v.oneOf(['cookie', 'none'] as const), (d, x) => { d.upstream.affinity = x; }),
  row('affinity-mode', { type: 'enum', default: 'balanced', risk: 'Medium', scope: U, doc: '`balanced` re-spreads clients when endpoints are added; `persistent` never moves a client whose endpoint lives.' }, v.oneOf(['balanced', 'persistent'] as const), (d, x) => { d.cookie.mode = x; }),
  row('session-cookie-name', { type: 'token', default: 'INGRESSCOOKIE', risk: 'Medium', scope: U, doc: 'Name of the affinity cookie.' }, cookieName, (d, x) => { d.cookie.name = x; }),
  row('session-cookie-path', { type: 'path', default: '', risk: 'Medium', scope: U, doc: 'Path of the affinity cookie; without it, the path of the Ingress rule that answered (`/` for a regex path).' }, v.cookiePath, (d, x) => { d.cookie.path = x; }),
  row('session-cookie-max-age', { type: 'int', default: '', risk: 'Medium', scope: U, doc: 'Max-Age of the affinity cookie, in seconds.' }, v.int(1, 315_360_000), (d, x) => { d.cookie.maxAge = x; }),
  row('session-cookie-expires', { type: 'int', default: '', risk: 'Medium', scope: U, doc: 'Expires of the affinity cookie, in seconds from now.' }, v.int(1, 315_360_000), (d, x) => { d.cookie.expires = x; }),
  row('session-cookie-samesite', { type: 'enum', default: '', risk: 'Medium', scope: U, doc: 'SameSite of the affinity cookie: None, Lax or Strict.' }, v.oneOf(['None', 'Lax', 'Strict'] as const), (d, x) => { d.cookie.sameSite = x; }),
  row('affinity-canary-behavior', { type: 'enum', default: 'sticky', risk: 'Low', scope: U, doc: 'With a canary (set on the canary Ingress): `sticky`: the canary backend takes the main Ingress\'s affinity, and a client whose affinity cookie came from one side (the main backend or the canary) stays on that side; `legacy`: the canary is decided per request whatever the cookie says (the cookie then picks the endpoint within the side).' }, v.oneOf(['sticky', 'legacy'] as const), (d, x) => { d.cookie.canaryBehavior = x; }),
  row('session-cookie-secure', { type: 'bool', default: 'false', risk: 'Medium', scope: U, doc: 'Sets Secure on the affinity cookie.' }, v.bool, (d, x) => { d.cookie.secure = x; }),
  ...TLS_ANNOTATIONS,
  ...AUTH_ANNOTATIONS,
  row('configuration-snippet', { type: 'nginx', default: '', risk: 'Critical', scope: L, snippet: true, doc: 'Raw nginx directives in each location (refused unless snippets are allowed).' }, snippet, (d, x) => { d.location.configurationSnippet = x; }),
  row('server-snippet', { type: 'nginx', default: '', risk: 'Critical', scope: S, snippet: true, doc: 'Raw nginx directives in each server (refused unless snippets are allowed).' }, snippet, (d, x) => { d.server.serverSnippet = x; }),
  ...TRAFFIC_ANNOTATIONS,
  ...TRACING_ANNOTATIONS,
  row('stream-snippet', { type: 'nginx', default: '', risk: 'Critical', scope: S, snippet: true, doc: 'Raw nginx directives in the stream block: only with --snippet-mode=any (and --allow-snippet-annotations); refused under safe, since stream{} has no place of one Ingress (the ConfigMap\'s stream-snippet takes stream-wide timeouts and access lists).' }, snippet, (d, x) => { d.server.streamSnippet = x; }),
];

export const BY_KEY: ReadonlyMap<string, AnnotationSpec> = new Map(ANNOTATIONS.map((a) => [a.key, a]));

