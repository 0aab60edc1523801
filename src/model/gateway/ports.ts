// Where a Gateway listener's port is served. A Gateway's ports are the ports of Portico's Service; nginx listens on
// local ports: HTTP 80 and HTTPS 443 are --http-port and --https-port, as for Ingresses; any other listener port is
// served only when --gateway-port-map lists it, on the local port it names (unlisted()). An entry of the map for one
// Gateway (`namespace/name:PORT=LOCAL`) wins over the generic one, 80 and 443 included: that Gateway is then served on
// local ports of its own, behind a Service of its own (docs/adr/0030-gateways-on-their-own-local-ports.md).

export interface PortOptions {
  /** --http-port and --https-port. */
  readonly httpPort: number;
  readonly httpsPort: number;
  /** --gateway-port-map, its generic entries: listener port → local port. */
  readonly portMap: ReadonlyMap<number, number>;
  /** --gateway-port-map, its per-Gateway entries: `namespace/name` → listener port → local port. */
  readonly gatewayMaps?: ReadonlyMap<string, ReadonlyMap<number, number>>;
  /** --gateway-h2c-ports: local ports whose plain listens speak HTTP/2 with prior knowledge only (model/gateway/h2c.ts). */
  readonly h2c?: readonly number[];
}

/** The local port the operator gave this Gateway's listener port, if any (a per-Gateway entry of --gateway-port-map). */
function ownPort(o: PortOptions, port: number, gateway: string): number | undefined {
  return o.gatewayMaps?.get(gateway)?.get(port);
}

/**
 * A TLS listener on 443 is served through --https-port's SNI front, unless an entry of --gateway-port-map (for every
 * Gateway, or for this one) gives 443 a local port of its own.
 */
export function onSniFront(o: PortOptions, port: number, gateway: string): boolean {
  return port === 443 && !o.portMap.has(443) && ownPort(o, 443, gateway) === undefined;
}

/** True for HTTP 80 and HTTPS 443 served on --http-port and --https-port: no per-Gateway entry moves them. */
export function trafficPort(o: PortOptions, protocol: string, port: number, gateway: string): boolean {
  return ((port === 80 && protocol === 'HTTP') || (port === 443 && protocol === 'HTTPS')) && ownPort(o, port, gateway) === undefined;
}

/**
 * Why a listener port is not opened, or undefined when it is: HTTP 80 and HTTPS 443 always are; any other port only
 * when --gateway-port-map lists it (for every Gateway, or for this one). A Gateway's owner may not make nginx bind a
 * port the operator did not expose (a port another process holds, or below 1024 for an unprivileged nginx, would fail
 * the whole reload). `gateway`: the listener's Gateway, `namespace/name`.
 */
export function unlisted(o: PortOptions, protocol: string, port: number, gateway: string): string | undefined {
  if ((port === 80 && protocol === 'HTTP') || (port === 443 && protocol === 'HTTPS') || o.portMap.has(port) || ownPort(o, port, gateway) !== undefined) return undefined;
  return `port ${String(port)} is not listed in --gateway-port-map: Portico opens no listener port but HTTP 80, HTTPS 443 and those the operator lists (add ${String(port)}=LOCAL_PORT)`;
}

/** The local port nginx listens on for a listener of `protocol` on `port` of Gateway `gateway` (`namespace/name`). */
export function localPort(o: PortOptions, protocol: string, port: number, gateway: string): number {
  const own = ownPort(o, port, gateway);
  if (own !== undefined) return own;
  if (port === 80 && protocol === 'HTTP') return o.httpPort;
  if (port === 443 && protocol === 'HTTPS') return o.httpsPort;
  return o.portMap.get(port) ?? port;
}

/** `namespace/name` of a Gateway reference: the key of its per-Gateway entries. */
export function gatewayKey(ref: { readonly namespace: string; readonly name: string }): string {
  return `${ref.namespace}/${ref.name}`;
}

/** nginx's own ports and no map: what a model built without flags (a test, a tool) assumes. */
export const DEFAULT_PORTS: PortOptions = { httpPort: 80, httpsPort: 443, portMap: new Map() };
