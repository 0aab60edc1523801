// Renders authentication and access lists: location lines, the server's auth_request locations, the auth cache zone.
import { sha256 } from '../hash.js';
import type { LocationSettings } from '../model/settings.js';
import type { ExternalAuth, LocationAuth } from '../model/settings-auth.js';
import type { Model, Server } from '../model/types.js';
import { UnsafeValueError } from '../errors.js';
import { cidr, filePath, headerName, ident, quote, quoteLiteral, snippet, word } from './escape.js';

const I = '            ';
/** The proxy_cache zone of auth responses. */
const CACHE_ZONE = 'portico_auth';

function refuse(what: string, value: string): never {
  throw new UnsafeValueError(`refusing to render ${what} ${JSON.stringify(value.slice(0, 80))} into nginx.conf`);
}

/** A stable id of one external auth setup: the same settings share one auth location per server. */
export function externalId(e: ExternalAuth): string {
  return sha256(JSON.stringify(e), 16);
}

const authPath = (id: string): string => `/_portico_external_auth_${ident(id)}`;
const signinName = (id: string): string => `@portico_signin_${ident(id)}`;
/** The variable an auth response header is copied into. */
const headerVar = (name: string): string => ident(`portico_auth_${headerName(name).toLowerCase().replace(/-/g, '_')}`);

/** Headers the upstream request gets from the auth response: [header, variable] pairs for proxyHeaders(). */
export function authUpstreamVars(s: LocationSettings): (readonly [string, string])[] {
  const e = s.auth?.denied === undefined ? s.auth?.external : undefined;
  return (e?.responseHeaders ?? []).map((h) => [h, headerVar(h)] as const);
}

function accessLines(a: LocationAuth): string[] {
  return [...(a.deny ?? []).map((c) => `${I}deny ${cidr(c)};`), ...(a.allow ?? []).map((c) => `${I}allow ${cidr(c)};`), ...(a.allow?.length ? [`${I}deny all;`] : [])];
}

function externalLines(e: ExternalAuth): string[] {
  const id = externalId(e);
  return [
    `${I}auth_request ${authPath(id)};`,
    `${I}auth_request_set $portico_auth_cookie $upstream_http_set_cookie;`,
    `${I}header_filter_by_lua_block { require("portico.auth").set_cookie(${e.alwaysSetCookie ? 'true' : 'false'}) }`,
    ...e.responseHeaders.map((h) => `${I}auth_request_set $${headerVar(h)} $upstream_http_${headerVar(h).slice('portico_auth_'.length)};`),
    ...(e.signin !== undefined ? [`${I}error_page 401 = ${signinName(id)};`] : []),
  ];
}

/**
 * The settings of a location under no-auth-locations: without basic and external auth (ingress-nginx's
 * isLocationInLocationList on the Ingress path); access lists stay, and an auth that could not be set up still answers 503.
 */
export function withoutAuth(s: LocationSettings): LocationSettings {
  const a = s.auth;
  if (!a || a.denied !== undefined || (!a.basic && !a.external)) return s;
  const { enableGlobal, allow, deny, satisfy } = a;
  return { ...s, auth: { enableGlobal, ...(allow ? { allow } : {}), ...(deny ? { deny } : {}), ...(satisfy ? { satisfy } : {}) } };
}

/** Location lines of auth and access lists (first in the location); a denied auth closes the location with 503. */
export function authLines(s: LocationSettings): string[] {
  const a = s.auth;
  if (!a) return [];
  if (a.denied !== undefined) return [`${I}return 503;`];
  const b = a.basic;
  return [
    ...accessLines(a),
    ...(b?.file !== undefined ? [`${I}auth_basic ${quote(b.realm)};`, `${I}auth_basic_user_file ${quote(authFile(b.file))};`] : []),
    ...(a.external ? [...authHopGuard(s), ...externalLines(a.external)] : []),
    ...(a.satisfy !== undefined ? [`${I}satisfy ${word(a.satisfy, ['any', 'all'])};`] : []),
  ];
}

/** An htpasswd file name of Portico's own making, relative to nginx.conf (the work dir). */
function authFile(rel: string): string {
  if (!/^auth\/[a-z0-9.-]{1,320}\.htpasswd$/.test(rel)) refuse('the auth file', rel);
  return rel;
}

function cacheLines(e: ExternalAuth, id: string): string[] {
  if (e.cacheKey === undefined) return [];
  if (!/^[A-Za-z0-9_.:/$-]{1,256}$/.test(e.cacheKey)) refuse('the cache key', e.cacheKey);
  for (const x of e.cacheDuration) if (!/^(any|\d{1,6}[smhd]?)$/.test(x)) refuse('the cache duration', x);
  // nginx caches only buffered responses (the http level has proxy_buffering off by default). The key names the auth
  // setup (its id covers the Ingress, cacheScope) and the host (braced: the key may go on with letters), so neither another Ingress nor another host shares it.
  return [`${I}proxy_buffering on;`, `${I}proxy_cache ${CACHE_ZONE};`, `${I}proxy_cache_key ${quoteLiteral(`${id}\${host}${e.cacheKey}`)};`, `${I}proxy_cache_valid ${e.cacheDuration.join(' ')};`];
}

/** Portico's own traffic listener: where a `$host` auth-url is sent (annotations/auth-urls.ts, docs/adr/0012). */
export interface SelfListener {
  readonly address: string;
  readonly httpPort: number;
  readonly httpsPort: number;
}

/** The target of the auth request: the URL itself, or for `http(s)://$host/...` Portico's own listener for that scheme. */
function authTarget(e: ExternalAuth, self: SelfListener | undefined): { host: string; url: string; self: boolean } {
  const m = /^(https?):\/\/\$host([/?].*)?$/.exec(e.url);
  if (!m) return { host: quote(new URL(e.url).host), url: quote(e.url), self: false };
  if (!self) refuse('the self-host auth-url (no listener known)', e.url);
  const https = m[1] === 'https';
  const address = self.address === '' ? '127.0.0.1' : self.address.includes(':') ? `[${self.address}]` : self.address;
  return { host: '$host', url: quote(`${m[1] ?? 'http'}://${address}:${https ? self.httpsPort : self.httpPort}${m[2] ?? '/'}`), self: true };
}

/** `logged`: enable-auth-access-log, the auth subrequest gets its own access log line (nginx logs no subrequest by default). */
function authLocation(e: ExternalAuth, self: SelfListener | undefined, logged: boolean): string[] {
  const id = externalId(e);
  const target = authTarget(e, self);
  const set = (name: string, value: string): string => `${I}proxy_set_header ${name} ${value};`;
  const lines = [
    `        location = ${authPath(id)} {`,
    `${I}internal;`,
    ...(logged ? [`${I}log_subrequest on;`] : []),
    `${I}rewrite_by_lua_block { }`,
    `${I}proxy_pass_request_body off;`,
    set('Content-Length', '""'),
    set('X-Forwarded-Proto', '""'),
    set('Host', target.host),
    // A self-host auth request carries this header; a location that would authenticate it again answers 508 instead of looping.
    ...(target.self ? [set('X-Portico-Auth-Hop', '"1"'), `${I}proxy_ssl_name $host;`] : []),
    set('X-Original-URL', '$scheme://$http_host$request_uri'),
    set('X-Original-Method', '$request_method'),
    set('X-Sent-From', '"portico"'),
    set('X-Real-IP', '$remote_addr'),
    set('X-Forwarded-For', '$remote_addr'),
    set('X-Request-ID', '$req_id'),
    set('X-Auth-Request-Redirect', e.requestRedirect !== undefined ? quote(e.requestRedirect) : '$request_uri'),
    ...(e.proxySetHeaders ?? []).map(([n, v]) => set(headerName(n), quote(v))),
    `${I}proxy_http_version 1.1;`,
    `${I}proxy_ssl_server_name on;`,
    ...(e.method !== undefined ? [`${I}proxy_method ${word(e.method, ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'])};`] : []),
    ...cacheLines(e, id),
    ...(e.snippet !== undefined ? snippet(e.snippet).map((l) => `${I}${l}`) : []),
    // A variable: nginx resolves the host per request (resolver below), so a name that does not resolve can never
    // make `nginx -t` refuse the whole configuration; the auth request then fails, and the location with it (500).
    `${I}set $portico_auth_url ${target.url};`,
    `${I}proxy_pass $portico_auth_url;`,
    '        }',
  ];
  if (e.signin === undefined) return lines;
  const param = /^[A-Za-z0-9_.-]{1,64}$/.test(e.redirectParam) ? e.redirectParam : refuse('the redirect parameter', e.redirectParam);
  return [...lines, `        location ${signinName(id)} {`, ...signinLines(e.signin, param), '        }'];
}

const SIGNIN_VARS = /\$(escaped_request_uri|request_uri|host|best_http_host|http_host|scheme)(?![A-Za-z0-9_])/g;

/**
 * The signin redirect: the URL, then the original URL in `param` unless the URL sets it already (as
 * `?rd=$escaped_request_uri` does). Variables only from the list annotations/auth-urls.ts accepts.
 */
function signinLines(signin: string, param: string): string[] {
  if (/[\s"\\]/.test(signin) || signin.replace(SIGNIN_VARS, '').includes('$')) refuse('the signin URL', signin);
  const escaped = `${I}set_by_lua_block $portico_escaped_uri { return ngx.escape_uri(ngx.var.request_uri) }`;
  const own = signin.includes('$escaped_request_uri') ? [`${I}set_by_lua_block $escaped_request_uri { return ngx.escape_uri(ngx.var.request_uri) }`] : [];
  const query = signin.split('?')[1] ?? '';
  if (query.split('&').some((p) => p.startsWith(`${param}=`))) return [...own, `${I}return 302 ${quoteLiteral(signin)};`];
  const url = signin.includes('$') ? quoteLiteral(signin).slice(0, -1) : quote(signin).slice(0, -1);
  return [escaped, ...own, `${I}return 302 ${url}${signin.includes('?') ? '&' : '?'}${param}=$scheme://$http_host$portico_escaped_uri";`];
}

/** Lines of a location protected by a self-host auth-url: a nested auth request (a loop) answers 508. */
function authHopGuard(s: LocationSettings): string[] {
  const e = s.auth?.denied === undefined ? s.auth?.external : undefined;
  return e && /^https?:\/\/\$host/.test(e.url) ? [`${I}if ($http_x_portico_auth_hop) { return 508; }`] : [];
}

/** The auth_request locations (and signin redirects) a server's locations use, each once. */
export function authLocations(server: Server, self?: SelfListener, logged = false): string[] {
  const made = new Map<string, ExternalAuth>();
  for (const l of server.locations) {
    const a = l.target.kind === 'upstream' ? l.target.settings?.auth : undefined;
    if (a?.external && a.denied === undefined) made.set(externalId(a.external), a.external);
  }
  return [...made].sort(([x], [y]) => x.localeCompare(y)).flatMap(([, e]) => authLocation(e, self, logged));
}

function resolverAddress(a: string): string {
  if (!/^[0-9a-fA-F.:]{2,39}$/.test(a)) refuse('the resolver', a);
  return a.includes(':') ? `[${a}]` : a;
}

/**
 * The resolver for host names nginx looks up per request (auth-url, mirror-target: proxied through variables, so a
 * name that does not resolve never fails nginx -t): the system's, from /etc/resolv.conf.
 */
export function resolverLines(resolvers: readonly string[] = []): string[] {
  return resolvers.length > 0 ? [`    resolver ${resolvers.map(resolverAddress).join(' ')} valid=30s;`] : [];
}

/** http{} lines, only when some location uses external auth: the auth cache zone when some location caches (small: 1m of keys, 64m on disk). */
export function authHttpLines(model: Model, workDir: string): string[] {
  const uses = model.servers.map(serverAuth);
  return authHttpLinesOf(
    uses.some((u) => u.external),
    uses.some((u) => u.cache),
    workDir,
  );
}

/** Whether a server's locations use external auth, and whether one caches its answers. */
export function serverAuth(s: Server): { readonly external: boolean; readonly cache: boolean } {
  let external = false;
  let cache = false;
  for (const l of s.locations) {
    const e = l.target.kind === 'upstream' ? l.target.settings?.auth?.external : undefined;
    external ||= e !== undefined;
    cache ||= e?.cacheKey !== undefined;
  }
  return { external, cache };
}

/** authHttpLines from what the servers use. */
export function authHttpLinesOf(external: boolean, cache: boolean, workDir: string): string[] {
  if (!external) return [];
  return cache ? [`    proxy_cache_path ${filePath(`${workDir}/tmp/auth_cache`)} levels=1:2 keys_zone=${CACHE_ZONE}:1m max_size=64m inactive=30m use_temp_path=off;`] : [];
}
