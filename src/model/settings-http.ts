// Global ConfigMap settings for headers, buffers, hashes, gzip, logs, admin snippets, with ingress-nginx's defaults.

export interface HttpGlobals {
  readonly clientHeaderBufferSize: string;
  /** `large_client_header_buffers`: number and size, e.g. `4 8k`. */
  readonly largeClientHeaderBuffers: readonly [number, string];
  readonly clientHeaderTimeout: number;
  readonly clientBodyTimeout: number;
  readonly serverNameHashMaxSize: number;
  readonly serverNameHashBucketSize: number;
  readonly mapHashBucketSize: number;
  readonly variablesHashMaxSize: number;
  readonly variablesHashBucketSize: number;
  readonly proxyHeadersHashMaxSize: number;
  readonly proxyHeadersHashBucketSize: number;
  readonly useGzip: boolean;
  readonly gzipLevel: number;
  readonly gzipMinLength: number;
  readonly gzipTypes: readonly string[];
  readonly gzipDisable: readonly string[];
  readonly enableUnderscoresInHeaders: boolean;
  readonly ignoreInvalidHeaders: boolean;
  readonly retryNonIdempotent: boolean;
  /** enable-syslog, syslog-host (an IP address), syslog-port: the access log goes to syslog over UDP instead of a file. */
  readonly enableSyslog: boolean;
  readonly syslogHost: string | undefined;
  readonly syslogPort: number;
  readonly proxyBuffersNumber: number;
  readonly proxyBusyBuffersSize: string | undefined;
  readonly proxyNextUpstream: readonly string[];
  readonly proxyNextUpstreamTries: number;
  readonly proxyNextUpstreamTimeout: number;
  readonly proxyRequestBuffering: boolean;
  readonly proxyCookiePath: readonly [string, string] | 'off';
  readonly proxyCookieDomain: readonly [string, string] | 'off';
  readonly proxyRedirectFrom: string;
  readonly hideHeaders: readonly string[];
  readonly allowBackendServerHeader: boolean;
  readonly defaultType: string;
  readonly skipAccessLogUrls: readonly string[];
  readonly disableAccessLog: boolean;
  /** disable-http-access-log: the http section's access log only. */
  readonly disableHttpAccessLog: boolean;
  /** disable-stream-access-log: the stream section's access log only. */
  readonly disableStreamAccessLog: boolean;
  /** http-access-log-path: the http section's access log file (else access-log-path). */
  readonly httpAccessLogPath: string | undefined;
  /** stream-access-log-path: the stream section's access log file (else access-log-path). */
  readonly streamAccessLogPath: string | undefined;
  /** log-format-stream: the stream section's access log format (undefined: ingress-nginx's log_stream line). */
  readonly logFormatStream: string | undefined;
  /** enable-access-log-for-default-backend: requests the catch-all server answers from the default backend are logged. */
  readonly enableAccessLogForDefaultBackend: boolean;
  /** enable-auth-access-log: auth-url subrequests are written to the access log too. */
  readonly enableAuthAccessLog: boolean;
  /** The request header whose value is passed on as X-Original-Forwarded-Host. */
  readonly forwardedHostHeader: string;
  /** proxy_http_version of every location (the proxy-http-version annotation wins). */
  readonly proxyHttpVersion: '1.0' | '1.1';
  /** With custom-http-errors: let the backend's own error answers through (the disable-proxy-intercept-errors annotation wins). */
  readonly disableProxyInterceptErrors: boolean;
  /** bind-address: the traffic listeners' addresses (empty: --listen-address). */
  readonly bindAddress: readonly string[];
  readonly logFormatEscapeNone: boolean;
  readonly accessLogParams: readonly string[];
  readonly enableMultiAccept: boolean;
  readonly maxWorkerOpenFiles: number;
  readonly workerCpuAffinity: string;
  readonly upstreamKeepaliveTime: string;
  readonly http2MaxConcurrentStreams: number;
  readonly relativeRedirects: boolean;
  /** Response rate per connection in bytes per second, and bytes sent before it applies (0: none). */
  readonly limitRate: number;
  readonly limitRateAfter: number;
  readonly grpcBufferSizeKb: number;
  /** ConfigMap allow/deny lists for every server (an Ingress's own allowlist/denylist annotations replace them). */
  readonly whitelistSourceRange: readonly string[];
  readonly denylistSourceRange: readonly string[];
  /** Admin snippets (checked by src/model/snippets under --snippet-mode). */
  readonly mainSnippet: string | undefined;
  readonly httpSnippet: string | undefined;
  readonly serverSnippet: string | undefined;
  readonly locationSnippet: string | undefined;
  readonly streamSnippet: string | undefined;
  readonly globalAuthSnippet: string | undefined;
}

const GZIP_TYPES = [
  'application/atom+xml',
  'application/javascript',
  'application/x-javascript',
  'application/json',
  'application/rss+xml',
  'application/vnd.ms-fontobject',
  'application/x-font-ttf',
  'application/x-web-app-manifest+json',
  'application/xhtml+xml',
  'application/xml',
  'font/opentype',
  'image/svg+xml',
  'image/x-icon',
  'text/css',
  'text/javascript',
  'text/plain',
  'text/x-component',
];

/** ingress-nginx's defaults, except where Portico's render needs more (hash sizes: noted in docs/configmap.md). */
export const COMPAT_DEFAULTS: HttpGlobals = Object.freeze({
  clientHeaderBufferSize: '1k',
  largeClientHeaderBuffers: [4, '8k'] as const,
  clientHeaderTimeout: 60,
  clientBodyTimeout: 60,
  serverNameHashMaxSize: 4096,
  serverNameHashBucketSize: 128,
  mapHashBucketSize: 128,
  variablesHashMaxSize: 2048,
  variablesHashBucketSize: 128,
  proxyHeadersHashMaxSize: 512,
  proxyHeadersHashBucketSize: 64,
  useGzip: false,
  gzipLevel: 1,
  gzipMinLength: 256,
  gzipTypes: GZIP_TYPES,
  gzipDisable: [],
  enableUnderscoresInHeaders: false,
  ignoreInvalidHeaders: true,
  retryNonIdempotent: false,
  proxyBuffersNumber: 4,
  proxyBusyBuffersSize: undefined,
  proxyNextUpstream: ['error', 'timeout'],
  proxyNextUpstreamTries: 3,
  proxyNextUpstreamTimeout: 0,
  proxyRequestBuffering: true,
  proxyCookiePath: 'off',
  proxyCookieDomain: 'off',
  proxyRedirectFrom: 'off',
  hideHeaders: [],
  allowBackendServerHeader: false,
  defaultType: 'text/html',
  skipAccessLogUrls: [],
  disableAccessLog: false,
  disableHttpAccessLog: false,
  disableStreamAccessLog: false,
  httpAccessLogPath: undefined,
  streamAccessLogPath: undefined,
  logFormatStream: undefined,
  enableAccessLogForDefaultBackend: false,
  enableAuthAccessLog: false,
  forwardedHostHeader: 'X-Forwarded-Host',
  proxyHttpVersion: '1.1',
  disableProxyInterceptErrors: false,
  bindAddress: [],
  logFormatEscapeNone: false,
  accessLogParams: [],
  enableMultiAccept: true,
  maxWorkerOpenFiles: 0,
  workerCpuAffinity: '',
  upstreamKeepaliveTime: '1h',
  http2MaxConcurrentStreams: 128,
  relativeRedirects: false,
  limitRate: 0,
  limitRateAfter: 0,
  grpcBufferSizeKb: 0,
  whitelistSourceRange: [],
  denylistSourceRange: [],
  mainSnippet: undefined,
  enableSyslog: false,
  syslogHost: undefined,
  syslogPort: 514,
  httpSnippet: undefined,
  serverSnippet: undefined,
  locationSnippet: undefined,
  streamSnippet: undefined,
  globalAuthSnippet: undefined,
});
