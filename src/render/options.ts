// What renderNginxConf is told besides the model: the controller's flags and files, the ConfigMap's settings, the memo.
import { GLOBAL_DEFAULTS, NO_HEADERS, type GlobalSettings, type ResolvedHeaders } from '../model/settings.js';
import type { RenderMemo } from './memo.js';
import type { SettingsContext } from './settings.js';
import type { L4JsOptions } from './stream-l4-js.js';

export interface RenderOptions {
  readonly workDir: string;
  readonly luaDir: string;
  readonly httpPort: number;
  readonly httpsPort: number;
  /** --gateway-h2c-ports: local ports whose plain listens take `http2` (HTTP/2 with prior knowledge only, docs/adr/0029). */
  readonly h2cPorts?: readonly number[];
  readonly statusPort: number;
  readonly defaultServerPort: number | undefined;
  readonly listenAddress: string;
  /** Worker user and group (docs/adr/0009); undefined: no `user` directive (Portico is not root). */
  readonly user: readonly [string, string] | undefined;
  readonly workerProcesses: number | 'auto';
  /** The hard limit of open files nginx runs under (nginx/launch.ts); undefined: unknown, no worker_rlimit_nofile by default. */
  readonly openFilesLimit?: number;
  /** The global ConfigMap's settings (default: ingress-nginx's defaults). */
  readonly global?: GlobalSettings;
  /** Headers of the ConfigMaps named by add-headers and proxy-set-headers. */
  readonly headers?: ResolvedHeaders;
  /** Upstream of --default-backend-service, for custom error pages. */
  readonly defaultUpstream?: string;
  /** Name servers for auth-url host names (the controller reads /etc/resolv.conf). */
  readonly resolvers?: readonly string[];
  /** Per-request metrics in the log phase (render/metrics.ts); off when absent. */
  readonly metrics?: boolean;
  /** --metrics-per-undefined-host: requests for hosts no Ingress defines are counted under their host (render/metrics.ts). */
  readonly metricsUndefinedHosts?: boolean;
  /** Set by renderNginxConf: something reads $namespace, $service_name... (render/ingress-vars.ts). */
  readonly ingressVars?: boolean;
  /** --enable-dynamic-routes: hosts in the dynamic set go to the Lua route table, not server blocks (docs/adr/0014). */
  readonly dynamicRoutes?: boolean;
  /** Server blocks kept between renders (render/memo.ts); absent: every block is rendered. */
  readonly memo?: RenderMemo;
  /**
   * The access log when the ConfigMap names no access-log-path; absent: /dev/stdout, which is Portico's stdout (the
   * master inherits it), as ingress-nginx's /var/log/nginx/access.log links to /dev/stdout.
   */
  readonly defaultAccessLog?: string;
  /** nginx's stream njs module is installed: Gateway TCP/UDP peers come from tables (render/stream-l4-js.ts, docs/adr/0041). */
  readonly l4Js?: L4JsOptions;
}

/** The settings context of `o`: the ConfigMap's settings and headers (defaults when absent), the default backend. */
export function ctxOf(o: RenderOptions): SettingsContext {
  return { global: o.global ?? GLOBAL_DEFAULTS, headers: o.headers ?? NO_HEADERS, defaultUpstream: o.defaultUpstream };
}
