// Renders one Ingress's annotation settings inside its locations and servers; every value goes through escape.ts.
import { sha256 } from '../hash.js';
import type { GlobalSettings, LocationSettings, ResolvedHeaders } from '../model/settings.js';
import type { Location, ObjectRef, Server } from '../model/types.js';
import { ident, int, onOff, quote, quoteAfter, regex, rewriteReplacement, seconds, serverName, size, snippet, word } from './escape.js';
import { proxyHeaders, setHeaders } from './globals.js';
import { adminSnippet } from './globals-http.js';
import { authLines, authLocations, authUpstreamVars, withoutAuth, type SelfListener } from './auth.js';
import { inLocationList } from '../model/settings-tls.js';
import { trafficLocation, trafficServer } from './traffic.js';
import { backendTls, proxySslDenied, tlsBalancer } from './proxy-ssl.js';
import { fastcgiLines } from './fastcgi.js';

const I = '            ';

/** What location rendering needs besides the location. */
export interface SettingsContext {
  readonly global: GlobalSettings;
  readonly headers: ResolvedHeaders;
  /** The upstream of --default-backend-service, if any: the default target of custom errors. */
  readonly defaultUpstream: string | undefined;
  /** The Lua hooks (rewrite_by_lua / log_by_lua lines) a location proxying to this upstream needs (ADR 0001). */
  readonly luaHooks?: (upstream: string) => readonly string[];
  /** Portico's own traffic listener, where a `$host` auth-url is sent (render/auth.ts). */
  readonly self?: SelfListener;
  /** The server's client-certificate auth: its proxy header lists carry the ssl-client-* headers (render/tls.ts). */
  readonly clientCert?: 'verify' | 'pass';
}

type UpstreamTarget = Extract<Location['target'], { kind: 'upstream' }>;

function escapeRegex(path: string): string {
  return path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function redirects(s: LocationSettings): string[] {
  const out: string[] = s.relativeRedirects === true ? [`${I}absolute_redirect off;`] : [];
  if (s.redirect) out.push(`${I}return ${int(s.redirect.code)} ${quote(s.redirect.url)};`);
  if (s.appRoot !== undefined) out.push(`${I}if ($uri = /) { return 302 ${quoteAfter('$scheme://$http_host', s.appRoot)}; }`);
  return out;
}

function rewrite(t: UpstreamTarget, s: LocationSettings): string[] {
  if (s.rewriteTarget === undefined || !t.rule) return [];
  const pattern = t.rule.regex ? t.rule.path : escapeRegex(t.rule.path);
  return [`${I}rewrite ${regex(`(?i)${pattern}`)} ${rewriteReplacement(s.rewriteTarget)} break;`];
}

function proxyBuffers(s: LocationSettings, g: GlobalSettings): string[] {
  const out: string[] = [];
  if (s.bufferSize !== undefined) out.push(`${I}proxy_buffer_size ${size(s.bufferSize)};`);
  if (s.buffersNumber === undefined && s.bufferSize === undefined) return out;
  const each = size(s.bufferSize ?? g.proxyBufferSize);
  out.push(`${I}proxy_buffers ${int(s.buffersNumber ?? 4)} ${each};`);
  // nginx's default busy size (two buffers) must stay below all buffers but one: with 3 buffers it is one.
  if (s.buffersNumber === 3) out.push(`${I}proxy_busy_buffers_size ${each};`);
  return out;
}

/**
 * What grpc_pass reads instead of the proxy_* directives: its own timeouts (as ingress-nginx renders them for GRPC and
 * GRPCS) and the request headers of every other backend as grpc_set_header, as ingress-nginx sends them: Host becomes
 * the call's :authority (else nginx sends the upstream's name), X-Forwarded-*, X-Request-ID and the auth response
 * headers become its metadata. Upgrade and Connection stay cleared (nginx's gRPC default): HTTP/2 forbids them.
 */
function grpcLines(s: LocationSettings, headers: readonly string[]): string[] {
  if (s.backendProtocol !== 'GRPC' && s.backendProtocol !== 'GRPCS') return [];
  const timeouts: [string, number | undefined][] = [
    ['grpc_connect_timeout', s.connectTimeout],
    ['grpc_send_timeout', s.sendTimeout],
    ['grpc_read_timeout', s.readTimeout],
  ];
  const grpcHeaders = headers.filter((l) => !/^\s*proxy_set_header (Upgrade|Connection) /.test(l)).map((l) => l.replace('proxy_set_header ', 'grpc_set_header '));
  return [...timeouts.flatMap(([name, value]) => (value !== undefined ? [`${I}${name} ${seconds(value)};`] : [])), ...grpcHeaders];
}

function proxyTuning(s: LocationSettings, g: GlobalSettings): string[] {
  const out: string[] = [];
  const d = (name: string, value: string | undefined): void => {
    if (value !== undefined) out.push(`${I}${name} ${value};`);
  };
  d('proxy_connect_timeout', s.connectTimeout !== undefined ? seconds(s.connectTimeout) : undefined);
  d('proxy_send_timeout', s.sendTimeout !== undefined ? seconds(s.sendTimeout) : undefined);
  d('proxy_read_timeout', s.readTimeout !== undefined ? seconds(s.readTimeout) : undefined);
  d('client_max_body_size', s.bodySize !== undefined ? size(s.bodySize) : undefined);
  d('client_body_buffer_size', s.clientBodyBufferSize !== undefined ? size(s.clientBodyBufferSize) : undefined);
  d('proxy_buffering', s.buffering !== undefined ? onOff(s.buffering) : undefined);
  out.push(...proxyBuffers(s, g));
  d('proxy_request_buffering', s.requestBuffering !== undefined ? onOff(s.requestBuffering) : undefined);
  d('proxy_next_upstream', s.nextUpstream?.length ? s.nextUpstream.map((x) => word(x, s.nextUpstream ?? [])).join(' ') : undefined);
  d('proxy_next_upstream_tries', s.nextUpstreamTries !== undefined ? int(s.nextUpstreamTries) : undefined);
  d('proxy_next_upstream_timeout', s.nextUpstreamTimeout !== undefined ? seconds(s.nextUpstreamTimeout) : undefined);
  d('proxy_http_version', s.httpVersion !== undefined ? word(s.httpVersion, ['1.0', '1.1']) : undefined);
  d('port_in_redirect', s.portInRedirect !== undefined ? onOff(s.portInRedirect) : undefined);
  d('proxy_max_temp_file_size', s.maxTempFileSize !== undefined ? size(s.maxTempFileSize) : undefined);
  d('proxy_busy_buffers_size', s.busyBuffersSize !== undefined ? size(s.busyBuffersSize) : undefined);
  // `default` is rendered after the pass (nginx refuses it before proxy_pass): see locationBody.
  if (s.redirectFrom !== undefined && s.redirectFrom !== 'off' && s.redirectFrom !== 'default' && s.redirectTo !== undefined && s.redirectTo !== 'off') {
    d('proxy_redirect', `${quote(s.redirectFrom)} ${quote(s.redirectTo)}`);
  }
  const pair = (v: readonly [string, string] | 'off'): string => (v === 'off' ? 'off' : `${quote(v[0])} ${quote(v[1])}`);
  d('proxy_cookie_domain', s.cookieDomain !== undefined ? pair(s.cookieDomain) : undefined);
  d('proxy_cookie_path', s.cookiePath !== undefined ? pair(s.cookiePath) : undefined);
  return out;
}

function pass(s: LocationSettings): string[] {
  switch (s.backendProtocol) {
    case 'HTTPS':
      return [`${I}proxy_pass https://${tlsBalancer(s)};`];
    case 'GRPC':
      return [`${I}grpc_pass grpc://portico_balancer;`];
    case 'GRPCS':
      return [`${I}grpc_pass grpcs://${tlsBalancer(s)};`];
    // As ingress-nginx: the scheme the client used; nginx finds the upstream block by name at run time.
    case 'AUTO_HTTP':
      return [`${I}proxy_pass $scheme://portico_balancer;`];
    case 'FCGI':
      return fastcgiLines(s, I);
    default:
      return [`${I}proxy_pass http://portico_balancer;`];
  }
}

/** Codes and upstream of this location's custom error pages, or undefined. */
export function errorPages(t: UpstreamTarget, ctx: SettingsContext): { codes: readonly number[]; upstream: string } | undefined {
  const s = t.settings ?? {};
  const upstream = s.defaultBackendUpstream ?? ctx.defaultUpstream;
  const codes = [...new Set([...(s.customHttpErrors ?? ctx.global.customHttpErrors), ...(s.defaultBackendUpstream ? [503] : [])])].sort();
  return upstream !== undefined && codes.length > 0 ? { codes, upstream } : undefined;
}

/**
 * The named location of one code's error page for one Ingress's location: each Ingress and Service gets its own, so
 * the default backend is told the names of the request it answers for (X-Ingress-Name, X-Service-Name).
 */
function errorLocationName(upstream: string, code: number, from: { ingress: ObjectRef; upstream: string }): string {
  return `@portico_error_${ident(upstream)}_${int(code)}_${sha256(`${from.ingress.namespace}/${from.ingress.name}/${from.upstream}`, 12)}`;
}

/** Service name and port of an upstream named `namespace_service_port` (model/names.ts); names hold no underscore. */
function serviceOf(upstream: string): { name: string; port: string } {
  const [, name = '', port = ''] = upstream.split('_');
  return { name, port };
}

/** The directives of an upstream location after `set $portico_backend`: settings, then the pass. */
export function locationBody(t: UpstreamTarget, ctx: SettingsContext): string[] {
  const own = t.settings ?? {};
  const s = t.rule && inLocationList(t.rule.path, ctx.global.noAuthLocations) ? withoutAuth(own) : own;
  const out = [...proxySslDenied(s), ...trafficLocation(t, I), ...authLines(s), ...redirects(s), ...rewrite(t, s), ...proxyTuning(s, ctx.global)];
  const vars = authUpstreamVars(s);
  // A location with a proxy_set_header of its own inherits none from http{}: a snippet's gets the whole list again.
  const snippetHeaders = [s.configurationSnippet, ctx.global.locationSnippet].some((t) => t !== undefined && /(^|[;{}\s])proxy_set_header\s/.test(t));
  const headers = (): string[] => proxyHeaders(ctx.global, ctx.headers, { host: s.upstreamVhost, prefix: s.xForwardedPrefix, connection: s.connectionHeader, vars, clientCert: ctx.clientCert }, I);
  if (s.upstreamVhost !== undefined || s.xForwardedPrefix !== undefined || s.connectionHeader !== undefined || vars.length > 0 || snippetHeaders) out.push(...headers());
  out.push(...grpcLines(s, s.backendProtocol === 'GRPC' || s.backendProtocol === 'GRPCS' ? headers() : []));
  if (s.responseHeaders !== undefined) out.push(...setHeaders(s.responseHeaders, I));
  const errors = errorPages(t, ctx);
  if (errors) {
    // disable-proxy-intercept-errors: the backend's own error answers pass; nginx's own (503 without endpoints) still go to the pages.
    if (!(s.disableProxyInterceptErrors ?? ctx.global.disableProxyInterceptErrors)) out.push(`${I}${s.backendProtocol === 'FCGI' ? 'fastcgi' : 'proxy'}_intercept_errors on;`);
    for (const code of errors.codes) out.push(`${I}error_page ${int(code)} = ${errorLocationName(errors.upstream, code, t)};`);
  }
  out.push(...backendTls(s));
  out.push(...adminSnippet(ctx.global.locationSnippet, I));
  if (s.configurationSnippet !== undefined) out.push(...snippet(s.configurationSnippet).map((l) => `${I}${l}`));
  out.push(...pass(s));
  // nginx takes `default` only after a proxy_pass without variables: HTTP and HTTPS backends.
  const plainPass = s.backendProtocol === undefined || s.backendProtocol === 'HTTP' || s.backendProtocol === 'HTTPS';
  if (s.redirectFrom === 'default' && s.redirectTo !== undefined && s.redirectTo !== 'off' && plainPass) out.push(`${I}proxy_redirect default;`);
  return out;
}

/** The named locations a server's custom error pages go to: the default backend, told which code and why. */
function errorLocations(server: Server, ctx: SettingsContext): string[] {
  const made = new Map<string, { upstream: string; code: number; ingress: ObjectRef; service: { name: string; port: string } }>();
  for (const l of server.locations) {
    if (l.target.kind !== 'upstream') continue;
    const e = errorPages(l.target, ctx);
    const service = serviceOf(l.target.upstream);
    for (const code of e?.codes ?? []) if (e) made.set(errorLocationName(e.upstream, code, l.target), { upstream: e.upstream, code, ingress: l.target.ingress, service });
  }
  return [...made]
    .sort(([a], [b]) => a.localeCompare(b))
    .flatMap(([name, e]) => [
      `        location ${name} {`,
      `            set $portico_backend ${quote(ident(e.upstream))};`,
      ...(ctx.luaHooks?.(e.upstream) ?? []),
      ...proxyHeaders(
        ctx.global,
        ctx.headers,
        {
          originalUri: true,
          extra: [
            ['X-Code', String(e.code)],
            ['X-Namespace', e.ingress.namespace],
            ['X-Ingress-Name', e.ingress.name],
            ['X-Service-Name', e.service.name],
            ['X-Service-Port', e.service.port],
          ],
        },
        I,
      ),
      `${I}proxy_set_header X-Format $http_accept;`,
      `${I}proxy_pass http://portico_balancer;`,
      '        }',
    ]);
}

/** server_name with the host's aliases. */
export function serverNames(s: Server): string {
  return [s.host, ...(s.settings?.serverAlias ?? [])].map(serverName).join(' ');
}

/** Server-level lines: blocked user agents, server snippet, custom error locations. */
export function serverBody(s: Server, ctx: SettingsContext): string[] {
  return [
    ...(ctx.global.blockUserAgents.length > 0 ? ['        if ($portico_block_ua) { return 403; }'] : []),
    ...(s.settings?.sslCiphers !== undefined ? [`        ssl_ciphers ${quote(s.settings.sslCiphers)};`] : []),
    ...(s.settings?.sslPreferServerCiphers !== undefined ? [`        ssl_prefer_server_ciphers ${onOff(s.settings.sslPreferServerCiphers === 'on')};`] : []),
    ...trafficServer(s, ctx.global, ctx.headers),
    ...(s.settings?.serverSnippet !== undefined ? snippet(s.settings.serverSnippet).map((l) => `        ${l}`) : []),
    ...errorLocations(s, ctx),
    ...authLocations(s, ctx.self, ctx.global.enableAuthAccessLog),
  ];
}

/**
 * from-to-www-redirect: a server for the other name (www. added or removed) answering 308 to the host, on the HTTP
 * and the HTTPS listeners (`listens`, then the certificate hook: the other name gets its certificate from Lua, by SNI).
 */
export function wwwRedirectServer(s: Server, listens: readonly string[]): string[] {
  if (!s.settings?.fromToWwwRedirect || s.host === '_' || s.host.startsWith('*.')) return [];
  const other = s.host.startsWith('www.') ? s.host.slice(4) : `www.${s.host}`;
  return ['    server {', `        server_name ${serverName(other)};`, ...listens, `        return 308 ${quoteAfter('$scheme://', s.host).slice(0, -1)}$request_uri";`, '    }'];
}

/** The head of a location line for regex locations (`~* "^path"`), case-insensitive as in ingress-nginx. */
export function regexHead(path: string): string {
  return `location ~* ${regex(`^${path}`)} {`;
}
