// Where a Gateway listener's port is served. A Gateway's ports are the ports of Portico's Service; nginx listens on
// local ports: HTTP 80 and HTTPS 443 are --http-port and --https-port, as for Ingresses; any other listener port is
// served on the local port --gateway-port-map names for it, else on that port number itself.

export interface PortOptions {
  /** --http-port and --https-port. */
  readonly httpPort: number;
  readonly httpsPort: number;
  /** --gateway-port-map. */
  readonly portMap: ReadonlyMap<number, number>;
}

/** The local port nginx listens on for a listener of `protocol` on `port`. */
export function localPort(o: PortOptions, protocol: string, port: number): number {
  if (port === 80 && protocol === 'HTTP') return o.httpPort;
  if (port === 443 && protocol === 'HTTPS') return o.httpsPort;
  return o.portMap.get(port) ?? port;
}

/** nginx's own ports and no map: what a model built without flags (a test, a tool) assumes. */
export const DEFAULT_PORTS: PortOptions = { httpPort: 80, httpsPort: 443, portMap: new Map() };
