// nginx.conf lines of the misdirected-request check (model/gateway/misdirected.ts, docs/adr/0031): http-level maps
// from the SNI name and from $host to the id of the listener serving each, and in every server three rewrite-module
// lines that answer 421 when both differ. A request whose SNI name equals its Host (or without SNI: plain HTTP, an
// IP address) costs one map lookup of an empty key and one string compare; no Lua runs on any request.
import type { MisdirectTable } from '../model/gateway/misdirected.js';
import { int, sniHost } from './escape.js';

const I = '    ';

/** A hostnames map from `source` to listener ids, Ingress hosts to '-' (never misdirected). */
function idMap(t: MisdirectTable, source: string, variable: string): string[] {
  return [
    `${I}map ${source} ${variable} {`,
    `${I}    hostnames;`,
    `${I}    default ${t.catchAll ? 'any' : '-'};`,
    ...t.listeners.map((l) => `${I}    ${sniHost(l.host)} ${l.id};`),
    ...t.exempt.map((h) => `${I}    ${sniHost(h)} -;`),
    `${I}}`,
  ];
}

/** The http-level maps; none without a table. */
export function misdirectHttpLines(t: MisdirectTable | undefined): string[] {
  if (t === undefined) return [];
  return [
    // the SNI name, or $host when there is none (plain HTTP, a client that sent none): then nothing differs
    `${I}map $ssl_server_name $portico_sni_or_host { "" $host; default $ssl_server_name; }`,
    ...idMap(t, '$ssl_server_name', '$portico_sni_listener'),
    ...idMap(t, '$host', '$portico_host_listener'),
    // ids are this module's own words (l0, any; '-' matches no \w): 1 on the HTTPS port when they differ. An empty
    // $server_port is the HTTPS server behind --enable-ssl-passthrough's stream front (a unix socket: render/stream.ts).
    `${I}map "$server_port:$portico_sni_listener:$portico_host_listener" $portico_misdirected {`,
    `${I}    default "";`,
    `${I}    "~^(?:${int(t.port)})?:(\\w+):(?!\\1$)\\w+$" 1;`,
    `${I}}`,
  ];
}

/** The server-level lines (every traffic server) when the model has a table (`on`). */
export function misdirectServerLines(on: boolean): string[] {
  if (!on) return [];
  return ['        set $portico_421 "";', '        if ($portico_sni_or_host != $host) { set $portico_421 $portico_misdirected; }', '        if ($portico_421) { return 421; }'];
}
