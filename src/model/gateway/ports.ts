// Where a Gateway listener's port is served. A Gateway's ports are the ports of Portico's Service; nginx listens on
// local ports: HTTP 80 and HTTPS 443 are --http-port and --https-port, as for Ingresses; any other listener port is
// served only when --gateway-port-map lists it, on the local port it names (unlisted()).

export interface PortOptions {
  /** --http-port and --https-port. */
  readonly httpPort: number;
  readonly httpsPort: number;
  /** --gateway-port-map. */
  readonly portMap: ReadonlyMap<number, number>;
  /** --gateway-h2c-ports: local ports whose plain listens speak HTTP/2 with prior knowledge only (model/gateway/h2c.ts). */
  readonly h2c?: readonly number[];
}

/**
 * Why a listener port is not opened, or undefined when it is: HTTP 80 and HTTPS 443 always are; any other port only
 * when --gateway-port-map lists it. A Gateway's owner may not make nginx bind a port the operator did not expose (a
 * port another process holds, or below 1024 for an unprivileged nginx, would fail the whole reload).
 */
export function unlisted(o: PortOptions, protocol: string, port: number): string | undefined {
  if ((port === 80 && protocol === 'HTTP') || (port === 443 && protocol === 'HTTPS') || o.portMap.has(port)) return undefined;
  return `port ${String(port)} is not listed in --gateway-port-map: Portico opens no listener port but HTTP 80, HTTPS 443 and those the operator lists (add ${String(port)}=LOCAL_PORT)`;
}

/** The local port nginx listens on for a listener of `protocol` on `port`. */
export function localPort(o: PortOptions, protocol: string, port: number): number {
  if (port === 80 && protocol === 'HTTP') return o.httpPort;
  if (port === 443 && protocol === 'HTTPS') return o.httpsPort;
  return o.portMap.get(port) ?? port;
}

/** nginx's own ports and no map: what a model built without flags (a test, a tool) assumes. */
export const DEFAULT_PORTS: PortOptions = { httpPort: 80, httpsPort: 443, portMap: new Map() };
