// The frozen runtime configuration: every flag's typed value (the tables of src/config/flags/), validated once.
import { ConfigError } from '../errors.js';
import type { FlagValues } from './flag.js';
import { CLUSTER_FLAGS } from './flags/cluster.js';
import { LISTEN_FLAGS } from './flags/listen.js';
import { NGINX_FLAGS } from './flags/nginx.js';
import { STATUS_FLAGS } from './flags/status.js';
import { TENANCY_FLAGS } from './flags/tenancy.js';

/** Every flag that fills a Config field, keyed by the field, in --help's order. */
export const CONFIG_FLAGS = { ...CLUSTER_FLAGS, ...LISTEN_FLAGS, ...TENANCY_FLAGS, ...NGINX_FLAGS, ...STATUS_FLAGS };

/** One field per entry of CONFIG_FLAGS, typed by its parser; then what comes from elsewhere than a flag. */
export interface Config extends FlagValues<typeof CONFIG_FLAGS> {
  readonly mode: 'run' | 'render' | 'migrate-check';
  /** Portico's Lua modules, beside its code. */
  readonly luaDir: string;
  /** POD_NAME / POD_NAMESPACE: the Lease identity, where the Lease lives, the object RELOAD Events are about. */
  readonly podName: string | undefined;
  readonly podNamespace: string | undefined;
}

/** Checks the rules between flags and freezes the result. */
export function finalizeConfig(config: Config): Readonly<Config> {
  const ports = [config.httpPort, config.httpsPort, config.healthzPort, config.statusPort, ...(config.defaultServerPort === undefined ? [] : [config.defaultServerPort])];
  if (new Set(ports).size !== ports.length) {
    throw new ConfigError(`--http-port, --https-port, --healthz-port, --status-port and --default-server-port must differ, got ${ports.join(', ')}`);
  }
  if (config.manifests !== undefined && config.kubeconfig !== undefined) {
    throw new ConfigError('--manifests and --kubeconfig are two different sources: give one of them');
  }
  if (config.validatingWebhook && (!config.validatingWebhookCertificate || !config.validatingWebhookKey)) {
    throw new ConfigError('--validating-webhook needs --validating-webhook-certificate and --validating-webhook-key (PEM files)');
  }
  const mapped = new Set([...config.gatewayPortMap.portMap.values(), ...[...config.gatewayPortMap.gatewayMaps.values()].flatMap((m) => [...m.values()])]);
  const h2cOff = config.gatewayH2cPorts.filter((p) => p !== config.httpPort && !mapped.has(p));
  if (h2cOff.length > 0) {
    throw new ConfigError(
      `--gateway-h2c-ports: ${h2cOff.join(', ')} is neither --http-port (${String(config.httpPort)}) nor a LOCAL_PORT of --gateway-port-map; name the local ports HTTP listeners are served on`,
    );
  }
  return Object.freeze({ ...config });
}
