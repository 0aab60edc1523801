// Renders the global ConfigMap settings of model/settings-http.ts: main, events, http and server lines, proxy defaults.
import type { GlobalSettings } from '../model/settings.js';
import { cidr, headerName, int, logParam, onOff, quote, quoteLiteral, seconds, size, snippet, word } from './escape.js';

/** An admin snippet of the ConfigMap (checked under --snippet-mode by the annotation stage), indented. */
export function adminSnippet(text: string | undefined, indent: string): string[] {
  return text === undefined ? [] : snippet(text).map((l) => `${indent}${l}`);
}

const I = '    ';

/**
 * Main-level lines: open files and CPU affinity. max-worker-open-files 0 gives each worker the hard limit nginx runs
 * under less 1024, at least 1024, as ingress-nginx does (room for the master's own files).
 */
export function mainCompat(g: GlobalSettings, openFilesLimit?: number): string[] {
  const files = g.maxWorkerOpenFiles > 0 ? g.maxWorkerOpenFiles : openFilesLimit !== undefined ? Math.max(1024, openFilesLimit - 1024) : 0;
  return [
    ...(files > 0 ? [`worker_rlimit_nofile ${int(files)};`] : []),
    ...(g.workerCpuAffinity !== '' ? [`worker_cpu_affinity ${affinity(g.workerCpuAffinity)};`] : []),
    ...adminSnippet(g.mainSnippet, ''),
  ];
}

function affinity(v: string): string {
  if (!/^(auto( [01]{1,64})?|[01]{1,64}( [01]{1,64}){0,255})$/.test(v)) throw new Error(`refusing to render worker_cpu_affinity ${JSON.stringify(v)}`);
  return v;
}

/** The events{} block. */
export function eventsLine(g: GlobalSettings): string {
  return `events { worker_connections ${int(g.maxWorkerConnections)}; multi_accept ${onOff(g.enableMultiAccept)}; }`;
}

/** Hash sizes (server names, variables, maps, proxy headers). */
export function hashLines(g: GlobalSettings): string[] {
  return [
    `${I}server_names_hash_max_size ${int(g.serverNameHashMaxSize)}; server_names_hash_bucket_size ${int(g.serverNameHashBucketSize)};`,
    `${I}variables_hash_max_size ${int(g.variablesHashMaxSize)}; variables_hash_bucket_size ${int(g.variablesHashBucketSize)}; map_hash_bucket_size ${int(g.mapHashBucketSize)};`,
    `${I}proxy_headers_hash_max_size ${int(g.proxyHeadersHashMaxSize)}; proxy_headers_hash_bucket_size ${int(g.proxyHeadersHashBucketSize)};`,
  ];
}

const MIME = /^[a-z0-9][a-z0-9.+-]*\/[a-z0-9*][a-z0-9.+*-]*$/;
const mime = (t: string): string => (MIME.test(t) ? t : quote(t));

function gzip(g: GlobalSettings): string[] {
  if (!g.useGzip) return [];
  return [
    `${I}gzip on; gzip_comp_level ${int(g.gzipLevel)}; gzip_http_version 1.1; gzip_min_length ${int(g.gzipMinLength)}; gzip_proxied any; gzip_vary on;`,
    `${I}gzip_types ${g.gzipTypes.map(mime).join(' ')};`,
    ...(g.gzipDisable.length > 0 ? [`${I}gzip_disable ${g.gzipDisable.map(quoteLiteral).join(' ')};`] : []),
  ];
}

/** http-level lines of the keys that tune client requests, answers and gzip. */
export function httpCompat(g: GlobalSettings): string[] {
  return [
    `${I}client_header_buffer_size ${size(g.clientHeaderBufferSize)}; large_client_header_buffers ${int(g.largeClientHeaderBuffers[0])} ${size(g.largeClientHeaderBuffers[1])};`,
    `${I}client_header_timeout ${seconds(g.clientHeaderTimeout)}; client_body_timeout ${seconds(g.clientBodyTimeout)};`,
    `${I}underscores_in_headers ${onOff(g.enableUnderscoresInHeaders)}; ignore_invalid_headers ${onOff(g.ignoreInvalidHeaders)};`,
    `${I}default_type ${mime(g.defaultType)};`,
    `${I}http2_max_concurrent_streams ${int(g.http2MaxConcurrentStreams)};`,
    // nginx's own redirects name no port unless use-port-in-redirects asks (ingress-nginx's default, docs/annotations.md)
    `${I}port_in_redirect off;`,
    ...(g.relativeRedirects ? [`${I}absolute_redirect off;`] : []),
    // KiB, as ingress-nginx renders these keys (the default of its limit-rate annotations), whatever its docs say.
    ...(g.limitRate > 0 ? [`${I}limit_rate ${int(g.limitRate)}k;`] : []),
    ...(g.limitRateAfter > 0 ? [`${I}limit_rate_after ${int(g.limitRateAfter)}k;`] : []),
    ...(g.grpcBufferSizeKb > 0 ? [`${I}grpc_buffer_size ${int(g.grpcBufferSizeKb)}k;`] : []),
    ...g.hideHeaders.map((h) => `${I}proxy_hide_header ${headerName(h)};`),
    ...(g.allowBackendServerHeader ? [`${I}proxy_pass_header Server;`] : []),
    ...gzip(g),
    // After the hash sizes: nginx fixes map_hash_* at the first map block.
    ...accessLogMap(g),
    ...adminSnippet(g.httpSnippet, I),
  ];
}

const NEXT = ['error', 'timeout', 'invalid_header', 'http_500', 'http_502', 'http_503', 'http_504', 'http_403', 'http_404', 'http_429', 'non_idempotent', 'off'];

/** The http-level proxy defaults (buffers, retries, cookies, redirects), which annotations override per location. */
export function proxyDefaults(g: GlobalSettings): string[] {
  const buffer = size(g.proxyBufferSize);
  const next = [...g.proxyNextUpstream, ...(g.retryNonIdempotent && !g.proxyNextUpstream.includes('non_idempotent') ? ['non_idempotent'] : [])];
  const pair = (v: readonly [string, string] | 'off'): string => (v === 'off' ? 'off' : `${quote(v[0])} ${quote(v[1])}`);
  return [
    `${I}proxy_buffering ${onOff(g.proxyBuffering)}; proxy_request_buffering ${onOff(g.proxyRequestBuffering)}; proxy_buffer_size ${buffer}; proxy_buffers ${int(g.proxyBuffersNumber)} ${buffer};`,
    ...(g.proxyBusyBuffersSize !== undefined ? [`${I}proxy_busy_buffers_size ${size(g.proxyBusyBuffersSize)};`] : g.proxyBuffersNumber === 3 ? [`${I}proxy_busy_buffers_size ${buffer};`] : []),
    `${I}proxy_next_upstream ${next.map((x) => word(x, NEXT)).join(' ')}; proxy_next_upstream_tries ${int(g.proxyNextUpstreamTries)}; proxy_next_upstream_timeout ${seconds(g.proxyNextUpstreamTimeout)};`,
    `${I}proxy_redirect ${word(g.proxyRedirectFrom, ['off', 'default'])};`,
    ...(g.proxyCookiePath !== 'off' ? [`${I}proxy_cookie_path ${pair(g.proxyCookiePath)};`] : []),
    ...(g.proxyCookieDomain !== 'off' ? [`${I}proxy_cookie_domain ${pair(g.proxyCookieDomain)};`] : []),
  ];
}

/** access-log-params, else Portico's buffer=64k flush=1s: the http and the stream access log's. */
export function accessLogParams(g: GlobalSettings): string {
  return g.accessLogParams.length > 0 ? g.accessLogParams.map(logParam).join(' ') : 'buffer=64k flush=1s';
}

/** The access log line's parameters and condition: skip-access-log-urls, access-log-params. */
export function accessLogTail(g: GlobalSettings): string {
  const params = accessLogParams(g);
  // A syslog access log takes no buffer (every line is one datagram): only the condition.
  const syslog = syslogTarget(g) !== undefined;
  return `${syslog ? '' : params}${g.skipAccessLogUrls.length > 0 ? `${syslog ? '' : ' '}if=$portico_loggable` : ''}`;
}

/** enable-syslog with a syslog-host: `syslog:server=IP:PORT`, quoted, where access_log would name its file; else undefined. */
export function syslogTarget(g: GlobalSettings): string | undefined {
  if (!g.enableSyslog || g.syslogHost === undefined) return undefined;
  const host = g.syslogHost.includes(':') ? `[${cidr(g.syslogHost)}]` : cidr(g.syslogHost);
  return quote(`syslog:server=${host}:${int(g.syslogPort)}`);
}

/** The map behind skip-access-log-urls (exact request paths). */
function accessLogMap(g: GlobalSettings): string[] {
  if (g.skipAccessLogUrls.length === 0) return [];
  return [`${I}map $uri $portico_loggable {`, `${I}    default 1;`, ...g.skipAccessLogUrls.map((u) => `${I}    ${quote(u)} 0;`), `${I}}`];
}

/**
 * realip also reads its header before the request is rewritten, so a client's own forwarded-for-proxy-protocol-header
 * would name its address before nginx overwrites it: such a request is refused (400) in the server rewrite phase.
 */
function proxyForwardedGuard(g: GlobalSettings): string[] {
  if (!g.useProxyProtocol || !g.useForwardedHeaders) return [];
  const header = headerName(g.forwardedForProxyProtocolHeader).toLowerCase().replace(/-/g, '_');
  return [`        if ($http_${header}) { return 400; }`];
}

/** Server-level lines: the ConfigMap's denylist and allowlist (an Ingress's own access lists replace them in its locations). */
export function serverCompat(g: GlobalSettings): string[] {
  return [
    ...g.denylistSourceRange.map((c) => `        deny ${cidr(c)};`),
    ...g.whitelistSourceRange.map((c) => `        allow ${cidr(c)};`),
    ...(g.whitelistSourceRange.length > 0 ? ['        deny all;'] : []),
    ...adminSnippet(g.serverSnippet, '        '),
    ...proxyForwardedGuard(g),
  ];
}
