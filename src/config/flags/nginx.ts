// The flags of how Portico runs nginx and syncs: files, workers, load balancing, routes, metrics, shutdown, logging.
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../errors.js';
import { optional, plain, text, toggle, type FlagContext } from '../flag.js';
import { parseIntAtLeast, parseLoadBalance, parseNameList, parseSecondsOrDuration, parseUserName } from '../values.js';

/** nginx keeps a unix socket in the work directory (the 503 server, docs/adr/0001); sun_path holds 107 bytes. */
function parseWorkDir(flag: string, value: string): string {
  if (Buffer.byteLength(value.replace(/\/$/, '')) > 80) throw new ConfigError(`--${flag}: at most 80 bytes long (nginx keeps a unix socket in it), got ${JSON.stringify(value)}`);
  return value;
}

/** A count of nginx workers, or auto. */
function parseWorkerProcesses(flag: string, value: string): number | 'auto' {
  return value === 'auto' ? 'auto' : parseIntAtLeast(flag, value, 1);
}

/** --sync-period-ms, else ingress-nginx's --sync-rate-limit (syncs per second, a float) as milliseconds. */
function parseSyncPeriod(flag: string, value: string, ctx: FlagContext): number {
  const rate = ctx.given('sync-rate-limit');
  if (ctx.given(flag) !== undefined || typeof rate !== 'string') return parseIntAtLeast(flag, value, 10);
  const perSecond = Number(rate);
  if (!/^\d*\.?\d+$/.test(rate) || !(perSecond > 0)) throw new ConfigError(`--sync-rate-limit: expected a positive number of syncs per second, got ${JSON.stringify(rate)}`);
  return Math.max(10, Math.round(1000 / perSecond));
}

/** --log-level, else --v (klog verbosity) as a log level. */
function parseLogLevel(flag: string, value: string, ctx: FlagContext): string {
  const verbosity = ctx.given('v');
  if (ctx.given(flag) !== undefined || typeof verbosity !== 'string') return value;
  if (!/^\d{1,2}$/.test(verbosity)) throw new ConfigError(`--v: expected a verbosity number such as 2, got ${JSON.stringify(verbosity)}`);
  return Number(verbosity) >= 4 ? 'debug' : 'info';
}

export const NGINX_FLAGS = {
  workDir: text('work-dir', join(tmpdir(), 'portico'), "nginx's prefix: config, pid, temp and log files", parseWorkDir),
  nginxBinary: plain('nginx-binary', '/usr/sbin/nginx', 'the nginx executable'),
  /** nginx's stream njs module: present, Gateway TCP/UDP peers come from tables without a reload (docs/adr/0041). */
  streamJsModule: plain(
    'stream-js-module',
    '/usr/lib/nginx/modules/ngx_stream_js_module.so',
    "nginx's stream njs module (Debian's libnginx-mod-stream-js), looked for once at start: when the file exists, the endpoints and weights of TCPRoutes and UDPRoutes change without a reload; empty or missing: static stream upstreams, reloaded on each endpoint change (docs/adr/0041)",
  ),
  /** Who nginx workers run as when Portico is root; undefined: www-data, else nobody (docs/adr/0009). */
  workerUser: optional('worker-user', 'user nginx workers run as when Portico is root (default: www-data if it exists, else nobody; root only if named)', parseUserName),
  /** nginx worker_processes: a count, or 'auto' (one per CPU). */
  workerProcesses: text('worker-processes', 'auto', "nginx's worker_processes: a count >= 1, or auto (one per CPU)", parseWorkerProcesses),
  defaultLoadBalance: text('default-load-balance', 'round_robin', 'default algorithm: round_robin or ewma', parseLoadBalance),
  syncPeriodMs: text('sync-period-ms', '100', 'minimum time between two syncs (>= 10)', parseSyncPeriod),
  /** Per-request metrics counted by Lua in the log phase (lua/portico/metrics.lua). */
  enableMetrics: toggle('enable-metrics', true, "per-request metrics under ingress-nginx's names on /metrics, counted by Lua in nginx's log phase"),
  /** Requests for a host no Ingress defines are counted under that host (an unbounded label set: the operator's choice). */
  metricsPerUndefinedHost: toggle(
    'metrics-per-undefined-host',
    false,
    "count the requests for hosts no Ingress defines in the per-request metrics, labelled with the request's host (the client chooses it: every new name is a new series); default: not counted",
  ),
  /** Per-request metric names left out of /metrics (ingress-nginx's socket metrics). */
  excludeSocketMetrics: text(
    'exclude-socket-metrics',
    '',
    'comma-separated per-request metric names left out of /metrics, with or without the nginx_ingress_controller_ prefix (e.g. request_size,nginx_ingress_controller_response_duration_seconds); unknown names change nothing',
    parseNameList,
  ),
  /** Ingresses in the dynamic set are routed by the Lua route table, no reload (docs/adr/0014). */
  enableDynamicRoutes: toggle(
    'enable-dynamic-routes',
    true,
    'route hosts through a Lua route table in the catch-all server instead of server blocks: adding or removing an Ingress, host or path is applied without a reload; annotated paths share named locations, a new annotation set costs one reload; hosts with server-level needs keep server blocks; /debug/config and portico config --raw list the routed hosts after nginx.conf; =false renders every host as a server block (docs/adr/0014)',
  ),
  /** A sync after a change of a few Ingresses translates only their host neighbourhood (docs/adr/0039), by default (docs/adr/0043). */
  incrementalSync: toggle(
    'incremental-sync',
    true,
    'when a sync changes only Ingresses (and the Services, EndpointSlices and Secrets of their namespaces), translate only the hosts those Ingresses share names with and splice them into the last model, and render again only the hosts that changed, instead of building every host again; any cluster-wide change (ConfigMap, IngressClass, Gateway API, an Ingress without host or with a default backend, a stream section) still builds the whole (docs/adr/0039, on by default: docs/adr/0043); =false builds the whole on every sync',
  ),
  /** A new configuration's `nginx -t` runs beside its reload, not before it (docs/adr/0053). */
  testBesideReload: toggle(
    'test-beside-reload',
    true,
    "run nginx -t on a new configuration at the same time as the reload that loads it, not before: nginx's master refuses what nginx -t refuses and keeps serving the last good configuration, so a reload no longer waits for a first parse of the same text (at 100,000 Ingresses about 5 s); a refused configuration is tested alone on the next sync, which leaves out the Ingress that caused it; nginx's first start is always tested first; =false tests before every reload, as ingress-nginx does (docs/adr/0053)",
  ),
  /** After SIGTERM, readiness fails this long before nginx is asked to quit. */
  shutdownGracePeriodMs: text('shutdown-grace-period', '0', 'on SIGTERM, seconds (or a duration: 5s) readiness fails before nginx quits gracefully', parseSecondsOrDuration),
  logLevel: text('log-level', 'info', 'debug, info, warn or error', parseLogLevel),
};
