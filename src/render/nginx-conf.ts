// Renders the model into nginx.conf text. Pure: the same model and options always give the same text.
import { sha256 } from '../hash.js';
import type { Location, Model, Server, Upstream } from '../model/types.js';
import { CERTIFICATE_HOOK, clientCertHeaders, tlsHttpLines, tlsListenParams, tlsLocationLines, tlsServerLines, tlsServerOf } from './tls.js';
import type { Block, BlockText, RenderMemo } from './memo.js';
import type { TlsModel } from '../model/tls-types.js';
import { GLOBAL_DEFAULTS, NO_HEADERS, type GlobalSettings, type ResolvedHeaders } from '../model/settings.js';
import { filePath, ident, int, logFormat, luaString, quote, seconds, word } from './escape.js';
import { httpGlobals, proxyHeaders, upstreamKeepalive } from './globals.js';
import { NO_ACCESS_LOG, defaultBackendUnlogged } from './default-log.js';
import { accessLogTail, eventsLine, hashLines, mainCompat, serverCompat, syslogTarget } from './globals-http.js';
import { authHttpLinesOf, resolverLines } from './auth.js';
import { tlsBalancerBlocks } from './proxy-ssl.js';
import { affinityCookieLines, trafficHttpOf } from './traffic.js';
import { globalReadsIngressVars, ingressVarsHttpLines, ingressVarsLines } from './ingress-vars.js';
import { scanServers } from './server-facts.js';
import { keptDeps, serverRefs } from './kept-deps.js';
import { metricsHttpLines, metricsInitWorker, metricsLocationLines } from './metrics.js';
import { locationBody, regexHead, serverBody, serverNames, wwwRedirectServer, type SettingsContext } from './settings.js';
import { httpsListen, passthroughHttpLines, streamModuleLines, streamSection, streamSnippets, trafficAddresses } from './stream.js';
import { splitDynamic, type DynamicSplit } from './dynamic-routes.js';
import { withRoutes, type RouteGate } from './route-push.js';
import { ROUTE_HSTS_MAP, routerInitWorker } from './dynamic-profiles.js';
import { catchAllServers } from './catch-all-split.js';
import type { StreamModel } from '../model/stream.js';
import type { GatewayTable } from '../model/gateway/route-types.js';
import type { ExtraPorts } from '../model/gateway/listener-ports.js';
import type { L4JsOptions } from './stream-l4-js.js';
import { gatewayHttpLines, gatewayLocation, gatewayServerLines } from './gateway.js';
import { misdirectHttpLines, misdirectServerLines } from './misdirected.js';
import { locationTracing, tracedHooks, tracingDeclarations, tracingInitWorker } from './tracing.js';

export interface RenderOptions {
  readonly workDir: string;
  readonly luaDir: string;
  readonly httpPort: number;
  readonly httpsPort: number;
  /** --gateway-h2c-ports: local ports whose plain listens take `http2` (HTTP/2 with prior knowledge only, docs/adr/0029). */
  readonly h2cPorts?: readonly number[];
  readonly statusPort: number;
  readonly defaultServerPort: number | undefined;
  readonly listenAddress: string;
  /** Worker user and group (docs/adr/0009); undefined: no `user` directive (Portico is not root). */
  readonly user: readonly [string, string] | undefined;
  readonly workerProcesses: number | 'auto';
  /** The hard limit of open files nginx runs under (nginx/launch.ts); undefined: unknown, no worker_rlimit_nofile by default. */
  readonly openFilesLimit?: number;
  /** The global ConfigMap's settings (default: ingress-nginx's defaults). */
  readonly global?: GlobalSettings;
  /** Headers of the ConfigMaps named by add-headers and proxy-set-headers. */
  readonly headers?: ResolvedHeaders;
  /** Upstream of --default-backend-service, for custom error pages. */
  readonly defaultUpstream?: string;
  /** Name servers for auth-url host names (the controller reads /etc/resolv.conf). */
  readonly resolvers?: readonly string[];
  /** Per-request metrics in the log phase (render/metrics.ts); off when absent. */
  readonly metrics?: boolean;
  /** --metrics-per-undefined-host: requests for hosts no Ingress defines are counted under their host (render/metrics.ts). */
  readonly metricsUndefinedHosts?: boolean;
  /** Set by renderNginxConf: something reads $namespace, $service_name... (render/ingress-vars.ts). */
  readonly ingressVars?: boolean;
  /** --enable-dynamic-routes: hosts in the dynamic set go to the Lua route table, not server blocks (docs/adr/0014). */
  readonly dynamicRoutes?: boolean;
  /** Server blocks kept between renders (render/memo.ts); absent: every block is rendered. */
  readonly memo?: RenderMemo;
  /**
   * The access log when the ConfigMap names no access-log-path; absent: /dev/stdout, which is Portico's stdout (the
   * master inherits it), as ingress-nginx's /var/log/nginx/access.log links to /dev/stdout.
   */
  readonly defaultAccessLog?: string;
  /** nginx's stream njs module is installed: Gateway TCP/UDP peers come from tables (render/stream-l4-js.ts, docs/adr/0041). */
  readonly l4Js?: L4JsOptions;
}

function ctxOf(o: RenderOptions): SettingsContext {
  return { global: o.global ?? GLOBAL_DEFAULTS, headers: o.headers ?? NO_HEADERS, defaultUpstream: o.defaultUpstream };
}

const LOG_LEVELS = ['debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg'] as const;

/** log-format-escape-json / -none: the escape parameter of the access log formats (the default one too, as in ingress-nginx). */
const logEscape = (g: GlobalSettings): string => (g.logFormatEscapeJson ? 'escape=json ' : g.logFormatEscapeNone ? 'escape=none ' : '');

function accessLog(o: RenderOptions, g: GlobalSettings): string[] {
  const path = syslogTarget(g) ?? filePath(g.httpAccessLogPath ?? g.accessLogPath ?? o.defaultAccessLog ?? '/dev/stdout');
  if (g.disableAccessLog || g.disableHttpAccessLog) return ['    access_log off;'];
  if (g.logFormatUpstream === undefined) return [`    access_log ${path} portico ${accessLogTail(g)};`];
  return [`    log_format portico_custom ${logEscape(g)}${logFormat(g.logFormatUpstream)};`, `    access_log ${path} portico_custom ${accessLogTail(g)};`];
}

const HASH_PLACEHOLDER = '@@CONFIG_HASH@@';
/** The unix socket (in the work directory) of the server that answers 503 for backends without endpoints. */
export const UNAVAILABLE_SOCKET = 'unavailable.sock';
const unavailablePeer = (o: RenderOptions): string => `unix:${o.workDir.replace(/\/$/, '')}/${UNAVAILABLE_SOCKET}`;
// headers-more (libnginx-mod-http-headers-more-filter): more_set_headers and friends in snippets, as ingress-nginx ships it.
const MODULES = ['ndk_http_module', 'ngx_http_lua_module', 'ngx_http_headers_more_filter_module'];
/** The environment variable that carries the configuration endpoint's token to nginx (docs/adr/0007); never its value here. */
export const CONFIG_TOKEN_ENV = 'PORTICO_CONFIG_TOKEN';

function listen(address: string, port: number, extra = ''): string {
  const where = address === '' ? int(port) : address.includes(':') ? `[${address}]:${int(port)}` : `${address}:${int(port)}`;
  return `listen ${where}${extra};`;
}

/** ` http2` on a plain listen of a local port --gateway-h2c-ports names, else '': every listen of the port agrees. */
const h2c = (o: RenderOptions, port: number): string => (o.h2cPorts?.includes(port) === true ? ' http2' : '');

/** A traffic port's listen lines: one per bind-address, else the --listen-address one. */
function trafficListens(o: RenderOptions, port: number, extra: string): string[] {
  return trafficAddresses(o).map((a) => `        ${listen(a, port, extra)}`);
}

/**
 * Regular expressions from tenants (use-regex paths, canary-by-header-pattern) run on every request: nginx compiles
 * its location regexes with PCRE JIT (Debian's nginx is built --with-pcre-jit on PCRE2; about 8x faster measured on
 * a pathological path), and PCRE2's default match limit (10,000,000, no directive in nginx) answers 500 instead of
 * looping. Lua's ngx.re gets its own limit, 100,000 steps: a pattern without nested repeats needs a few per character
 * of the header value, and a pathological match stops in under 1 ms instead of 13 ms at PCRE2's default (measured
 * on this nginx with JIT). A match that hits the limit counts as no match: the request goes to the main backend.
 * Patterns compiled with
 * "o" are cached per worker; the cache holds at most 1,024 (one per canary pattern), beyond that ngx.re compiles per
 * call, which stays correct. Patterns that backtrack exponentially are refused first (model/regex-safety.ts).
 */
const REGEX_MAIN = ['pcre_jit on;'];
const REGEX_HTTP = ['    lua_regex_match_limit 100000;', '    lua_regex_cache_max_entries 1024;'];

function main(o: RenderOptions, tls: TlsModel, stream: StreamModel | undefined, streamSnips: readonly string[], traces: boolean): string[] {
  const w = (p: string): string => filePath(`${o.workDir}/${p}`);
  const g = o.global ?? GLOBAL_DEFAULTS;
  const workers = g.workerProcesses !== 'auto' ? g.workerProcesses : o.workerProcesses;
  return [
    '# Generated by Portico from the model; every value from a manifest passed render/escape.ts.',
    ...MODULES.map((m) => `load_module ${filePath(`/usr/lib/nginx/modules/${m}.so`)};`),
    ...streamModuleLines(stream, streamSnips, o.l4Js),
    ...(o.user ? [`user ${quote(o.user[0])} ${quote(o.user[1])};`] : []),
    `worker_processes ${workers === 'auto' ? 'auto' : int(workers)};`,
    `worker_shutdown_timeout ${seconds(g.workerShutdownTimeout)};`,
    `pid ${w('nginx.pid')};`,
    `env ${ident(CONFIG_TOKEN_ENV)};`,
    `error_log stderr ${word(g.errorLogLevel, LOG_LEVELS)};`,
    ...REGEX_MAIN,
    ...mainCompat(g, o.openFilesLimit),
    eventsLine(g),
    'http {',
    `    client_body_temp_path ${w('tmp/client_body')};`,
    `    proxy_temp_path ${w('tmp/proxy')};`,
    `    fastcgi_temp_path ${w('tmp/fastcgi')};`,
    `    uwsgi_temp_path ${w('tmp/uwsgi')};`,
    `    scgi_temp_path ${w('tmp/scgi')};`,
    `    log_format portico ${logEscape(g)}'$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '`,
    '                       \'"$http_referer" "$http_user_agent" $request_length $request_time \'',
    // ingress-nginx's upstreaminfo field order, so log parsers written for it read Portico's lines unchanged.
    "                       '[$portico_backend] [$proxy_alternative_upstream_name] $upstream_addr $upstream_response_length '",
    "                       '$upstream_response_time $upstream_status $req_id';",
    ...accessLog(o, g),
    '    uninitialized_variable_warn off;',
    '    sendfile on; tcp_nopush on; tcp_nodelay on;',
    ...hashLines(g),
    // ingress-nginx's names for custom log-format-upstream values (after the map hash sizes): evaluated only when a format reads them.
    '    map $portico_backend $proxy_upstream_name { default $portico_backend; }',
    "    map $http_upgrade $connection_upgrade { default upgrade; '' ''; }",
    // X-Request-ID: the client's, else 32 hex digits from lua/portico/request_id.lua (RAND_bytes drawn 4 KiB at a
    // time), which every rendered server's REQUEST_ID line (or the dynamic router) sets; else nginx's $request_id (one
    // RAND_bytes per request: about 4,700 instructions more). docs/adr/0015.
    '    map $host $portico_request_id { default $request_id; }',
    "    map $http_x_request_id $req_id { default $http_x_request_id; '' $portico_request_id; }",
    "    map $http_host $best_http_host { default $http_host; '' $host; }",
    ...httpGlobals(g, o.headers ?? NO_HEADERS),
    ...tlsHttpLines(tls, o.workDir),
    `    lua_package_path ${quote(`${o.luaDir.replace(/\/$/, '')}/?.lua;;`)};`,
    ...REGEX_HTTP,
    // Sized for 100,000 Ingresses with room for the slab allocator's fragmentation (docs/adr/0040): a shared dict
    // costs only the pages it uses (about 0.6% of its size in page descriptors up front, in the master).
    '    lua_shared_dict portico_backends 512m;',
    '    lua_shared_dict portico_certificates 128m;',
    ...metricsHttpLines(o.metrics === true),
    '    init_by_lua_block { require("portico.configuration").init() }',
    `    init_worker_by_lua_block { require("portico.balancer").init_worker({ unavailable = ${luaString(unavailablePeer(o))} })${metricsInitWorker(o.metrics === true, o.metricsUndefinedHosts === true)} require("portico.request_id").init_worker()${routerInitWorker(o.dynamicRoutes === true)}${tracingInitWorker(g, traces)} }`,
    '    upstream portico_balancer {',
    '        server 0.0.0.1;',
    '        balancer_by_lua_block { require("portico.balancer").balance() }',
    upstreamKeepalive(g),
    '    }',
  ];
}

function internalServers(o: RenderOptions, traces: boolean): string[] {
  return [
    '    server {',
    `        ${listen('127.0.0.1', o.statusPort)}`,
    '        access_log off;',
    '        set $portico_backend "";',
    ...tracingDeclarations(o.global ?? GLOBAL_DEFAULTS, traces),
    // the ingress variables' maps read it: it exists even before any location sets it (render/ingress-vars.ts)
    ...(o.ingressVars === true ? ['        set $portico_ingress "";'] : []),
    // Declares the variable the balancer sets when a canary takes a request (empty, uninitialized, elsewhere).
    '        set $proxy_alternative_upstream_name "";',
    '        location /configuration/ {',
    // a whole payload as large as its shared dict (docs/adr/0040); past the buffer the body waits in a file
    '            client_max_body_size 512m; client_body_buffer_size 64m;',
    '            content_by_lua_block { require("portico.configuration").call() }',
    '        }',
    '        location = /healthz { return 200 "ok\\n"; }',
    `        location = /portico/config-hash { return 200 "${HASH_PLACEHOLDER}"; }`,
    '        location / { return 404; }',
    '    }',
    ...(o.defaultServerPort === undefined
      ? []
      : [
          '    server {',
          `        ${listen('127.0.0.1', o.defaultServerPort)}`,
          '        access_log off;',
          '        location = /healthz { return 200 "ok\\n"; }',
          '        location / { return 404 "default backend - 404\\n"; }',
          '    }',
        ]),
    // The balancer sends requests for a backend without endpoints here (ADR 0001): the hot path runs no Lua
    // before the balancer, and ngx.exit(503) in the balancer phase would answer 500 on stock nginx.
    '    server {',
    `        listen ${quote(unavailablePeer(o))};`,
    '        access_log off;',
    '        location / { return 503; }',
    '    }',
  ];
}

/**
 * The request id (docs/adr/0015) in the server's rewrite phase, before any location's: set_by_lua runs its chunk on
 * the main Lua thread, without the coroutine, context and variable lookup an http-level rewrite_by_lua cost, and
 * locations with a rewrite hook of their own (canaries, affinity) get the same id. Not in the dynamic catch-all: its
 * router (lua/portico/router.lua) runs in a rewrite hook anyway and sets the id there, without a second Lua entry.
 */
const REQUEST_ID = '        set_by_lua_block $portico_request_id { return require("portico.request_id").value() }';
const REWRITE_HOOK = '            rewrite_by_lua_block { require("portico.balancer").rewrite() }';
const LOG_HOOK = '            log_by_lua_block { require("portico.balancer").log() }';

/**
 * The Lua hooks a location proxying to `upstream` needs besides the balancer (ADR 0001). Each hook costs a Lua VM
 * entry on every request, so a plain upstream (round robin or consistent hashing) runs Lua once, in the balancer.
 * Cookie affinity and canaries pick in the rewrite phase (a cookie to set, a backend to switch to) and ewma learns
 * in the log phase. An upstream an
 * Ingress tuned with a balancing annotation keeps both hooks, so changing its algorithm is a dynamic update, not a
 * reload. An unknown upstream (missing Service) needs none: it answers 503.
 */
export function luaHooks(upstream: Upstream | undefined): string[] {
  if (upstream === undefined) return [];
  if (upstream.tuned) return [REWRITE_HOOK, LOG_HOOK];
  // A canary is decided in the rewrite phase, before the balancer (docs/adr/0006-traffic-policy.md).
  const rewrite = upstream.affinity !== null || upstream.canary !== undefined;
  const log = upstream.affinity === null && upstream.hashBy === '' && upstream.loadBalance === 'ewma';
  return [...(rewrite ? [REWRITE_HOOK] : []), ...(log ? [LOG_HOOK] : [])];
}

/** The first line of a location block, as rendered (also how quarantine finds the location nginx named). */
export function locationHead(l: Pick<Location, 'match' | 'path'>): string {
  return l.match === 'regex' ? `        ${regexHead(l.path)}` : `        location ${l.match === 'exact' ? '= ' : ''}${quote(l.path)} {`;
}

/** What a 404 location with HTTPRoute candidates proxies with when one takes the request (render/gateway.ts). */
function notFoundBody(l: Location, ctx: SettingsContext): string[] {
  return l.gateway !== undefined && l.target.kind === 'not-found'
    ? locationBody({ kind: 'upstream', upstream: '', ingress: { kind: 'HTTPRoute', namespace: '', name: '' }, ...(l.backendTls ? { settings: l.backendTls } : {}) }, ctx)
    : [];
}

/** How a server block reads upstreams (a memo records which it read: render/memo.ts). */
type Upstreams = Pick<ReadonlyMap<string, Upstream>, 'get'>;

function location(l: Location, ctx: SettingsContext, extra: string[], upstreams: Upstreams, where: { server: Server; metrics: boolean }): string[] {
  const head = locationHead(l);
  if (l.target.kind === 'not-found') {
    return [head, '            set $portico_backend "";', ...extra, '            return 404 "default backend - 404\\n";', '        }'];
  }
  const upstream = upstreams.get(l.target.upstream);
  const hooks = tracedHooks(locationTracing(ctx.global, l), luaHooks(upstream), { ...where, location: l, service: upstream?.service.name ?? '' });
  const affinity = affinityCookieLines(l.target, (upstream?.affinity ?? null) !== null);
  return [head, `            set $portico_backend ${quote(ident(l.target.upstream))};`, ...affinity, ...extra, ...hooks, ...locationBody(l.target, ctx), '        }'];
}

/** `dyn`: the dynamic split (--enable-dynamic-routes), whose Lua locations replace the catch-all's. */
function server(
  s: Server,
  o: RenderOptions,
  tls: TlsModel,
  upstreams: Upstreams,
  { stream, dyn, gateway, gatewayPorts, misdirect = false }: { stream: StreamModel | undefined; dyn: DynamicSplit | undefined; gateway?: GatewayTable; gatewayPorts?: ExtraPorts; misdirect?: boolean },
): BlockText {
  const catchAll = s.host === '_';
  const clientCert = clientCertHeaders(tls, s.host);
  const ctx: SettingsContext = {
    ...ctxOf(o),
    luaHooks: (name) => luaHooks(upstreams.get(name)),
    self: { address: trafficAddresses(o)[0] ?? o.listenAddress, httpPort: o.httpPort, httpsPort: o.httpsPort },
    clientCert,
  };
  const proxyProtocol = ctx.global.useProxyProtocol ? ' proxy_protocol' : '';
  // No reuseport: with it, connections queued on old workers' sockets are served by the old configuration after a reload.
  const first = catchAll ? ' default_server backlog=4096' : '';
  const name = `        server_name ${serverNames(s)};`;
  const plainListens = trafficListens(o, o.httpPort, `${h2c(o, o.httpPort)}${proxyProtocol}${first}`);
  // With --enable-ssl-passthrough the HTTPS server listens behind the stream front (render/stream.ts).
  const tlsListens =
    httpsListen(stream, o) === undefined
      ? trafficListens(o, o.httpsPort, `${tlsListenParams(tls)}${proxyProtocol}${first}`)
      : [`        ${httpsListen(stream, o) ?? ''}${tlsListenParams(tls)} proxy_protocol${first};`];
  // Gateway listeners on other ports (model/gateway/listener-ports.ts): every server listens there too, so a route
  // moving between ports changes the route table only; Lua keeps the ports apart (model/gateway/port-scope.ts).
  const gatewayPlain = (gatewayPorts?.http ?? []).flatMap((p) => trafficListens(o, p, `${h2c(o, p)}${proxyProtocol}${first}`));
  const gatewayTls = (gatewayPorts?.https ?? []).flatMap((p) => trafficListens(o, p, `${tlsListenParams(tls)}${proxyProtocol}${first}`));
  const body = [
    // the dynamic catch-all's one location runs the router, a rewrite hook that sets the id itself
    ...(dyn && catchAll ? [] : [REQUEST_ID]),
    // 421 when the Host names another Gateway listener than the SNI name did (render/misdirected.ts)
    ...misdirectServerLines(misdirect),
    ...tlsServerLines(tls, s.host, o.workDir),
    // Only here the ssl-client-* headers: the whole list again, as nginx inherits none into a level that sets one.
    ...(clientCert === undefined ? [] : proxyHeaders(ctx.global, ctx.headers, { clientCert }, '        ')),
    ...serverCompat(ctx.global),
    ...serverBody(s, ctx),
    ...gatewayServerLines(s, gateway),
  ];
  // the dynamic catch-all: its plain-HTTP and its TLS ports in two blocks (render/catch-all-split.ts)
  if (dyn && catchAll) return { text: catchAllServers({ name, plain: [...plainListens, ...gatewayPlain], tls: [...tlsListens, ...gatewayTls], body, locations: dyn.locations }), marks: [] };
  const head = ['    server {', name, ...plainListens, ...tlsListens, ...gatewayPlain, ...gatewayTls, ...body];
  // each location's lines, and where they fall in the block (the quarantine's map from nginx's line to an Ingress)
  const marks: [number, number][] = [];
  const lines = head;
  for (const l of s.locations) {
    const upstream = l.target.kind === 'upstream' ? upstreams.get(l.target.upstream) : undefined;
    const extra = [
      ...(defaultBackendUnlogged(s.host, l, ctx.global) ? [NO_ACCESS_LOG] : []),
      ...tlsLocationLines(tls, s.host, l),
      ...ingressVarsLines(o.ingressVars === true, l, upstream),
      ...metricsLocationLines(o.metrics === true, s, l, upstream, o.metricsUndefinedHosts),
    ];
    const block = gatewayLocation(l, location(l, ctx, extra, upstreams, { server: s, metrics: o.metrics === true }), gateway, notFoundBody(l, ctx));
    marks.push([lines.length, lines.length + block.length - 1]);
    for (const line of block) lines.push(line);
  }
  lines.push(
    '    }',
    ...wwwRedirectServer(s, [
      `        ${trafficListens(o, o.httpPort, `${h2c(o, o.httpPort)}${proxyProtocol}`)
        .map((l) => l.trim())
        .join(' ')}`,
      ...(httpsListen(stream, o) === undefined
        ? trafficListens(o, o.httpsPort, `${tlsListenParams(tls)}${proxyProtocol}`)
        : [`        ${httpsListen(stream, o) ?? ''}${tlsListenParams(tls)} proxy_protocol;`]),
      CERTIFICATE_HOOK,
    ]),
  );
  return { text: lines.join('\n'), marks };
}

export interface RenderedConf {
  readonly text: string;
  /** sha256 of everything else in the text; nginx answers it on `/portico/config-hash` of the status port. */
  readonly hash: string;
  /** Its worker_shutdown_timeout: how long a graceful quit of nginx may take. */
  readonly shutdownTimeoutSeconds: number;
  /** Where each server block is in `text` (1-based lines, `last` its closing brace), in the model's order. */
  readonly serverLines: readonly ServerLines[];
  /** With --enable-dynamic-routes and a dynamic catch-all: the route table for POST /configuration/routes (JSON), built when first read. */
  readonly routes?: string;
  /** With `routes`: each routed host's entry in it ('_': the default), so a push can carry only the changed hosts. */
  readonly routeHosts?: ReadonlyMap<string, string>;
  /** An id that is the same for the same route table and changes with it: set by the build worker's wire (worker/conf-wire.ts), so a sync compares ids, not tables; absent: compare `routes`. */
  readonly routesId?: string;
  /** With `routes`: what this conf's workers can route of a table (render/route-push.ts RouteGate). */
  readonly routeGate?: RouteGate;
}

/** One server block of a rendered nginx.conf: its host, its first and last line, and its locations'. */
export interface ServerLines {
  readonly host: string;
  readonly first: number;
  readonly last: number;
  /** Each location's first and last line, in the order of the server's locations (none in the dynamic catch-all). */
  readonly locations: readonly (readonly [number, number])[];
}

/** The server blocks, one text each, each from the memo when everything it is made of is unchanged. */
function servers(model: Model, o: RenderOptions, upstreams: ReadonlyMap<string, Upstream>, dyn: DynamicSplit | undefined): ({ host: string } & BlockText)[] {
  const list = dyn?.servers ?? model.servers;
  const parts = { stream: model.stream, dyn, gateway: model.gateway, misdirect: model.misdirect !== undefined, ...(model.gatewayPorts ? { gatewayPorts: model.gatewayPorts } : {}) };
  const memo = o.memo;
  if (!memo) return list.map((s) => ({ host: s.host, ...server(s, o, model.tls, upstreams, parts) }));
  const context = JSON.stringify([
    { ...o, memo: undefined },
    model.tls.settings,
    model.stream ?? null,
    model.gateway ?? null,
    model.gatewayPorts ?? null,
    dyn?.locations ?? null,
    model.misdirect !== undefined,
  ]);
  memo.begin(context);
  // A server of the last render (the same object, after an incremental sync) with the same TLS entries and upstreams
  // takes its block by identity, without serializing it (render/identity-memo.ts, docs/adr/0043).
  memo.byServer.begin(context);
  const deps = (s: Server) => (kept: { readonly block: Block }) => keptDeps(s, model.tls, upstreams, kept.block.upstreams.keys());
  const out = list.map((s) => {
    const { block } = memo.byServer.get(
      s,
      deps(s),
      () => {
        const input = JSON.stringify([s, tlsServerOf(model.tls, s.host) ?? null, serverRefs(s).owners.map((k) => model.tls.ingresses[k] ?? null)]);
        return memo.keyed(input, upstreams, (get) => server(s, o, model.tls, { get }, parts));
      },
      (k) => memo.carry(k.key, k.block),
    );
    return { host: s.host, text: block.text, marks: block.marks };
  });
  memo.end();
  return out;
}

/** Lines in `text` (one more than its newlines), counted without splitting it. */
function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n += 1;
  return n;
}

/** The whole nginx.conf for a model. */
export function renderNginxConf(model: Model, given: RenderOptions): RenderedConf {
  // what the http-level lines read of every server, folded once (render/server-facts.ts)
  const facts = scanServers(model.servers, given.global ?? GLOBAL_DEFAULTS, given.memo?.facts);
  const o: RenderOptions = facts.readsVars || globalReadsIngressVars(given.global ?? GLOBAL_DEFAULTS, given.headers) ? { ...given, ingressVars: true } : given;
  const upstreams = new Map(model.upstreams.map((u) => [u.name, u]));
  const dyn = o.dynamicRoutes === true ? splitDynamic(model, upstreams, ctxOf(o), { metrics: o.metrics === true, ingressVars: o.ingressVars === true }, o.memo?.routes) : undefined;
  const streamSnips = streamSnippets(o.global, model.servers);
  const traces = facts.traced;
  const head = [
    ...main(o, model.tls, model.stream, streamSnips, traces),
    ...gatewayHttpLines(model.gateway, upstreamKeepalive(o.global ?? GLOBAL_DEFAULTS)),
    ...misdirectHttpLines(model.misdirect),
    ...resolverLines(o.resolvers),
    ...authHttpLinesOf(facts.authExternal, facts.authCache, o.workDir),
    ...trafficHttpOf(facts.traffic, o.global ?? GLOBAL_DEFAULTS),
    ...passthroughHttpLines(model.stream, o.global ?? GLOBAL_DEFAULTS),
    ...(dyn && model.tls.settings.hsts ? [ROUTE_HSTS_MAP] : []),
    ...ingressVarsHttpLines(o.ingressVars === true),
    ...internalServers(o, traces),
  ];
  const blocks = servers(model, o, upstreams, dyn);
  head.push(
    ...tlsBalancerBlocks(
      blocks.map((b) => b.text),
      upstreamKeepalive(o.global ?? GLOBAL_DEFAULTS),
    ),
  );
  const headText = head.join('\n');
  // an element may hold several lines (a map block, a memoized server)
  let line = lineCount(headText);
  const serverLines = blocks.map((b) => {
    const first = line + 1;
    line += lineCount(b.text);
    return { host: b.host, first, last: line, locations: b.marks.map(([f, l]): [number, number] => [first + f, first + l]) };
  });
  const body = [headText, ...blocks.map((b) => b.text), '}', ...streamSection(model.stream, o, streamSnips), ''].join('\n');
  const hash = sha256(body);
  const shutdownTimeoutSeconds = (o.global ?? GLOBAL_DEFAULTS).workerShutdownTimeout;
  const conf = { text: body.replace(HASH_PLACEHOLDER, hash), hash, shutdownTimeoutSeconds, serverLines };
  return dyn ? withRoutes(conf, dyn.routeHosts, dyn.gate) : conf;
}
