// The global ConfigMap: its keys with ingress-nginx's defaults, parsed purely; a bad value keeps the previous one.
import { GLOBAL_DEFAULTS, RISK_ORDER, type GlobalSettings, type RiskLevel } from '../model/settings.js';

import * as v from './values.js';
import { key } from './configmap-key.js';
import { DEFAULT_TLS_SETTINGS, REDIRECT_CODES, type RedirectCode } from '../model/tls-types.js';
import { AUTH_CONFIGMAP_KEYS } from './configmap-auth.js';
import { TRAFFIC_CONFIGMAP_KEYS } from './table-traffic.js';
import { MORE_CONFIGMAP_KEYS } from './configmap-more.js';
import { TLS_CONFIGMAP_KEYS } from './configmap-tls.js';
import { COMPAT_BY_KEY } from './configmap-without-setting.js';
import { TRACING_CONFIGMAP_KEYS, tracingNotices } from './configmap-tracing.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

export interface KeySpec {
  readonly key: string;
  readonly field: keyof GlobalSettings;
  readonly default: string;
  readonly doc: string;
  readonly apply: (raw: string, g: Mutable<GlobalSettings>) => string | undefined;
  /** An empty value is a value (no-auth-locations: "" is no location, as in ingress-nginx), not the default. */
  readonly emptyIsValue?: boolean;
}

const sslProtocols: v.Parser<string> = (raw) => {
  const list = raw.split(/\s+/).filter(Boolean);
  const ok = list.length > 0 && list.length <= 6 && list.every((p) => /^(SSLv3|TLSv1(\.[123])?)$/.test(p));
  return ok ? v.ok(list.join(' ')) : v.bad(`${v.show(raw)} is not a list of TLS versions (e.g. TLSv1.2 TLSv1.3)`);
};
const redirectCode: v.Parser<RedirectCode> = (raw) => {
  const code = REDIRECT_CODES.find((c) => String(c) === raw.trim());
  return code !== undefined ? v.ok(code) : v.bad(`${v.show(raw)} is not one of ${REDIRECT_CODES.join(', ')}`);
};
const sslCiphers: v.Parser<string> = (raw) => (/^[A-Za-z0-9:+!@=_.-]{1,2048}$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not an OpenSSL cipher list`));

const onOff: v.Parser<boolean> = (raw) => (raw === 'on' ? v.ok(true) : raw === 'off' ? v.ok(false) : v.bad(`${v.show(raw)} is not on or off`));
const ref: v.Parser<string> = (raw) => {
  const r = v.objectRef(raw);
  if (!r.ok) return r;
  return r.value[0] === '' ? v.bad(`${v.show(raw)} must be namespace/name`) : v.ok(r.value.join('/'));
};

/** nginx variables a log format may use: core names and the families with a suffix. */
const LOG_VARS =
  /^(remote_addr|remote_user|remote_port|time_local|time_iso8601|msec|request|request_method|request_uri|uri|args|query_string|status|body_bytes_sent|bytes_sent|request_length|request_time|host|hostname|server_name|server_port|server_addr|scheme|server_protocol|connection|connection_requests|pipe|proxy_protocol_addr|proxy_add_x_forwarded_for|req_id|request_id|opentelemetry_trace_id|opentelemetry_span_id|portico_backend|proxy_upstream_name|proxy_alternative_upstream_name|best_http_host|namespace|ingress_name|service_name|service_port|location_path|ssl_protocol|ssl_cipher|(http|sent_http|upstream_http|cookie|arg)_[a-z0-9_]{1,64}|upstream_(addr|status|response_time|connect_time|header_time|response_length|bytes_received|bytes_sent|cache_status))$/;

/** A log format: printable ASCII; `$` only before a known variable name (an unknown one would fail `nginx -t`). */
const logFormat: v.Parser<string> = (raw) => {
  if (raw.length > 4096 || !/^[\x20-\x7e]+$/.test(raw)) return v.bad(`${v.show(raw)} is not a log format (printable ASCII, at most 4096)`);
  for (const m of raw.matchAll(/\$(\{([^}]*)\}|([A-Za-z0-9_]*))/g)) {
    const name = m[2] ?? m[3] ?? '';
    if (!LOG_VARS.test(name)) return v.bad(`$${name} is not a variable a log format may use`);
  }
  return v.ok(raw);
};

const logPath: v.Parser<string> = (raw) => (/^\/[A-Za-z0-9_.\-/]{1,255}$/.test(raw) && !raw.includes('..') ? v.ok(raw) : v.bad(`${v.show(raw)} is not an absolute file path`));
const userAgent: v.Parser<string> = (raw) =>
  /^~?\*?[\x21-\x7e][\x20-\x7e]{0,255}$/.test(raw) && !(raw.startsWith('~') ? /["$;{}'`]/ : /["\\$;{}'`]/).test(raw) && v.tildeRegexCompiles(raw)
    ? v.ok(raw)
    : v.bad(`${v.show(raw)} is not a user agent string or ~regex (no quotes, '$', ';' or braces; backslashes only in a ~regex that compiles)`);
const risk: v.Parser<RiskLevel> = v.oneOf(RISK_ORDER);
const workers: v.Parser<number | 'auto'> = (raw) => (raw === 'auto' ? v.ok('auto') : v.int(1, 256)(raw));
const csv = /\s*,\s*/;

/** Every key of the global ConfigMap Portico reads. */
export const CONFIGMAP_KEYS: readonly KeySpec[] = [
  key('proxy-body-size', 'proxyBodySize', '1m', 'Largest request body (413 above it).', v.size),
  key('proxy-connect-timeout', 'proxyConnectTimeout', '5', 'Seconds to connect to a backend.', v.seconds(3600)),
  key('proxy-read-timeout', 'proxyReadTimeout', '60', 'Seconds between two reads from a backend.', v.seconds()),
  key('proxy-send-timeout', 'proxySendTimeout', '60', 'Seconds between two writes to a backend.', v.seconds()),
  key('proxy-buffering', 'proxyBuffering', 'off', 'Buffers backend responses (on/off).', onOff),
  key('proxy-buffer-size', 'proxyBufferSize', '4k', 'Buffer for response headers.', v.bufferSize),
  key('client-body-buffer-size', 'clientBodyBufferSize', '8k', 'Buffer for request bodies.', v.bufferSize),
  key('ssl-redirect', 'sslRedirect', 'true', 'Redirects HTTP to HTTPS on hosts with TLS.', v.bool),
  key('http-redirect-code', 'httpRedirectCode', '308', 'Status of the HTTP to HTTPS redirect: 301, 302, 307 or 308.', redirectCode),
  key('hsts', 'hsts', 'true', 'Sends Strict-Transport-Security on HTTPS.', v.bool),
  key('hsts-max-age', 'hstsMaxAge', '31536000', 'max-age of HSTS.', v.int(0, 2 ** 31 - 1)),
  key('hsts-include-subdomains', 'hstsIncludeSubdomains', 'true', 'includeSubDomains in HSTS.', v.bool),
  key('hsts-preload', 'hstsPreload', 'false', 'preload in HSTS.', v.bool),
  key('use-http2', 'useHttp2', 'true', 'HTTP/2 on the HTTPS port.', v.bool),
  key('ssl-protocols', 'sslProtocols', 'TLSv1.2 TLSv1.3', 'TLS versions offered on the HTTPS port (space-separated).', sslProtocols),
  key('ssl-ciphers', 'sslCiphers', DEFAULT_TLS_SETTINGS.ciphers, 'OpenSSL cipher list for TLS up to 1.2.', sslCiphers),
  key(
    'use-forwarded-headers',
    'useForwardedHeaders',
    'false',
    'Trusts X-Forwarded-* from the client (behind another proxy); the HTTP to HTTPS redirect then goes to the first X-Forwarded-Host, without its port.',
    v.bool,
  ),
  key('compute-full-forwarded-for', 'computeFullForwardedFor', 'false', 'Appends the client address to X-Forwarded-For instead of replacing it.', v.bool),
  key('forwarded-for-header', 'forwardedForHeader', 'X-Forwarded-For', 'Header holding the client address.', v.headerName),
  key(
    'forwarded-for-proxy-protocol-header',
    'forwardedForProxyProtocolHeader',
    'X-Forwarded-For-Proxy-Protocol',
    'With use-proxy-protocol and use-forwarded-headers both on: the header nginx fills with forwarded-for-header when the PROXY protocol address is in proxy-real-ip-cidr, else with that address, and takes the client address from.',
    v.headerName,
  ),
  key('enable-real-ip', 'enableRealIp', 'false', 'Takes the client address from forwarded-for-header.', v.bool),
  key('proxy-real-ip-cidr', 'proxyRealIpCidr', '0.0.0.0/0', 'Trusted proxies (comma-separated CIDRs) for the real client address.', v.list(v.cidr, csv)),
  key('use-proxy-protocol', 'useProxyProtocol', 'false', 'Expects the PROXY protocol on the traffic ports.', v.bool),
  key('server-tokens', 'serverTokens', 'false', 'Sends the nginx version in Server headers and error pages.', v.bool),
  key('keep-alive', 'keepAlive', '75', 'Seconds a client keep-alive connection stays open.', v.seconds()),
  key('keep-alive-requests', 'keepAliveRequests', '1000', 'Requests per client keep-alive connection.', v.int(1, 10_000_000)),
  key('upstream-keepalive-connections', 'upstreamKeepaliveConnections', '320', 'Idle keep-alive connections to backends per worker.', v.int(0, 100_000)),
  key('upstream-keepalive-timeout', 'upstreamKeepaliveTimeout', '60', 'Seconds an idle backend connection stays open.', v.seconds()),
  key('upstream-keepalive-requests', 'upstreamKeepaliveRequests', '10000', 'Requests per backend keep-alive connection.', v.int(1, 10_000_000)),
  key('worker-processes', 'workerProcesses', 'auto', 'nginx worker processes (a number or auto).', workers),
  key('max-worker-connections', 'maxWorkerConnections', '16384', 'Connections per worker.', v.int(64, 1_000_000)),
  key('worker-shutdown-timeout', 'workerShutdownTimeout', '240s', 'Seconds old workers may take to finish after a reload.', v.seconds()),
  key(
    'log-format-upstream',
    'logFormatUpstream',
    '',
    "Access log format (nginx variables allowed, with ingress-nginx's $proxy_upstream_name and $proxy_alternative_upstream_name). The default line has ingress-nginx's upstreaminfo fields in its order.",
    logFormat,
  ),
  key('log-format-escape-json', 'logFormatEscapeJson', 'false', 'Escapes the access log for JSON.', v.bool),
  key(
    'access-log-path',
    'accessLogPath',
    '',
    "Access log file of the http and stream sections (default: /dev/stdout, Portico's stdout, as ingress-nginx; the work directory's logs/access.log when stdout is a socket).",
    logPath,
  ),
  key('error-log-level', 'errorLogLevel', 'notice', "nginx's error log level.", v.oneOf(['debug', 'info', 'notice', 'warn', 'error', 'crit', 'alert', 'emerg'] as const)),
  key('load-balance', 'loadBalance', 'round_robin', 'Default balancing algorithm (round_robin or ewma).', v.oneOf<'round_robin' | 'ewma'>(['round_robin', 'ewma'])),
  key('custom-http-errors', 'customHttpErrors', '', 'Status codes answered by the default backend everywhere.', v.errorCodes),
  key('add-headers', 'addHeaders', '', 'ConfigMap (namespace/name) of response headers added everywhere.', ref),
  key('proxy-set-headers', 'proxySetHeaders', '', 'ConfigMap (namespace/name) of request headers sent to every backend.', ref),
  key('allow-snippet-annotations', 'allowSnippetAnnotations', 'false', 'Allows snippet annotations (overrides the flag).', v.bool),
  key('annotations-risk-level', 'annotationsRiskLevel', 'High', 'Highest annotation risk accepted (overrides the flag).', risk),
  key(
    'service-upstream',
    'serviceUpstream',
    'false',
    "Ingress backends proxy to their Service's cluster IP and port instead of its pod endpoints (an Ingress's service-upstream annotation overrides it).",
    v.bool,
  ),
  key('strict-validate-path-type', 'strictValidatePathType', 'true', 'Exact and Prefix paths may hold only letters, digits and `_ - . /`.', v.bool),
  key('block-cidrs', 'blockCidrs', '', 'Client addresses (comma-separated CIDRs) refused with 403.', v.list(v.cidr, csv, 1024)),
  ...AUTH_CONFIGMAP_KEYS,
  key('block-user-agents', 'blockUserAgents', '', 'User agents (comma-separated; `~regex` allowed) refused with 403.', v.list(userAgent, csv, 256)),
  ...TRAFFIC_CONFIGMAP_KEYS,
  ...MORE_CONFIGMAP_KEYS,
  ...TLS_CONFIGMAP_KEYS,
  ...TRACING_CONFIGMAP_KEYS,
];

const BY_NAME = new Map(CONFIGMAP_KEYS.map((k) => [k.key, k]));

export interface ConfigMapResult {
  readonly settings: GlobalSettings;
  /** Values refused; each key kept its previous value. */
  readonly errors: readonly { readonly key: string; readonly reason: string }[];
  readonly unknown: readonly string[];
  /** Recognised keys (configmap-without-setting.ts): refused ones get a Warning and an Event; no-ops a log line. */
  readonly refused: readonly { readonly key: string; readonly reason: string }[];
  readonly noops: readonly { readonly key: string; readonly reason: string }[];
}

/** Parses the ConfigMap's data. Missing keys take the default; a refused value keeps the value in `previous`. */
export function parseConfigMap(data: Readonly<Record<string, string>> | undefined, previous: GlobalSettings = GLOBAL_DEFAULTS): ConfigMapResult {
  const g: Mutable<GlobalSettings> = { ...GLOBAL_DEFAULTS };
  const errors: { key: string; reason: string }[] = [];
  const unknown: string[] = [];
  const refused: { key: string; reason: string }[] = [];
  const noops: { key: string; reason: string }[] = [];
  for (const name of Object.keys(data ?? {}).sort()) {
    const spec = BY_NAME.get(name);
    const compat = spec ? undefined : COMPAT_BY_KEY.get(name);
    if (compat) {
      const asks = compat.status === 'refused' && (compat.when?.(data?.[name] ?? '') ?? true);
      (asks ? refused : noops).push({ key: name, reason: asks ? compat.why : `no effect: ${compat.why}` });
      continue;
    }
    if (!spec) {
      unknown.push(name);
      continue;
    }
    const raw = (data?.[name] ?? '').trim();
    if (raw === '' && spec.emptyIsValue !== true) continue;
    const reason = spec.apply(raw, g);
    if (reason === undefined) continue;
    errors.push({ key: name, reason });
    Object.assign(g, { [spec.field]: previous[spec.field] });
  }
  if (g.enableSyslog && g.syslogHost === undefined) errors.push({ key: 'syslog-host', reason: 'enable-syslog is true but syslog-host is not set: the access log stays in its file' });
  noops.push(...tracingNotices(g));
  return { settings: Object.freeze(g), errors, unknown, refused, noops };
}
