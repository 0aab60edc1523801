// The flag table: ingress-nginx's flag names and defaults, parsed with node:util parseArgs.
import { parseArgs } from 'node:util';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ConfigError } from '../errors.js';
import {
  finalizeConfig,
  loopbackUpstreamsDefault,
  parseAddressList,
  parseCidrList,
  parseDuration,
  parseIntAtLeast,
  parseListenAddress,
  parseControllerName,
  parseObjectRef,
  parsePort,
  parseRiskLevel,
  parseHost,
  parseSecondsOrDuration,
  parseUserName,
  type Config,
} from './config.js';
import { COMPAT_FLAGS, refusedFlagWarnings } from './flags-without-setting.js';
import { commandError, flagError } from './suggest.js';

interface FlagSpec {
  readonly type: 'string' | 'boolean';
  readonly default: string;
  readonly doc: string;
}

export const FLAGS: Readonly<Record<string, FlagSpec>> = {
  manifests: { type: 'string', default: '', doc: 'local mode: a folder of Kubernetes manifests instead of a cluster' },
  kubeconfig: { type: 'string', default: '', doc: 'path to a kubeconfig file (default: $KUBECONFIG, else in-cluster)' },
  'apiserver-host': { type: 'string', default: '', doc: 'address of the Kubernetes API server, overriding the kubeconfig' },
  'watch-namespace': { type: 'string', default: '', doc: 'watch only this namespace (default: all)' },
  'watch-namespace-selector': { type: 'string', default: '', doc: 'watch only namespaces matching this label selector' },
  configmap: { type: 'string', default: '', doc: 'namespace/name of the global ConfigMap' },
  'http-port': { type: 'string', default: '80', doc: 'port for HTTP traffic' },
  'https-port': { type: 'string', default: '443', doc: 'port for HTTPS traffic' },
  'healthz-port': { type: 'string', default: '10254', doc: 'port of /healthz, /metrics and /debug' },
  'healthz-host': { type: 'string', default: '', doc: 'address the healthz port binds (default: all addresses)' },
  'disable-sync-events': { type: 'boolean', default: 'false', doc: 'no Normal `Sync` Event per applied Ingress (the sync log line stays); Warning and RELOAD Events stay, as in ingress-nginx' },
  'debug-remote-access': { type: 'boolean', default: 'false', doc: 'answer /debug/* to peers other than loopback (default: 403 to them)' },
  'status-port': { type: 'string', default: '10246', doc: "port of nginx's internal configuration endpoint (127.0.0.1)" },
  'default-server-port': { type: 'string', default: '', doc: 'port of the built-in default backend on 127.0.0.1 (404, /healthz 200); not opened unless given, so instances never collide on it' },
  'listen-address': { type: 'string', default: '', doc: 'address for the traffic ports (default: all addresses)' },
  'work-dir': { type: 'string', default: join(tmpdir(), 'portico'), doc: "nginx's prefix: config, pid, temp and log files" },
  'nginx-binary': { type: 'string', default: '/usr/sbin/nginx', doc: 'the nginx executable' },
  'controller-class': { type: 'string', default: 'portico.dev/ingress-controller', doc: 'IngressClass spec.controller handled' },
  'ingress-class': { type: 'string', default: 'portico', doc: 'legacy kubernetes.io/ingress.class annotation value handled' },
  'watch-ingress-without-class': { type: 'boolean', default: 'false', doc: 'also serve Ingresses that name no class' },
  'ingress-class-by-name': { type: 'boolean', default: 'false', doc: 'also serve Ingresses whose spec.ingressClassName is --ingress-class, whatever controller that IngressClass names' },
  'disable-catch-all': { type: 'boolean', default: 'false', doc: 'ignore every Ingress that has a spec.defaultBackend (its rules too), so no tenant can take the catch-all server' },
  'enable-gateway-api': { type: 'boolean', default: 'true', doc: 'serve Gateway API HTTPRoutes of GatewayClasses whose controllerName is --gateway-controller-name (docs/gateway-api.md)' },
  'gateway-controller-name': { type: 'string', default: 'portico.dev/gateway-controller', doc: 'GatewayClass spec.controllerName handled' },
  'strict-host-ownership': { type: 'boolean', default: 'false', doc: "a host belongs to the namespace of its oldest Ingress; other namespaces' rules on it are refused" },
  'allow-cross-namespace-canaries': {
    type: 'boolean',
    default: 'false',
    doc: "let a canary Ingress attach to a main path of another namespace, as ingress-nginx did (a tenant risk: the canary takes the other namespace's requests, docs/security.md)",
  },
  'default-backend-service': { type: 'string', default: '', doc: 'namespace/name of the Service for unmatched requests' },
  'default-ssl-certificate': { type: 'string', default: '', doc: 'namespace/name of the TLS Secret for hosts without their own certificate' },
  'annotations-prefix': { type: 'string', default: 'nginx.ingress.kubernetes.io', doc: 'prefix of the annotations read' },
  'annotations-risk-level': { type: 'string', default: 'High', doc: 'refuse annotations rated above this: Low, Medium, High or Critical' },
  'allow-snippet-annotations': {
    type: 'boolean',
    default: 'false',
    doc: 'let *-snippet annotations apply (default false, as in ingress-nginx since v1.9; the ConfigMap key of the same name overrides it); --snippet-mode then decides which',
  },
  'snippet-mode': {
    type: 'string',
    default: 'safe',
    doc: "snippets: refuse; safe (only the allowlisted directives of docs/adr/0012); any (ingress-nginx's behaviour, also needs --annotations-risk-level=Critical); every mode but refuse needs allow-snippet-annotations",
  },
  'default-load-balance': { type: 'string', default: 'round_robin', doc: 'default algorithm: round_robin or ewma' },
  'sync-period-ms': { type: 'string', default: '100', doc: 'minimum time between two syncs (>= 10)' },
  'election-id': { type: 'string', default: 'portico-leader', doc: 'name of the Lease replicas elect a leader on (in POD_NAMESPACE)' },
  'election-ttl': { type: 'string', default: '30s', doc: 'how long a leader keeps the Lease without renewing it' },
  'publish-service': { type: 'string', default: '', doc: 'namespace/name of the Service whose address is written to Ingress status' },
  'publish-status-address': { type: 'string', default: '', doc: 'comma-separated IPs or hostnames written to Ingress status' },
  'update-status': { type: 'boolean', default: 'true', doc: 'write status.loadBalancer of the Ingresses served (leader only)' },
  'update-status-on-shutdown': { type: 'boolean', default: 'true', doc: 'clear that status when the last replica stops' },
  'report-node-internal-ip-address': { type: 'boolean', default: 'false', doc: "use nodes' InternalIP, not ExternalIP, in status" },
  'validating-webhook': { type: 'string', default: '', doc: 'address of the validating admission webhook, e.g. :8443 (off when empty)' },
  'validating-webhook-certificate': { type: 'string', default: '', doc: "PEM certificate file of the webhook's HTTPS server" },
  'validating-webhook-key': { type: 'string', default: '', doc: "PEM key file of the webhook's HTTPS server" },
  'allow-loopback-upstreams': {
    type: 'boolean',
    default: 'auto',
    doc: "let tenants' backends, mirror-target and auth-url use loopback, never on Portico's own ports (default: true in local mode or outside a pod, false in a pod)",
  },
  'allow-upstream-cidrs': { type: 'string', default: '', doc: 'comma-separated CIDRs tenant targets may use although refused (link-local, multicast...), e.g. 169.254.20.10/32' },
  'worker-user': { type: 'string', default: '', doc: 'user nginx workers run as when Portico is root (default: www-data if it exists, else nobody; root only if named)' },
  'worker-processes': { type: 'string', default: 'auto', doc: "nginx's worker_processes: a count >= 1, or auto (one per CPU)" },
  'enable-metrics': { type: 'boolean', default: 'true', doc: "per-request metrics under ingress-nginx's names on /metrics, counted by Lua in nginx's log phase" },
  'enable-dynamic-routes': {
    type: 'boolean',
    default: 'true',
    doc: 'route hosts through a Lua route table in the catch-all server instead of server blocks: adding or removing an Ingress, host or path is applied without a reload; annotated paths share named locations, a new annotation set costs one reload; hosts with server-level needs keep server blocks; /debug/config and portico config --raw list the routed hosts after nginx.conf; =false renders every host as a server block (docs/adr/0014)',
  },
  'enable-dashboard': { type: 'boolean', default: 'true', doc: 'the read-only dashboard at /dashboard on the healthz port' },
  'shutdown-grace-period': { type: 'string', default: '0', doc: 'on SIGTERM, seconds (or a duration: 5s) readiness fails before nginx quits gracefully' },
  'tcp-services-configmap': { type: 'string', default: '', doc: 'namespace/name of the ConfigMap of TCP services: port → namespace/service:port[:PROXY[:PROXY]]' },
  'udp-services-configmap': { type: 'string', default: '', doc: 'namespace/name of the ConfigMap of UDP services: port → namespace/service:port' },
  'enable-ssl-passthrough': { type: 'boolean', default: 'false', doc: 'honour the ssl-passthrough annotation: nginx reads the SNI on the HTTPS port in front of the HTTPS server' },
  'log-level': { type: 'string', default: 'info', doc: 'debug, info, warn or error' },
  json: { type: 'boolean', default: 'false', doc: 'migrate-check: print the report as JSON instead of a table' },
  httproute: { type: 'string', default: '', doc: 'migrate-check: print the HTTPRoutes expressing the Ingress NAMESPACE/NAME (or all) and the annotations with no Gateway API equivalent' },
  version: { type: 'boolean', default: 'false', doc: "print Portico's version, git commit and nginx package version" },
  help: { type: 'boolean', default: 'false', doc: 'print this help' },
};

/** Commands besides running the controller: the first argument. */
export const COMMANDS = ['render', 'migrate-check'] as const;

/** The commands that inspect a running instance (src/inspect/). */
export const INSPECT_COMMANDS = ['backends', 'config', 'certs', 'status', 'gateway'] as const;

/** Go-style flags (`-flag`, `--flag=true`) become what parseArgs takes, so ingress-nginx command lines work. */
function normalizeArgv(argv: readonly string[]): string[] {
  const out: string[] = [];
  for (const raw of argv) {
    const arg = /^-[a-z]/.test(raw) && raw.length > 2 ? `-${raw}` : raw;
    const m = /^--([a-z_-]+)=(true|false)$/.exec(arg);
    if (m?.[1] && FLAGS[m[1]] === undefined && COMPAT_FLAGS[m[1]]?.type === 'boolean') {
      if (m[2] === 'true') out.push(`--${m[1]}`);
      continue;
    }
    if (m?.[1] && FLAGS[m[1]]?.type === 'boolean') {
      if (m[2] === 'true') out.push(`--${m[1]}`);
      else if (FLAGS[m[1]]?.default !== 'false') out.push(`--no-${m[1]}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** The help text, one line a flag. */
export function helpText(): string {
  const lines = Object.entries(FLAGS).map(([name, f]) => `  --${name.padEnd(30)} ${f.doc}${f.type === 'string' && f.default ? ` (default ${f.default})` : ''}`);
  const compat = Object.entries(COMPAT_FLAGS).map(([name, f]) => `  --${name.padEnd(30)} ${f.status}: ${f.doc}`);
  return [
    'usage: portico [render | migrate-check] [flags]',
    '       portico backends | config | certs | status | gateway [--url http://HOST:PORT] [--json]   (inspect a running instance)',
    '',
    ...lines,
    '',
    'ingress-nginx flags accepted for compatibility (docs/flags.md):',
    ...compat,
  ].join('\n');
}

/** Parses argv (without node and script) into the frozen Config, or throws ConfigError naming the flag. */
export function parseFlags(argv: readonly string[], env: NodeJS.ProcessEnv): Readonly<Config> & { help: boolean; version: boolean; json: boolean; httproute: string; warnings: readonly string[] } {
  const options: Record<string, { type: 'string' | 'boolean'; short?: string }> = Object.fromEntries(
    [...Object.entries(COMPAT_FLAGS), ...Object.entries(FLAGS)].map(([name, f]) => [name, { type: f.type }]),
  );
  options['v'] = { type: 'string', short: 'v' };
  for (const [name, f] of Object.entries(FLAGS)) if (f.type === 'boolean' && f.default !== 'false') options[`no-${name}`] = { type: 'boolean' };
  let parsed;
  try {
    parsed = parseArgs({ args: normalizeArgv(argv), options, allowPositionals: true, strict: true });
  } catch (err) {
    const known = Object.keys(options).filter((n) => n !== 'v');
    throw new ConfigError(`${flagError(err, known)} (see portico --help)`);
  }
  const { values, positionals } = parsed;
  const str = (name: string): string => {
    const v = values[name];
    return typeof v === 'string' ? v : (FLAGS[name]?.default ?? '');
  };
  const opt = (name: string): string | undefined => str(name) || undefined;
  const bool = (name: string): boolean => values[`no-${name}`] !== true && (values[name] === true || FLAGS[name]?.default === 'true');
  const mode = commandOf(positionals);
  const lb = str('default-load-balance');
  if (lb !== 'round_robin' && lb !== 'ewma') {
    throw new ConfigError(`--default-load-balance: expected round_robin or ewma, got ${JSON.stringify(lb)}`);
  }
  const dbs = opt('default-backend-service');
  const publishService = opt('publish-service');
  const webhook = opt('validating-webhook');
  const config = finalizeConfig({
    mode,
    manifests: opt('manifests'),
    kubeconfig: opt('kubeconfig') ?? (opt('manifests') ? undefined : env['KUBECONFIG'] || undefined),
    apiserverHost: opt('apiserver-host'),
    watchNamespace: opt('watch-namespace'),
    watchNamespaceSelector: opt('watch-namespace-selector'),
    configmap: opt('configmap'),
    httpPort: parsePort('http-port', str('http-port')),
    httpsPort: parsePort('https-port', str('https-port')),
    healthzPort: parsePort('healthz-port', str('healthz-port')),
    healthzHost: parseHost('healthz-host', str('healthz-host')),
    debugRemoteAccess: values['debug-remote-access'] === true,
    disableSyncEvents: values['disable-sync-events'] === true,
    statusPort: parsePort('status-port', str('status-port')),
    defaultServerPort: opt('default-server-port') === undefined ? undefined : parsePort('default-server-port', str('default-server-port')),
    listenAddress: str('listen-address'),
    workDir: str('work-dir'),
    luaDir: fileURLToPath(new URL('../../../lua/', import.meta.url)),
    nginxBinary: str('nginx-binary'),
    controllerClass: str('controller-class'),
    ingressClass: str('ingress-class'),
    watchIngressWithoutClass: values['watch-ingress-without-class'] === true,
    ingressClassByName: bool('ingress-class-by-name'),
    disableCatchAll: bool('disable-catch-all'),
    strictHostOwnership: bool('strict-host-ownership'),
    allowCrossNamespaceCanaries: bool('allow-cross-namespace-canaries'),
    enableGatewayApi: bool('enable-gateway-api'),
    gatewayControllerName: parseControllerName('gateway-controller-name', str('gateway-controller-name')),
    defaultBackendService: dbs ? parseObjectRef('default-backend-service', dbs) : undefined,
    defaultSslCertificate: opt('default-ssl-certificate') ? parseObjectRef('default-ssl-certificate', str('default-ssl-certificate')) : undefined,
    annotationsPrefix: str('annotations-prefix'),
    annotationsRiskLevel: parseRiskLevel(str('annotations-risk-level')),
    allowSnippetAnnotations: values['allow-snippet-annotations'] === true,
    snippetMode: parseSnippetMode(str('snippet-mode')),
    defaultLoadBalance: lb,
    syncPeriodMs: syncPeriodOf(values['sync-period-ms'], values['sync-rate-limit']),
    workerUser: opt('worker-user') === undefined ? undefined : parseUserName('worker-user', str('worker-user')),
    workerProcesses: str('worker-processes') === 'auto' ? 'auto' : parseIntAtLeast('worker-processes', str('worker-processes'), 1),
    logLevel: logLevelOf(values['log-level'], values['v']),
    electionId: str('election-id'),
    electionTtlMs: parseDuration('election-ttl', str('election-ttl'), 1000),
    publishService: publishService ? parseObjectRef('publish-service', publishService) : undefined,
    publishStatusAddress: parseAddressList('publish-status-address', str('publish-status-address')),
    updateStatus: bool('update-status'),
    updateStatusOnShutdown: bool('update-status-on-shutdown'),
    reportNodeInternalIp: bool('report-node-internal-ip-address'),
    podName: env['POD_NAME'] || undefined,
    podNamespace: env['POD_NAMESPACE'] || undefined,
    validatingWebhook: webhook ? parseListenAddress('validating-webhook', webhook) : undefined,
    validatingWebhookCertificate: opt('validating-webhook-certificate'),
    validatingWebhookKey: opt('validating-webhook-key'),
    allowLoopbackUpstreams: values['allow-loopback-upstreams'] === true || (values['no-allow-loopback-upstreams'] !== true && loopbackUpstreamsDefault(opt('manifests'), env)),
    allowUpstreamCidrs: parseCidrList('allow-upstream-cidrs', str('allow-upstream-cidrs')),
    enableMetrics: bool('enable-metrics'),
    enableDynamicRoutes: bool('enable-dynamic-routes'),
    enableDashboard: bool('enable-dashboard'),
    shutdownGracePeriodMs: parseSecondsOrDuration('shutdown-grace-period', str('shutdown-grace-period')),
    ...streamFlags(opt, values['enable-ssl-passthrough'] === true),
  });
  return Object.freeze({
    ...config,
    help: values['help'] === true,
    version: values['version'] === true,
    json: values['json'] === true,
    httproute: str('httproute'),
    warnings: refusedFlagWarnings(values),
  });
}

type Value = string | boolean | undefined;

/** The command word (`run` without one); an unknown word names every command and the nearest one. */
function commandOf(positionals: readonly string[]): 'run' | (typeof COMMANDS)[number] {
  const mode = COMMANDS.find((c) => c === positionals[0]) ?? 'run';
  if (mode === 'run' && positionals[0] !== undefined) throw new ConfigError(commandError(positionals[0], [...COMMANDS, ...INSPECT_COMMANDS]));
  if (positionals.length > 1) throw new ConfigError(`unexpected argument ${JSON.stringify(positionals.slice(1).join(' '))} after ${positionals[0] ?? ''}`);
  return mode;
}

/** The stream flags: the TCP/UDP services ConfigMaps and ssl-passthrough. */
function streamFlags(opt: (name: string) => string | undefined, passthrough: boolean): Pick<Config, 'tcpServicesConfigmap' | 'udpServicesConfigmap' | 'enableSslPassthrough'> {
  const ref = (name: string): Config['tcpServicesConfigmap'] => {
    const v = opt(name);
    return v === undefined ? undefined : parseObjectRef(name, v);
  };
  return { tcpServicesConfigmap: ref('tcp-services-configmap'), udpServicesConfigmap: ref('udp-services-configmap'), enableSslPassthrough: passthrough };
}

/** --sync-period-ms, else ingress-nginx's --sync-rate-limit (syncs per second, a float) as milliseconds. */
function syncPeriodOf(ms: Value, rateFlag: Value): number {
  if (typeof ms === 'string' || typeof rateFlag !== 'string') return parseIntAtLeast('sync-period-ms', typeof ms === 'string' ? ms : (FLAGS['sync-period-ms']?.default ?? '100'), 10);
  const value = rateFlag;
  const rate = Number(value);
  if (!/^\d*\.?\d+$/.test(value) || !(rate > 0)) throw new ConfigError(`--sync-rate-limit: expected a positive number of syncs per second, got ${JSON.stringify(value)}`);
  return Math.max(10, Math.round(1000 / rate));
}

/** --log-level, else --v (klog verbosity) as a log level. */
function logLevelOf(level: Value, value: Value): string {
  if (typeof level === 'string') return level;
  if (typeof value !== 'string') return FLAGS['log-level']?.default ?? 'info';
  if (!/^\d{1,2}$/.test(value)) throw new ConfigError(`--v: expected a verbosity number such as 2, got ${JSON.stringify(value)}`);
  return Number(value) >= 4 ? 'debug' : 'info';
}

/** --snippet-mode. */
function parseSnippetMode(value: string): 'refuse' | 'safe' | 'any' {
  if (value !== 'refuse' && value !== 'safe' && value !== 'any') throw new ConfigError(`--snippet-mode: expected refuse, safe or any, got ${JSON.stringify(value)}`);
  return value;
}
