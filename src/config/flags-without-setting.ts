// ingress-nginx flags Portico accepts without a flag of its own: what each does here (mapped, a no-op, or refused), so
// an existing ingress-nginx Deployment's arguments start Portico instead of exiting with status 2.

/**
 * `mapped`: read, and turned into Portico's own setting (the doc says which). `no-op`: accepted; the behaviour is
 * already Portico's, or does not exist here (the doc says which). `refused`: accepted so Portico starts, but the
 * behaviour asked for is not given: a Warning at start names the flag and why (only when its value asks for it).
 */
export interface FlagWithoutSetting {
  readonly type: 'string' | 'boolean';
  readonly status: 'mapped' | 'no-op' | 'refused';
  readonly doc: string;
  /** For refused flags: whether this value asks for the behaviour (default: any value, or true for booleans). */
  readonly asks?: (value: string | boolean) => boolean;
}

const b = (status: FlagWithoutSetting['status'], doc: string, asks?: FlagWithoutSetting['asks']): FlagWithoutSetting => ({ type: 'boolean', status, doc, ...(asks ? { asks } : {}) });
const s = (status: FlagWithoutSetting['status'], doc: string, asks?: FlagWithoutSetting['asks']): FlagWithoutSetting => ({ type: 'string', status, doc, ...(asks ? { asks } : {}) });
const KLOG = 'klog logging flag: Portico writes JSON lines to stderr; --log-level (or --v) sets the level';
const METRICS = "metrics histogram tuning of ingress-nginx: Portico's /metrics buckets are fixed";
const GEOIP = "GeoIP2 databases: Portico refuses use-geoip2 (no GeoIP2 module in Debian's nginx)";

export const COMPAT_FLAGS: Readonly<Record<string, FlagWithoutSetting>> = {
  v: s('mapped', 'log verbosity: 0-3 is --log-level info, 4 and more is debug (unless --log-level is given)'),
  'sync-rate-limit': s('mapped', 'syncs per second at most: sets --sync-period-ms to 1000 / rate (unless --sync-period-ms is given)'),
  'sync-period': s('no-op', "periodic resync of the object stores: Portico's informers relist after every watch error and never need one"),
  'disable-leader-election': b('no-op', 'Portico always elects a leader on a Lease (only it writes Ingress status); one replica leads at once'),
  'election-ttl-seconds': s('no-op', 'use --election-ttl'),
  'health-check-path': s('refused', "Portico's health check is /healthz on --healthz-port and cannot move", (v) => v !== '/healthz'),
  'health-check-timeout': s('no-op', "/healthz answers from Portico's own state, within the kubelet's probe timeout"),
  'post-shutdown-grace-period': s('no-op', 'Portico exits as soon as nginx has quit; --shutdown-grace-period covers the drain'),
  'disable-full-test': b('no-op', 'Portico always runs nginx -t on the whole candidate configuration, and quarantines only the Ingress nginx names'),
  'dynamic-configuration-retries': s('no-op', 'Portico retries pushing endpoints to Lua on every sync until nginx takes them'),
  'enable-annotation-validation': b('no-op', 'always on: every annotation value is checked against its exact syntax'),
  'deep-inspect': b('no-op', 'always on: values are checked by syntax and snippets are parsed (docs/adr/0012)'),
  'enable-ssl-chain-completion': b('refused', 'Portico serves certificate chains as the Secret holds them and never fetches intermediates'),
  'ssl-passthrough-proxy-port': s('no-op', 'with --enable-ssl-passthrough the HTTPS server listens on a unix socket in the work directory behind the SNI front, not on a port'),
  'enable-topology-aware-routing': b('refused', 'not implemented: every ready endpoint is used, whatever its zone'),
  'stream-port': s('no-op', 'Portico has no Lua stream endpoint (Debian has no stream Lua module)'),
  'certificate-authority': s('refused', "not read: give the API server's CA in a --kubeconfig file"),
  'status-update-interval': s('no-op', 'the leader re-reads the addresses and rechecks every Ingress status each 60 s, a fixed interval'),
  'report-status-classes': b('no-op', 'Portico\'s /metrics label the full three-digit status code; group them by class in the query (e.g. status=~"5..")'),
  'internal-logger-address': s('no-op', "Portico has no internal syslog relay: nginx's errors go to Portico's stderr"),
  profiling: b('no-op', 'Portico has no Go profiler; /debug/state on the healthz port (loopback) shows its state'),
  'profiler-port': s('no-op', 'Portico has no Go profiler'),
  'profiler-address': s('no-op', 'Portico has no Go profiler'),
  'metrics-per-host': b('no-op', 'Portico labels request metrics by host always'),
  'monitor-max-batch-size': s('no-op', METRICS),
  'bucket-factor': s('no-op', METRICS),
  'max-buckets': s('no-op', METRICS),
  'time-buckets': s('no-op', METRICS),
  'length-buckets': s('no-op', METRICS),
  'size-buckets': s('no-op', METRICS),
  'maxmind-edition-ids': s('no-op', GEOIP),
  'maxmind-license-key': s('no-op', GEOIP),
  'maxmind-mirror': s('no-op', GEOIP),
  'maxmind-retries-count': s('no-op', GEOIP),
  'maxmind-retries-timeout': s('no-op', GEOIP),
  add_dir_header: b('no-op', KLOG),
  alsologtostderr: b('no-op', KLOG),
  log_backtrace_at: s('no-op', KLOG),
  log_dir: s('no-op', KLOG),
  log_file: s('no-op', KLOG),
  log_file_max_size: s('no-op', KLOG),
  logtostderr: b('no-op', KLOG),
  one_output: b('no-op', KLOG),
  skip_headers: b('no-op', KLOG),
  skip_log_headers: b('no-op', KLOG),
  stderrthreshold: s('no-op', KLOG),
  vmodule: s('no-op', KLOG),
};

/**
 * Whether `value` of a refused flag asks for what Portico does not give: a boolean only when true (`=false` asks for
 * what Portico does anyway), a string by the flag's own test. The start Warnings and migrate-check both judge by it.
 */
export function asksForRefused(f: FlagWithoutSetting, value: string | boolean | undefined): boolean {
  if (f.status !== 'refused' || value === undefined) return false;
  const v = f.type === 'boolean' && typeof value === 'string' ? value === 'true' : value;
  if (v === false) return false;
  return (f.asks ?? (() => true))(v);
}

/** The Warnings at start for refused flags whose value asks for the behaviour. */
export function refusedFlagWarnings(values: Readonly<Record<string, string | boolean | undefined>>): string[] {
  return Object.entries(COMPAT_FLAGS).flatMap(([name, f]) => (asksForRefused(f, values[name]) ? [`--${name} is accepted but refused: ${f.doc}`] : []));
}
