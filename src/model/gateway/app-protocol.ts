// A backendRef's protocol from its Service port's appProtocol (HTTPRouteBackendProtocolWebSocket/H2C): which ones an
// HTTPRoute can be served to, and why not the others. GRPCRoute backends speak h2c through grpc_pass already.
import type { Service } from 'kubernetes-types/core/v1.js';

/** The appProtocol of the Service port `port`, or undefined (none given, or no such port). */
export function appProtocolOf(service: Service | undefined, port: number | undefined): string | undefined {
  return service?.spec?.ports?.find((p) => p.port === port)?.appProtocol;
}

/**
 * Why an HTTPRoute cannot send its requests to a Service port of this appProtocol, or undefined. `kubernetes.io/ws`
 * (WebSocket) is served: nginx passes the Upgrade on HTTP/1.1. `kubernetes.io/h2c` is not: nginx 1.22's proxy module
 * speaks HTTP/1.1 to backends only (grpc_pass speaks h2c but answers gRPC framing only), docs/adr/0026.
 */
export function appProtocolRefusal(kind: string, appProtocol: string | undefined): string | undefined {
  if (kind !== 'HTTPRoute' || appProtocol !== 'kubernetes.io/h2c') return undefined;
  return 'UnsupportedProtocol: the Service port has appProtocol kubernetes.io/h2c, and nginx 1.22 proxies HTTP/1.1 to backends only';
}
