// ingress-nginx ConfigMap keys Portico recognises without a setting: documented no-ops, and keys refused with the reason.

/**
 * `no-op`: accepted, changes nothing, because the behaviour is already Portico's (the reason says which).
 * `refused`: a Warning and an Event on the ConfigMap, and the key is not applied. `when` narrows a refusal to the values
 * that ask for what Portico cannot give (`enable-modsecurity: "false"` asks for nothing and is a no-op).
 */
export interface KeyWithoutSetting {
  readonly key: string;
  readonly status: 'no-op' | 'refused';
  readonly why: string;
  readonly when?: (raw: string) => boolean;
}

const truthy = (raw: string): boolean => ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw.trim());
const set = (raw: string): boolean => raw.trim() !== '';
const NO_MODULE = (what: string, pkg: string): string => `${what} needs a module that Debian's nginx packages do not ship (${pkg}); Portico runs Debian's nginx`;
const REMOVED_TRACING = 'removed in ingress-nginx v1.10: OpenTelemetry replaced it (enable-opentelemetry and the otlp-* and otel-* keys, which Portico reads); refused';
const OTEL_CONFIG = "the path of the otel module's file, which ingress-nginx writes from the otlp-* and otel-* keys; Portico reads those keys itself (docs/adr/0018)";
const NO_STREAM = "not read yet: the stream section (tcp/udp-services-configmap, ssl-passthrough) uses ingress-nginx's defaults (connect 5s, timeout 600s, one UDP response)";

function rows(keys: readonly string[], status: KeyWithoutSetting['status'], why: string, when?: (raw: string) => boolean): KeyWithoutSetting[] {
  return keys.map((key) => ({ key, status, why, ...(when ? { when } : {}) }));
}

/** The table; docs/configmap.md lists it with CONFIGMAP_KEYS. */
export const CONFIGMAP_COMPAT: readonly KeyWithoutSetting[] = [
  ...rows(['enable-modsecurity', 'enable-owasp-modsecurity-crs'], 'refused', NO_MODULE('ModSecurity', 'libnginx-mod-http-modsecurity is not in bookworm'), truthy),
  ...rows(['modsecurity-snippet'], 'refused', NO_MODULE('ModSecurity', 'libnginx-mod-http-modsecurity is not in bookworm'), set),
  ...rows(['enable-brotli'], 'refused', NO_MODULE('Brotli', 'not loaded by Portico'), truthy),
  ...rows(['brotli-level', 'brotli-min-length', 'brotli-types'], 'no-op', 'only read with enable-brotli, which Portico refuses'),
  ...rows(['use-geoip2'], 'refused', NO_MODULE('GeoIP2', 'and MaxMind databases need a license key'), truthy),
  ...rows(['geoip2-autoreload-in-minutes'], 'no-op', 'only read with use-geoip2, which Portico refuses'),
  ...rows(['use-geoip'], 'no-op', 'the legacy GeoIP databases are no longer published; ingress-nginx ships none either, so its $geoip_* variables are empty there too'),
  ...rows(['opentelemetry-config'], 'no-op', OTEL_CONFIG),
  ...rows(
    [
      'enable-opentracing',
      'opentracing-operation-name',
      'opentracing-location-operation-name',
      'zipkin-collector-host',
      'zipkin-collector-port',
      'zipkin-service-name',
      'zipkin-sample-rate',
      'jaeger-collector-host',
      'jaeger-collector-port',
      'jaeger-endpoint',
      'jaeger-service-name',
      'jaeger-propagation-format',
      'jaeger-sampler-type',
      'jaeger-sampler-param',
      'jaeger-sampler-host',
      'jaeger-sampler-port',
      'jaeger-trace-context-header-name',
      'jaeger-debug-header',
      'jaeger-baggage-header',
      'jaeger-trace-baggage-header-prefix',
      'datadog-collector-host',
      'datadog-collector-port',
      'datadog-service-name',
      'datadog-environment',
      'datadog-operation-name-override',
      'datadog-priority-sampling',
      'datadog-sample-rate',
    ],
    'refused',
    REMOVED_TRACING,
    set,
  ),
  ...rows(
    [
      'global-rate-limit-memcached-host',
      'global-rate-limit-memcached-port',
      'global-rate-limit-memcached-connect-timeout',
      'global-rate-limit-memcached-max-idle-timeout',
      'global-rate-limit-memcached-pool-size',
      'global-rate-limit-status-code',
    ],
    'refused',
    'the memcached global rate limit was removed from ingress-nginx (v1.12); use limit-rps / limit-rpm per Ingress',
    set,
  ),
  ...rows(['plugins'], 'refused', 'Portico loads no Lua plugins: its Lua is its own (lua/portico), and loading others would run tenant-independent code in every request', set),
  ...rows(['lua-shared-dicts'], 'refused', 'Portico sizes its own shared dicts (512m backends, 128m certificates) and has no plugins to give others to', set),
  ...rows(['error-log-path'], 'no-op', "nginx's error log goes into Portico's log, one line each at nginx's level ([error] and worse at error); error-log-level applies"),
  ...rows(['ssl-ecdh-curve'], 'no-op', "Portico uses nginx's default (auto), as ingress-nginx does"),
  ...rows(['ssl-early-data'], 'refused', 'TLS 1.3 early data (0-RTT) can be replayed; Portico does not offer it', truthy),
  ...rows(['enable-ocsp'], 'refused', 'OCSP stapling is not implemented (Portico fetches nothing from certificate authorities)', truthy),
  ...rows(['reuse-port'], 'no-op', 'Portico never uses reuseport: with it, connections queued on old workers after a reload are lost'),
  ...rows(['disable-ipv6'], 'no-op', 'Portico listens on the address of --listen-address or bind-address (all IPv4 addresses by default), never on IPv6 unless one of them names one'),
  ...rows(['disable-ipv6-dns'], 'no-op', 'Portico takes its name servers from /etc/resolv.conf; an IPv6-only answer fails the lookup as with ipv6=off'),
  ...rows(['nginx-status-ipv4-whitelist', 'nginx-status-ipv6-whitelist'], 'no-op', "Portico's status endpoint listens on 127.0.0.1 only and answers Portico's token only (docs/adr/0007)"),
  ...rows(['generate-request-id'], 'no-op', "always on: X-Request-ID is the client's when sent, else 32 random hex digits from OpenSSL's RAND_bytes, as nginx's $request_id (docs/adr/0015)"),
  ...rows(['http2-max-field-size', 'http2-max-header-size', 'http2-max-requests'], 'no-op', 'deprecated by ingress-nginx: large-client-header-buffers and keep-alive-requests apply to HTTP/2 too'),
  ...rows(['enable-serial-reloads'], 'no-op', 'Portico always reloads one configuration at a time'),
  ...rows(['enable-aio-write'], 'no-op', "Portico writes no response bodies to disk through nginx's aio"),
  ...rows(
    ['limit-conn-zone-variable'],
    'refused',
    'Portico keys limit-connections on the client address ($binary_remote_addr) only',
    (raw) => raw.trim() !== '' && raw.trim() !== '$binary_remote_addr',
  ),
  ...rows(['proxy-protocol-header-timeout'], 'no-op', 'nginx 1.22 has no http-level PROXY protocol header timeout; client-header-timeout covers the connection'),
  ...rows(['proxy-stream-timeout', 'proxy-stream-next-upstream', 'proxy-stream-next-upstream-timeout', 'proxy-stream-next-upstream-tries', 'proxy-stream-responses'], 'no-op', NO_STREAM),
  ...rows(['annotation-value-word-blocklist'], 'no-op', 'Portico checks every annotation value against its exact syntax and parses snippets (docs/adr/0012), which refuses more than a word list'),
  ...rows(['proxy-ssl-location-only'], 'no-op', "proxy-ssl-* annotations always apply to the Ingress's own locations in Portico"),
  ...rows(['force-ssl-redirect'], 'refused', 'not read globally: set the force-ssl-redirect annotation on each Ingress (ssl-redirect applies globally)', truthy),
  ...rows(['debug-connections'], 'refused', "debug_connection needs nginx built --with-debug; Debian's nginx is not", set),
];

export const COMPAT_BY_KEY: ReadonlyMap<string, KeyWithoutSetting> = new Map(CONFIGMAP_COMPAT.map((k) => [k.key, k]));
