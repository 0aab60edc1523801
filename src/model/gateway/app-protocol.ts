// A backendRef's protocol from its Service port's appProtocol (HTTPRouteBackendProtocolWebSocket/H2C): which ones an
// HTTPRoute can be served to, and how. `kubernetes.io/ws` passes the Upgrade over HTTP/1.1 (proxy_pass);
// `kubernetes.io/h2c` is reached with grpc_pass, which speaks HTTP/2 cleartext to any backend and passes plain HTTP/2
// requests and responses (measured on nginx 1.22), as GRPCRoute backends are reached (docs/adr/0029).
import type { Service } from 'kubernetes-types/core/v1.js';
import { byName } from '../lookup.js';
import type { GatewayAction } from './route-types.js';
import type { HTTPBackendRef } from './api.js';

const H2C = 'kubernetes.io/h2c';

/** The appProtocol of the Service port `port`, or undefined (none given, or no such port). */
function appProtocolOf(service: Service | undefined, port: number | undefined): string | undefined {
  return service?.spec?.ports?.find((p) => p.port === port)?.appProtocol;
}

/**
 * How an HTTPRoute rule reaches its backends: 'h2c' when every backendRef of weight > 0 names a Service port of
 * appProtocol kubernetes.io/h2c (grpc_pass), 'http' when none does (proxy_pass), else the reason the rule is refused:
 * nginx passes one location with one module, so one rule cannot split its requests between the two.
 */
export function ruleProtocol(services: readonly Service[], namespace: string, refs: readonly HTTPBackendRef[]): 'h2c' | 'http' | { readonly reason: string } {
  const live = refs.filter((b) => (b.weight ?? 1) !== 0 && (b.group ?? '') === '' && (b.kind ?? 'Service') === 'Service');
  const h2c = live.filter((b) => appProtocolOf(byName(services, b.namespace ?? namespace, b.name), b.port) === H2C);
  if (h2c.length === 0) return 'http';
  if (h2c.length === live.length) return 'h2c';
  return { reason: `UnsupportedProtocol: the backendRefs mix Service ports of appProtocol ${H2C} (HTTP/2 cleartext) and HTTP/1.1 ones; one rule reaches its backends over one protocol` };
}

/** Why an h2c rule's action is not served (grpc_pass has no HTTP/1.1 mirror, retry or deadline path here), or undefined. */
export function h2cUnserved(a: GatewayAction): string | undefined {
  const parts = [a.mirror !== undefined ? 'RequestMirror' : '', a.timeoutMs !== undefined || a.deadlineMs !== undefined ? 'timeouts' : '', a.retry ? 'retry' : ''].filter((x) => x !== '');
  return parts.length === 0 ? undefined : `UnsupportedProtocol: ${parts.join(', ')} not served to Service ports of appProtocol ${H2C} (reached with grpc_pass)`;
}
