// The frozen runtime configuration: every flag's typed value, validated once.
import { isIP } from 'node:net';
import { ConfigError } from '../errors.js';
import { RISK_ORDER, type RiskLevel } from '../model/settings.js';
import { parseCidr } from '../model/targets.js';

export type LoadBalance = 'round_robin' | 'ewma';

export interface Config {
  readonly mode: 'run' | 'render' | 'migrate-check';
  readonly manifests: string | undefined;
  readonly kubeconfig: string | undefined;
  readonly apiserverHost: string | undefined;
  readonly watchNamespace: string | undefined;
  readonly watchNamespaceSelector: string | undefined;
  readonly configmap: string | undefined;
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly healthzPort: number;
  /** Address the healthz port binds; '' means every address (kubelet probes and Prometheus reach it). */
  readonly healthzHost: string;
  /** Whether /debug/* answers peers other than loopback (docs/adr/0009). */
  readonly debugRemoteAccess: boolean;
  /** --disable-sync-events: no Normal Sync Event per applied Ingress. */
  readonly disableSyncEvents?: boolean;
  readonly statusPort: number;
  /** Port of the built-in default backend server; undefined: not opened (nginx answers unmatched requests itself). */
  readonly defaultServerPort: number | undefined;
  readonly listenAddress: string;
  readonly workDir: string;
  readonly luaDir: string;
  readonly nginxBinary: string;
  readonly controllerClass: string;
  readonly ingressClass: string;
  readonly watchIngressWithoutClass: boolean;
  /** --ingress-class-by-name: an Ingress whose ingressClassName is --ingress-class is ours, whatever that class's controller. */
  readonly ingressClassByName: boolean;
  /** --disable-catch-all: Ingresses with a spec.defaultBackend are ignored whole, as ingress-nginx's store ignores them. */
  readonly disableCatchAll: boolean;
  /** A host belongs to the namespace of its oldest Ingress; other namespaces' rules, aliases and TLS on it are refused (docs/adr/0008). */
  readonly strictHostOwnership: boolean;
  /** --allow-cross-namespace-canaries: canaries may attach to main paths of other namespaces (ingress-nginx's behaviour, a tenant risk). */
  readonly allowCrossNamespaceCanaries: boolean;
  /** --enable-gateway-api: watch and serve Gateway API objects (docs/gateway-api.md). */
  readonly enableGatewayApi: boolean;
  /** --gateway-controller-name: the GatewayClass spec.controllerName Portico handles. */
  readonly gatewayControllerName: string;
  readonly defaultBackendService: { namespace: string; name: string } | undefined;
  readonly defaultSslCertificate: { namespace: string; name: string } | undefined;
  readonly annotationsPrefix: string;
  /** Annotations rated above this are refused (ingress-nginx 1.12+ default: High). */
  readonly annotationsRiskLevel: RiskLevel;
  readonly allowSnippetAnnotations: boolean;
  /** --snippet-mode: refuse, safe (the allowlist of docs/adr/0012, default) or any (ingress-nginx's behaviour). */
  readonly snippetMode: 'refuse' | 'safe' | 'any';
  readonly defaultLoadBalance: LoadBalance;
  readonly syncPeriodMs: number;
  /** nginx worker_processes: a count, or 'auto' (one per CPU). */
  readonly workerProcesses: number | 'auto';
  /** --worker-user: who nginx workers run as when Portico is root; undefined: www-data, else nobody (docs/adr/0009). */
  readonly workerUser: string | undefined;
  readonly logLevel: string;
  /** Leader election and status. */
  readonly electionId: string;
  readonly electionTtlMs: number;
  readonly publishService: { namespace: string; name: string } | undefined;
  readonly publishStatusAddress: readonly string[];
  readonly updateStatus: boolean;
  readonly updateStatusOnShutdown: boolean;
  readonly reportNodeInternalIp: boolean;
  /** POD_NAME / POD_NAMESPACE: the Lease identity, where the Lease lives, the object RELOAD Events are about. */
  readonly podName: string | undefined;
  readonly podNamespace: string | undefined;
  readonly validatingWebhook: { host: string; port: number } | undefined;
  readonly validatingWebhookCertificate: string | undefined;
  readonly validatingWebhookKey: string | undefined;
  /** --allow-loopback-upstreams: tenant targets may be loopback (never on Portico's own ports); see loopbackUpstreamsDefault. */
  readonly allowLoopbackUpstreams: boolean;
  /** --allow-upstream-cidrs: ranges tenant targets may use although their class is refused (docs/adr/0007). */
  readonly allowUpstreamCidrs: readonly string[];
  /** --enable-metrics: per-request metrics counted by Lua in the log phase (lua/portico/metrics.lua). */
  readonly enableMetrics: boolean;
  /**
   * --enable-dynamic-routes: Ingresses in the dynamic set are routed by the Lua route table, no reload (docs/adr/0014).
   * parseFlags always sets it (true unless =false); absent, as in a Config built by hand (pure tests), every host renders.
   */
  readonly enableDynamicRoutes?: boolean;
  /** --enable-dashboard: the read-only page at /dashboard on the healthz port. */
  readonly enableDashboard: boolean;
  /** --shutdown-grace-period: after SIGTERM, readiness fails this long before nginx is asked to quit. */
  readonly shutdownGracePeriodMs: number;
  /** --tcp-services-configmap / --udp-services-configmap: namespace/name of the stream services ConfigMaps (model/stream.ts). */
  readonly tcpServicesConfigmap: { namespace: string; name: string } | undefined;
  readonly udpServicesConfigmap: { namespace: string; name: string } | undefined;
  /** --enable-ssl-passthrough: ssl_preread in front of the HTTPS port; the annotation is ignored with a Warning without it. */
  readonly enableSslPassthrough: boolean;
}

/** Splits `namespace/name`, the form every ingress-nginx object-reference flag takes. */
export function parseObjectRef(flag: string, value: string): { namespace: string; name: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(value);
  if (!m?.[1] || !m[3]) {
    throw new ConfigError(`--${flag}: expected namespace/name, got ${JSON.stringify(value)}`);
  }
  return { namespace: m[1], name: m[3] };
}

/** A Gateway API controller name: a domain-prefixed path (`example.net/gateway-controller`), as the GatewayClass CRD requires. */
export function parseControllerName(flag: string, value: string): string {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*\/[A-Za-z0-9/\-._~%!$&'()*+,;=:]+$/.test(value) || value.length > 253) {
    throw new ConfigError(`--${flag}: expected a domain-prefixed path such as portico.dev/gateway-controller, got ${JSON.stringify(value)}`);
  }
  return value;
}

/** Validates a TCP port flag. */
export function parsePort(flag: string, value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 65535) {
    throw new ConfigError(`--${flag}: expected a port number 1-65535, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** Validates an integer flag with a lower bound. */
export function parseIntAtLeast(flag: string, value: string, min: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min) {
    throw new ConfigError(`--${flag}: expected an integer >= ${min}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** A Go duration of one unit (`30s`, `1500ms`, `2m`, `1h`) in milliseconds, at least `minMs`. */
export function parseDuration(flag: string, value: string, minMs: number): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h)$/.exec(value);
  const scale = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
  const ms = m?.[1] && m[2] ? Math.round(Number(m[1]) * scale[m[2] as keyof typeof scale]) : NaN;
  if (!(ms >= minMs)) throw new ConfigError(`--${flag}: expected a duration like 30s or 1500ms, at least ${minMs} ms, got ${JSON.stringify(value)}`);
  return ms;
}

/** ingress-nginx's whole seconds (`5`), or a duration (`5s`, `1500ms`); 0 allowed. */
export function parseSecondsOrDuration(flag: string, value: string): number {
  return /^\d+$/.test(value) ? Number(value) * 1000 : parseDuration(flag, value, 0);
}

/** `host:port` or `:port` (every address), as --validating-webhook takes it. */
export function parseListenAddress(flag: string, value: string): { host: string; port: number } {
  const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]*):(\d+)$/.exec(value);
  if (!m || m[2] === undefined) throw new ConfigError(`--${flag}: expected [host]:port, e.g. :8443, got ${JSON.stringify(value)}`);
  return { host: (m[1] ?? '').replace(/^\[|\]$/g, ''), port: parsePort(flag, m[2]) };
}

/** An IP address (v4, or v6 with or without brackets) or '' for every address (--healthz-host). */
export function parseHost(flag: string, value: string): string {
  const host = value.replace(/^\[(.*)\]$/, '$1');
  if (host !== '' && !isIP(host)) throw new ConfigError(`--${flag}: expected an IP address, e.g. 127.0.0.1, got ${JSON.stringify(value)}`);
  return host;
}

/** A user name as /etc/passwd holds it (--worker-user); nginx's `user` directive takes it. */
export function parseUserName(flag: string, value: string): string {
  if (!/^[a-z_][a-z0-9_-]{0,31}$/i.test(value)) throw new ConfigError(`--${flag}: expected a user name like www-data, got ${JSON.stringify(value)}`);
  return value;
}

/** Comma-separated IPs or DNS names (--publish-status-address). */
export function parseAddressList(flag: string, value: string): string[] {
  const list = value
    .split(',')
    .map((a) => a.trim())
    .filter((a) => a !== '');
  const bad = list.find((a) => !/^[0-9a-fA-F:.]+$/.test(a) && !/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/i.test(a));
  if (bad !== undefined) throw new ConfigError(`--${flag}: ${JSON.stringify(bad)} is neither an IP address nor a DNS name`);
  return list;
}

/**
 * --allow-loopback-upstreams when not given. In a pod (POD_NAME or KUBERNETES_SERVICE_HOST set), loopback is the
 * controller's own pod, or with hostNetwork the node's own services: refused. In local mode (the operator writes every
 * manifest) or outside a pod, loopback is the operator's own machine: allowed.
 */
export function loopbackUpstreamsDefault(manifests: string | undefined, env: NodeJS.ProcessEnv): boolean {
  return manifests !== undefined || !(env['POD_NAME'] || env['KUBERNETES_SERVICE_HOST']);
}

/** Comma-separated CIDRs (--allow-upstream-cidrs); a bare address is its own /32 or /128. */
export function parseCidrList(flag: string, value: string): string[] {
  const list = value
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
  const bad = list.find((c) => parseCidr(c) === undefined);
  if (bad !== undefined) throw new ConfigError(`--${flag}: ${JSON.stringify(bad)} is not a CIDR such as 169.254.20.10/32 or fd00::/8`);
  return list;
}

/** Checks cross-flag rules and freezes the result. */
export function finalizeConfig(config: Config): Readonly<Config> {
  const ports = [config.httpPort, config.httpsPort, config.healthzPort, config.statusPort, ...(config.defaultServerPort === undefined ? [] : [config.defaultServerPort])];
  if (new Set(ports).size !== ports.length) {
    throw new ConfigError(`--http-port, --https-port, --healthz-port, --status-port and --default-server-port must differ, got ${ports.join(', ')}`);
  }
  if (config.manifests !== undefined && config.kubeconfig !== undefined) {
    throw new ConfigError('--manifests and --kubeconfig are two different sources: give one of them');
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9./-]*$/.test(config.annotationsPrefix)) {
    throw new ConfigError(`--annotations-prefix: not a valid annotation prefix: ${JSON.stringify(config.annotationsPrefix)}`);
  }
  if (config.configmap !== undefined) parseObjectRef('configmap', config.configmap);
  if (!/^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(config.electionId) || config.electionId.length > 253) {
    throw new ConfigError(`--election-id: not a valid Lease name: ${JSON.stringify(config.electionId)}`);
  }
  if (config.validatingWebhook && (!config.validatingWebhookCertificate || !config.validatingWebhookKey)) {
    throw new ConfigError('--validating-webhook needs --validating-webhook-certificate and --validating-webhook-key (PEM files)');
  }
  // nginx listens on a unix socket in the work directory (the 503 server, docs/adr/0001); sun_path holds 107 bytes.
  if (Buffer.byteLength(config.workDir.replace(/\/$/, '')) > 80) {
    throw new ConfigError(`--work-dir: at most 80 bytes long (nginx keeps a unix socket in it), got ${JSON.stringify(config.workDir)}`);
  }
  return Object.freeze({ ...config });
}

/** Validates --annotations-risk-level. */
export function parseRiskLevel(value: string): RiskLevel {
  const hit = RISK_ORDER.find((r) => r.toLowerCase() === value.toLowerCase());
  if (!hit) throw new ConfigError(`--annotations-risk-level: expected one of ${RISK_ORDER.join(', ')}, got ${JSON.stringify(value)}`);
  return hit;
}
