// More global ConfigMap keys Portico implements: headers and buffers, hashes, gzip, logs, upstream defaults, admin snippets.
import { COMPAT_DEFAULTS } from '../model/settings-http.js';
import type { KeySpec } from './configmap.js';
import * as v from './values.js';
import { key } from './configmap-key.js';
import { snippetRefusal } from '../model/snippets/refusal.js';

const csv = /\s*,\s*/;
const syslogHost: v.Parser<string> = (raw) => (v.cidr(raw).ok && !raw.includes('/') ? v.ok(raw) : v.bad(`${v.show(raw)} is not an IP address (a host name would be resolved only when nginx loads)`));
const ipAddress: v.Parser<string> = (raw) => (v.cidr(raw).ok && !raw.includes('/') ? v.ok(raw) : v.bad(`${v.show(raw)} is not an IP address`));
const onOff: v.Parser<boolean> = (raw) => (raw === 'on' ? v.ok(true) : raw === 'off' ? v.ok(false) : v.bad(`${v.show(raw)} is not on or off`));
/** `NUMBER SIZE`, as large_client_header_buffers takes it. */
const numberSize: v.Parser<readonly [number, string]> = (raw) => {
  const [n, s, extra] = raw.split(/\s+/);
  const count = v.int(1, 64)(n ?? '');
  const size = v.bufferSize(s ?? '');
  if (extra !== undefined || !count.ok || !size.ok) return v.bad(`${v.show(raw)} is not "NUMBER SIZE" (e.g. 4 8k)`);
  return v.ok([count.value, size.value] as const);
};
/** A hash size nginx takes: a power of two is not required, but at most 1,048,576. */
const hashSize = v.int(32, 1_048_576);
const MIME = /^[a-z0-9][a-z0-9.+-]*\/[a-z0-9*][a-z0-9.+*-]*$/;
const mimeTypes: v.Parser<string[]> = v.list((raw) => (MIME.test(raw) && raw.length <= 127 ? v.ok(raw) : v.bad(`${v.show(raw)} is not a MIME type`)), /[\s,]+/, 256);
/** A User-Agent regex for gzip_disable (`msie6` or a PCRE): printable, no quotes, braces, `;`, `$` or backslash-quote. */
const uaRegex: v.Parser<string> = (raw) =>
  /^[A-Za-z0-9 ._()\-\\[\]^*+?|/:]{1,128}$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a User-Agent pattern (letters, digits and . _ ( ) - [ ] ^ * + ? | / :)`);
/** A URI path prefix for skip-access-log-urls, no-tls-redirect-locations, no-auth-locations. */
const paths: v.Parser<string[]> = v.list(v.uriPath, csv, 64);
const NEXT = ['error', 'timeout', 'invalid_header', 'http_500', 'http_502', 'http_503', 'http_504', 'http_403', 'http_404', 'http_429', 'non_idempotent', 'off'] as const;
const next: v.Parser<string[]> = (raw) => {
  const r = v.list(v.oneOf(NEXT), / +/, 12)(raw);
  return r.ok && r.value.length === 0 ? v.bad('an empty list') : r;
};
const pair =
  (part: v.Parser<string>): v.Parser<readonly [string, string] | 'off'> =>
  (raw) => {
    if (raw === 'off') return v.ok('off');
    const [a, b, extra] = raw.split(' ').map(part);
    if (!a?.ok || !b?.ok || extra !== undefined) return v.bad(`${v.show(raw)} is not "off" or "FROM TO"`);
    return v.ok([a.value, b.value] as const);
  };
const ACCESS_PARAM = /^(buffer=\d{1,6}[km]?|flush=\d{1,6}[smh]?|gzip(=[1-9])?)$/;
const logParamList: v.Parser<string[]> = v.list((raw) => (ACCESS_PARAM.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not buffer=SIZE, flush=TIME or gzip[=LEVEL]`)), /[\s,]+/, 3);
/** nginx refuses flush= without a buffer (buffer= or gzip, which brings one): `nginx -t` would fail. */
const logParams: v.Parser<string[]> = (raw) => {
  const r = logParamList(raw);
  if (r.ok && r.value.some((p) => p.startsWith('flush=')) && !r.value.some((p) => p.startsWith('buffer=') || p.startsWith('gzip'))) return v.bad(`${v.show(raw)}: flush= needs buffer=SIZE or gzip`);
  return r;
};
const logPath: v.Parser<string> = (raw) => (/^\/[A-Za-z0-9_.\-/]{1,255}$/.test(raw) && !raw.includes('..') ? v.ok(raw) : v.bad(`${v.show(raw)} is not an absolute file path`));
/** Variables of the stream modules a stream log format may use (an unknown one would fail `nginx -t`). */
const STREAM_LOG_VARS =
  /^(remote_addr|remote_port|binary_remote_addr|server_addr|server_port|time_local|time_iso8601|msec|hostname|pid|connection|nginx_version|protocol|status|bytes_sent|bytes_received|session_time|proxy_protocol_addr|proxy_protocol_port|ssl_preread_server_name|upstream_(addr|bytes_sent|bytes_received|connect_time|first_byte_time|session_time))$/;
const streamLogFormat: v.Parser<string> = (raw) => {
  if (raw.length > 4096 || !/^[\x20-\x7e]+$/.test(raw)) return v.bad(`${v.show(raw)} is not a log format (printable ASCII, at most 4096)`);
  for (const m of raw.matchAll(/\$(\{([^}]*)\}|([A-Za-z0-9_]*))/g)) {
    const name = m[2] ?? m[3] ?? '';
    if (!STREAM_LOG_VARS.test(name)) return v.bad(`$${name} is not a variable a stream log format may use`);
  }
  return v.ok(raw);
};
const cpuAffinity: v.Parser<string> = (raw) => (/^(auto( [01]{1,64})?|[01]{1,64}( [01]{1,64}){0,255})$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not auto or CPU bit masks`));
const duration: v.Parser<string> = (raw) => (/^\d{1,6}(ms|s|m|h|d)?$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not an nginx time (e.g. 1h or 60s)`));
const mime: v.Parser<string> = (raw) => (MIME.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a MIME type`));
/** A snippet's text: whole statements (model/snippets/refusal.ts) here; the --snippet-mode allowlist applies in the annotation stage (src/model/snippets/admin.ts). */
const snippetText: v.Parser<string> = (raw) => {
  const why = snippetRefusal(raw);
  return why === undefined ? v.ok(raw) : v.bad(why);
};

/** The keys, spliced into CONFIGMAP_KEYS. */
export const MORE_CONFIGMAP_KEYS: readonly KeySpec[] = [
  key('client-header-buffer-size', 'clientHeaderBufferSize', '1k', "Buffer for a request's headers (client_header_buffer_size).", v.bufferSize),
  key('large-client-header-buffers', 'largeClientHeaderBuffers', '4 8k', 'Number and size of the buffers for large request headers (large_client_header_buffers).', numberSize),
  key('client-header-timeout', 'clientHeaderTimeout', '60', "Seconds to read a request's headers.", v.seconds()),
  key('client-body-timeout', 'clientBodyTimeout', '60', 'Seconds between two reads of a request body.', v.seconds()),
  key('server-name-hash-max-size', 'serverNameHashMaxSize', '4096', "server_names_hash_max_size (Portico's default is larger than ingress-nginx's 1024, so many hosts need no tuning).", hashSize),
  key('server-name-hash-bucket-size', 'serverNameHashBucketSize', '128', 'server_names_hash_bucket_size (ingress-nginx computes it from the longest name; 128 holds any DNS name).', hashSize),
  key('map-hash-bucket-size', 'mapHashBucketSize', '128', 'map_hash_bucket_size.', hashSize),
  key('variables-hash-max-size', 'variablesHashMaxSize', '2048', 'variables_hash_max_size.', hashSize),
  key('variables-hash-bucket-size', 'variablesHashBucketSize', '128', 'variables_hash_bucket_size.', hashSize),
  key('proxy-headers-hash-max-size', 'proxyHeadersHashMaxSize', '512', 'proxy_headers_hash_max_size.', hashSize),
  key('proxy-headers-hash-bucket-size', 'proxyHeadersHashBucketSize', '64', 'proxy_headers_hash_bucket_size.', hashSize),
  key('use-gzip', 'useGzip', 'false', 'Compresses answers of the gzip-types with gzip.', v.bool),
  key('gzip-level', 'gzipLevel', '1', 'gzip compression level (1-9).', v.int(1, 9)),
  key('gzip-min-length', 'gzipMinLength', '256', 'Smallest answer (bytes) that is compressed.', v.int(0, 2 ** 31 - 1)),
  key('gzip-types', 'gzipTypes', COMPAT_DEFAULTS.gzipTypes.join(' '), 'MIME types compressed (space-separated).', mimeTypes),
  key('gzip-disable', 'gzipDisable', '', 'User agents (regexes, comma-separated) never sent gzip.', v.list(uaRegex, csv, 16)),
  key('enable-underscores-in-headers', 'enableUnderscoresInHeaders', 'false', 'Accepts request headers with underscores in their names.', v.bool),
  key('ignore-invalid-headers', 'ignoreInvalidHeaders', 'true', 'Drops request headers with invalid names.', v.bool),
  key('retry-non-idempotent', 'retryNonIdempotent', 'false', 'Also retries POST, LOCK and PATCH on another endpoint after an error.', v.bool),
  key('proxy-buffers-number', 'proxyBuffersNumber', '4', 'Number of response buffers (at least 3).', v.int(3, 1024)),
  key('proxy-busy-buffers-size', 'proxyBusyBuffersSize', '', "proxy_busy_buffers_size (default: nginx's, two buffers).", v.bufferSize),
  key('proxy-next-upstream', 'proxyNextUpstream', 'error timeout', 'When to try the next endpoint (space-separated nginx conditions).', next),
  key('proxy-next-upstream-tries', 'proxyNextUpstreamTries', '3', 'Most endpoints tried for one request (0: no limit).', v.int(0, 100)),
  key('proxy-next-upstream-timeout', 'proxyNextUpstreamTimeout', '0', 'Time limit for trying further endpoints (0: none).', v.seconds()),
  key('proxy-request-buffering', 'proxyRequestBuffering', 'on', 'Reads the whole request body before sending it to the backend.', onOff),
  key('proxy-cookie-path', 'proxyCookiePath', 'off', 'Rewrites the path of Set-Cookie headers: `FROM TO`.', pair(v.uriPath)),
  key('proxy-cookie-domain', 'proxyCookieDomain', 'off', 'Rewrites the domain of Set-Cookie headers: `FROM TO`.', pair(v.hostname)),
  key('proxy-http-version', 'proxyHttpVersion', '1.1', 'HTTP version to backends: 1.0 or 1.1 (the proxy-http-version annotation wins).', v.oneOf(['1.0', '1.1'] as const)),
  key(
    'disable-proxy-intercept-errors',
    'disableProxyInterceptErrors',
    'false',
    "With custom-http-errors, passes the backend's own error answers through; the error pages still answer nginx's own errors (503 without endpoints). The annotation wins.",
    v.bool,
  ),
  key('proxy-redirect-from', 'proxyRedirectFrom', 'off', '`off` or `default` (proxy_redirect at the http level).', v.oneOf(['off', 'default'] as const)),
  key('hide-headers', 'hideHeaders', '', 'Backend response headers (comma-separated) never passed to clients.', v.list(v.headerName, csv, 64)),
  key('allow-backend-server-header', 'allowBackendServerHeader', 'false', "Passes the backend's Server header instead of nginx's.", v.bool),
  key('default-type', 'defaultType', 'text/html', 'MIME type of answers nginx makes itself.', mime),
  key('skip-access-log-urls', 'skipAccessLogUrls', '', 'Request paths (comma-separated, exact) not written to the access log.', paths),
  key('disable-access-log', 'disableAccessLog', 'false', 'Turns the access log off.', v.bool),
  key('disable-http-access-log', 'disableHttpAccessLog', 'false', 'Turns the HTTP access log off (the stream section keeps its own).', v.bool),
  key('enable-auth-access-log', 'enableAuthAccessLog', 'false', 'Also writes the auth-url subrequests to the access log (log_subrequest in their locations).', v.bool),
  key('enable-syslog', 'enableSyslog', 'false', 'Sends the access log to syslog-host over UDP instead of the file (as ingress-nginx: the access log only).', v.bool),
  key('syslog-host', 'syslogHost', '', 'The syslog server: an IP address (a name would be resolved once, when nginx loads, and one that does not resolve would fail every configuration).', syslogHost),
  key('syslog-port', 'syslogPort', '514', 'UDP port of syslog-host.', v.int(1, 65535)),
  key('log-format-escape-none', 'logFormatEscapeNone', 'false', 'Writes variables in the access log unescaped (escape=none).', v.bool),
  key('access-log-params', 'accessLogParams', '', "Parameters of access_log: buffer=SIZE, flush=TIME, gzip[=LEVEL] (Portico's default: buffer=64k flush=1s).", logParams),
  key('http-access-log-path', 'httpAccessLogPath', '', "The HTTP access log's file (default: access-log-path's).", logPath),
  key('stream-access-log-path', 'streamAccessLogPath', '', "The stream section's access log file (TCP/UDP services, ssl-passthrough; default: access-log-path's).", logPath),
  key(
    'log-format-stream',
    'logFormatStream',
    '',
    "The stream section's access log format (stream variables only). Default: ingress-nginx's, `[$remote_addr] [$time_local] $protocol $status $bytes_sent $bytes_received $session_time`.",
    streamLogFormat,
  ),
  key('disable-stream-access-log', 'disableStreamAccessLog', 'false', "Turns the stream section's access log off.", v.bool),
  key(
    'enable-access-log-for-default-backend',
    'enableAccessLogForDefaultBackend',
    'false',
    "Writes the requests the catch-all server answers from the default backend (a host or path no Ingress serves, the built-in 404 or --default-backend-service) to the access log; as ingress-nginx, they are left out by default. A host's own paths, its unmatched paths and an Ingress's defaultBackend are always logged.",
    v.bool,
  ),
  key('enable-multi-accept', 'enableMultiAccept', 'true', 'A worker accepts all new connections at once (multi_accept).', v.bool),
  key('max-worker-open-files', 'maxWorkerOpenFiles', '0', 'worker_rlimit_nofile (0: the hard limit Portico runs under less 1024, at least 1024, as ingress-nginx).', v.int(0, 10_000_000)),
  key('worker-cpu-affinity', 'workerCpuAffinity', '', 'worker_cpu_affinity: `auto` or bit masks (empty: none).', cpuAffinity),
  key('upstream-keepalive-time', 'upstreamKeepaliveTime', '1h', 'Longest life of a backend keep-alive connection.', duration),
  key('http2-max-concurrent-streams', 'http2MaxConcurrentStreams', '128', 'Concurrent HTTP/2 streams per connection.', v.int(1, 1_000_000)),
  key('limit-rate', 'limitRate', '0', 'Response rate per connection, KiB/s (0: no limit), as ingress-nginx applies it (its docs say bytes); the limit-rate annotation wins.', v.int(0, 2 ** 31 - 1)),
  key('limit-rate-after', 'limitRateAfter', '0', 'KiB sent at full speed before limit-rate applies (ingress-nginx applies KiB too).', v.int(0, 2 ** 31 - 1)),
  key('forwarded-host-header', 'forwardedHostHeader', 'X-Forwarded-Host', 'Request header whose value goes to the backend as X-Original-Forwarded-Host.', v.headerName),
  key(
    'bind-address',
    'bindAddress',
    '',
    'IP addresses (comma-separated, IPv4 and IPv6) the HTTP, HTTPS and TCP/UDP listeners bind instead of --listen-address; each must exist on the host, or nginx cannot start.',
    v.list(ipAddress, csv, 32),
  ),
  key('relative-redirects', 'relativeRedirects', 'false', 'Redirects nginx makes itself carry a relative Location (absolute_redirect off).', v.bool),
  key('grpc-buffer-size-kb', 'grpcBufferSizeKb', '0', "grpc_buffer_size in KiB (0: nginx's default).", v.int(0, 1_048_576)),
  key(
    'whitelist-source-range',
    'whitelistSourceRange',
    '',
    "Only these client addresses (comma-separated CIDRs) may use any host; an Ingress's own allowlist-source-range replaces it.",
    v.list(v.cidr, csv, 4096),
  ),
  key(
    'denylist-source-range',
    'denylistSourceRange',
    '',
    "Client addresses (comma-separated CIDRs) refused with 403 on every host; an Ingress's own access lists replace it.",
    v.list(v.cidr, csv, 4096),
  ),
  key('main-snippet', 'mainSnippet', '', 'nginx directives at the main level (checked by --snippet-mode, docs/adr/0012).', snippetText),
  key('http-snippet', 'httpSnippet', '', 'nginx directives in http{} (checked by --snippet-mode).', snippetText),
  key('server-snippet', 'serverSnippet', '', 'nginx directives in every server{} (checked by --snippet-mode).', snippetText),
  key('location-snippet', 'locationSnippet', '', 'nginx directives in every location{} of an Ingress (checked by --snippet-mode).', snippetText),
  key('stream-snippet', 'streamSnippet', '', 'nginx directives in stream{} (checked by --snippet-mode).', snippetText),
  key('global-auth-snippet', 'globalAuthSnippet', '', 'nginx directives in the global-auth-url request (checked by --snippet-mode).', snippetText),
];
