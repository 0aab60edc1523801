// The stream section's Gateway TCP/UDP servers with njs (docs/adr/0041): each server reads its peer from the njs
// variable `$portico_l4_peer`, which picks an endpoint from the listener's peers table in the work directory, so
// endpoint and weight changes rewrite that table and never nginx.conf. Without the module: static upstreams.
import type { GatewayStreamServer } from '../model/gateway/l4-routes.js';
import { filePath, int } from './escape.js';

/** Where nginx's stream njs module and Portico's script are (detected once at start: nginx/stream-js.ts). */
export interface L4JsOptions {
  /** The module file, for `load_module` (Debian's libnginx-mod-stream-js). */
  readonly module: string;
  /** Portico's njs script (njs/portico_l4.js). */
  readonly script: string;
  /** The folder of the peers tables (the work directory's `l4`). */
  readonly tableDir: string;
}

/** The upstream that names no live server: nginx closes the connection at once (the script's answer for "no peer"). */
const L4_NONE = 'portico_l4_none';

/** The peers table's file name of a listener's local port: unique per protocol and port, from no tenant value. */
function l4TableName(protocol: 'tcp' | 'udp', port: number): string {
  return `${protocol}-${int(port)}.json`;
}

const used = (servers: readonly GatewayStreamServer[] | undefined, js: L4JsOptions | undefined): js is L4JsOptions => js !== undefined && (servers ?? []).length > 0;

/** `load_module` of the stream njs module, only when a Gateway TCP/UDP server uses it. */
export function l4JsModuleLines(servers: readonly GatewayStreamServer[] | undefined, js: L4JsOptions | undefined): string[] {
  return used(servers, js) ? [`load_module ${filePath(js.module)};`] : [];
}

/** The stream-level lines: the script, the variable and the upstream without a live server. */
export function l4JsStreamLines(servers: readonly GatewayStreamServer[] | undefined, js: L4JsOptions | undefined): string[] {
  if (!used(servers, js)) return [];
  return [`    js_import portico_l4 from ${filePath(js.script)};`, '    js_set $portico_l4_peer portico_l4.peer;', `    upstream ${L4_NONE} { server 127.0.0.1:1 down; }`];
}

/** A server's proxy lines: its table (a file path Portico made) and the variable that reads it. */
export function l4JsProxyLines(s: GatewayStreamServer, js: L4JsOptions): string[] {
  return [`        set $portico_l4_table ${filePath(`${js.tableDir.replace(/\/$/, '')}/${l4TableName(s.protocol, s.port)}`)};`, '        proxy_pass $portico_l4_peer;'];
}

/** An endpoint as nginx's proxy_pass takes it, or undefined for anything that is not an IP address and a port. */
function peerAddress(address: string, port: number): string | undefined {
  if (!Number.isInteger(port) || port < 1 || port > 65535) return undefined;
  if (/^[0-9]{1,3}(\.[0-9]{1,3}){3}$/.test(address)) return `${address}:${String(port)}`;
  return /^[0-9A-Fa-f:.]{2,45}$/.test(address) && address.includes(':') ? `[${address}]:${String(port)}` : undefined;
}

/**
 * The peers table of each Gateway TCP/UDP server, file name → JSON text: the listener, the route, and the backends
 * with their weight per endpoint (l4-routes.ts) and endpoints as `IP:PORT`. Data for njs's JSON.parse, never code;
 * names are JSON strings, addresses are checked here and again by the script.
 */
export function l4PeerTables(servers: readonly GatewayStreamServer[] | undefined): Map<string, string> {
  const out = new Map<string, string>();
  for (const s of servers ?? []) {
    const backends = s.backends.map((b) => ({
      service: `${b.service}:${String(b.servicePort)}`,
      weight: b.weight,
      endpoints: b.endpoints.map((e) => peerAddress(e.address, e.port)).filter((a): a is string => a !== undefined),
    }));
    const table = { listener: `${s.listener.gateway}/${s.listener.name}`, port: s.listener.port, route: `${s.kind} ${s.route}`, backends };
    out.set(l4TableName(s.protocol, s.port), `${JSON.stringify(table)}\n`);
  }
  return out;
}
