// nginx.conf's main context, the head of its http block and the internal servers (the status port, the default
// server, the socket that answers 503): what every configuration has, whatever the model. Pure, like the rest of render/.
import { GLOBAL_DEFAULTS, NO_HEADERS, type GlobalSettings } from '../model/settings.js';
import type { StreamModel } from '../model/stream.js';
import type { TlsModel } from '../model/tls-types.js';
import { routerInitWorker } from './dynamic-profiles.js';
import { filePath, ident, int, logFormat, luaString, quote, seconds, word } from './escape.js';
import { httpGlobals, upstreamKeepalive } from './globals.js';
import { accessLogTail, eventsLine, hashLines, mainCompat, syslogTarget } from './globals-http.js';
import { metricsHttpLines, metricsInitWorker } from './metrics.js';
import type { RenderOptions } from './options.js';
import { streamModuleLines, trafficAddresses } from './stream.js';
import { tlsHttpLines } from './tls.js';
import { tracingDeclarations, tracingInitWorker } from './tracing.js';

const LOG_LEVELS = ['debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg'] as const;

/** log-format-escape-json / -none: the escape parameter of the access log formats (the default one too, as in ingress-nginx). */
const logEscape = (g: GlobalSettings): string => (g.logFormatEscapeJson ? 'escape=json ' : g.logFormatEscapeNone ? 'escape=none ' : '');

function accessLog(o: RenderOptions, g: GlobalSettings): string[] {
  const path = syslogTarget(g) ?? filePath(g.httpAccessLogPath ?? g.accessLogPath ?? o.defaultAccessLog ?? '/dev/stdout');
  if (g.disableAccessLog || g.disableHttpAccessLog) return ['    access_log off;'];
  if (g.logFormatUpstream === undefined) return [`    access_log ${path} portico ${accessLogTail(g)};`];
  return [`    log_format portico_custom ${logEscape(g)}${logFormat(g.logFormatUpstream)};`, `    access_log ${path} portico_custom ${accessLogTail(g)};`];
}

/** Where the text's own hash goes (the status port's /portico/config-hash answers it); renderNginxConf replaces it. */
export const HASH_PLACEHOLDER = '@@CONFIG_HASH@@';
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
export const h2c = (o: RenderOptions, port: number): string => (o.h2cPorts?.includes(port) === true ? ' http2' : '');

/** A traffic port's listen lines: one per bind-address, else the --listen-address one. */
export function trafficListens(o: RenderOptions, port: number, extra: string): string[] {
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

/** nginx.conf's main context and the http block's head, up to the balancer's upstream. */
export function mainLines(o: RenderOptions, tls: TlsModel, stream: StreamModel | undefined, streamSnips: readonly string[], traces: boolean): string[] {
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

/** The servers on 127.0.0.1 the controller and the balancer use: the status port, the default server, the 503 socket. */
export function internalServers(o: RenderOptions, traces: boolean): string[] {
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
