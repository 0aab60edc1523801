// The frozen runtime configuration: every flag's typed value, validated once.
import { ConfigError } from '../errors.js';
import { RISK_ORDER, type RiskLevel } from '../model/settings.js';

export type LoadBalance = 'round_robin' | 'ewma';

export interface Config {
  readonly mode: 'run' | 'render';
  readonly manifests: string | undefined;
  readonly kubeconfig: string | undefined;
  readonly apiserverHost: string | undefined;
  readonly watchNamespace: string | undefined;
  readonly watchNamespaceSelector: string | undefined;
  readonly configmap: string | undefined;
  readonly httpPort: number;
  readonly httpsPort: number;
  readonly healthzPort: number;
  readonly statusPort: number;
  readonly defaultServerPort: number;
  readonly listenAddress: string;
  readonly workDir: string;
  readonly luaDir: string;
  readonly nginxBinary: string;
  readonly controllerClass: string;
  readonly ingressClass: string;
  readonly watchIngressWithoutClass: boolean;
  readonly defaultBackendService: { namespace: string; name: string } | undefined;
  readonly defaultSslCertificate: { namespace: string; name: string } | undefined;
  readonly annotationsPrefix: string;
  /** Annotations rated above this are refused (ingress-nginx 1.12+ default: High). */
  readonly annotationsRiskLevel: RiskLevel;
  readonly allowSnippetAnnotations: boolean;
  readonly defaultLoadBalance: LoadBalance;
  readonly syncPeriodMs: number;
  readonly logLevel: string;
}

/** Splits `namespace/name`, the form every ingress-nginx object-reference flag takes. */
export function parseObjectRef(flag: string, value: string): { namespace: string; name: string } {
  const m = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?)\/([a-z0-9]([-a-z0-9.]*[a-z0-9])?)$/.exec(value);
  if (!m?.[1] || !m[3]) {
    throw new ConfigError(`--${flag}: expected namespace/name, got ${JSON.stringify(value)}`);
  }
  return { namespace: m[1], name: m[3] };
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

/** Checks cross-flag rules and freezes the result. */
export function finalizeConfig(config: Config): Readonly<Config> {
  const ports = [config.httpPort, config.httpsPort, config.healthzPort, config.statusPort, config.defaultServerPort];
  if (new Set(ports).size !== ports.length) {
    throw new ConfigError(
      `--http-port, --https-port, --healthz-port, --status-port and --default-server-port must differ, got ${ports.join(', ')}`,
    );
  }
  if (config.manifests !== undefined && config.kubeconfig !== undefined) {
    throw new ConfigError('--manifests and --kubeconfig are two different sources: give one of them');
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9./-]*$/.test(config.annotationsPrefix)) {
    throw new ConfigError(`--annotations-prefix: not a valid annotation prefix: ${JSON.stringify(config.annotationsPrefix)}`);
  }
  if (config.configmap !== undefined) parseObjectRef('configmap', config.configmap);
  return Object.freeze({ ...config });
}

/** Validates --annotations-risk-level. */
export function parseRiskLevel(value: string): RiskLevel {
  const hit = RISK_ORDER.find((r) => r.toLowerCase() === value.toLowerCase());
  if (!hit) throw new ConfigError(`--annotations-risk-level: expected one of ${RISK_ORDER.join(', ')}, got ${JSON.stringify(value)}`);
  return hit;
}
