// The target policy of a configuration: Portico's own ports and the operator's allowances (docs/adr/0007).
import type { Config } from '../config/config.js';
import type { TargetPolicy } from '../model/targets.js';

/**
 * Portico's own ports are every port it or its nginx listens on: traffic, healthz, the status endpoint, the default
 * server and the webhook. A loopback target on one of them is refused even when loopback or a CIDR is allowed.
 */
export function targetPolicy(config: Config): TargetPolicy {
  const own = [config.httpPort, config.httpsPort, config.healthzPort, config.statusPort, config.defaultServerPort, config.validatingWebhook?.port];
  return Object.freeze({
    ownPorts: [...new Set(own.filter((p): p is number => p !== undefined))].sort((a, b) => a - b),
    allowLoopback: config.allowLoopbackUpstreams,
    allowCidrs: config.allowUpstreamCidrs,
  });
}
