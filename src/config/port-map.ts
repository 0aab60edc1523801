// --gateway-port-map: where Gateway listener ports are served (model/gateway/ports.ts). Generic entries
// `LISTENER_PORT=LOCAL_PORT` hold for every Gateway; per-Gateway entries `NAMESPACE/NAME:LISTENER_PORT=LOCAL_PORT`
// hold for that Gateway only and win over the generic ones, 80 and 443 included (docs/adr/0030).
import { ConfigError } from '../errors.js';
import type { PortOptions } from '../model/gateway/ports.js';
import { parsePort } from './values.js';

/** The two parts of the flag's value, as the model's port options carry them. */
type GatewayPortMap = Pick<PortOptions, 'portMap'> & { readonly gatewayMaps: ReadonlyMap<string, ReadonlyMap<number, number>> };

const LABEL = '[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?';
/** A namespace (a DNS label) and a Gateway name (a DNS subdomain), as Kubernetes names them. */
const GATEWAY = new RegExp(`^${LABEL}/${LABEL}(\\.${LABEL})*$`);

/** One entry: its Gateway (`namespace/name`, or undefined for every Gateway), listener port and local port. */
function entry(flag: string, item: string): { gateway?: string; listener: number; local: number } {
  const bad = (why: string): ConfigError =>
    new ConfigError(`--${flag}: entry ${JSON.stringify(item)} ${why}; expected [NAMESPACE/NAME:]LISTENER_PORT=LOCAL_PORT[,...], for example 8080=18080 or team-a/web:80=8081`);
  const [left, to, ...rest] = item.split('=');
  if (left === undefined || to === undefined || rest.length > 0) throw bad('is not one LISTENER_PORT=LOCAL_PORT');
  const colon = left.lastIndexOf(':');
  const gateway = colon < 0 ? undefined : left.slice(0, colon);
  if (gateway !== undefined && (gateway.length > 253 + 64 || !GATEWAY.test(gateway))) throw bad(`names ${JSON.stringify(gateway)}, not a Gateway NAMESPACE/NAME`);
  const port = (text: string, what: string): number => {
    try {
      return parsePort(flag, text);
    } catch {
      throw bad(`has ${what} ${JSON.stringify(text)}, not a port number 1-65535`);
    }
  };
  return { ...(gateway === undefined ? {} : { gateway }), listener: port(left.slice(colon + 1), 'listener port'), local: port(to, 'local port') };
}

/** Parses the flag's value; a malformed or repeated entry is a ConfigError naming the flag and the entry. */
export function parseGatewayPortMap(flag: string, value: string): GatewayPortMap {
  const portMap = new Map<number, number>();
  const gatewayMaps = new Map<string, Map<number, number>>();
  for (const item of value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')) {
    const e = entry(flag, item);
    const into = e.gateway === undefined ? portMap : (gatewayMaps.get(e.gateway) ?? new Map<number, number>());
    if (e.gateway !== undefined) gatewayMaps.set(e.gateway, into);
    if (into.has(e.listener)) {
      throw new ConfigError(`--${flag}: entry ${JSON.stringify(item)} maps listener port ${String(e.listener)}${e.gateway === undefined ? '' : ` of Gateway ${e.gateway}`} a second time`);
    }
    into.set(e.listener, e.local);
  }
  return { portMap, gatewayMaps };
}
