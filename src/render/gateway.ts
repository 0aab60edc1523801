// nginx.conf lines of the Gateway API route table (docs/adr/0011): the Lua hooks of a location with candidates, the
// internal mirror location and the upstream that applies rule timeouts. Only Portico's own names reach nginx.conf;
// every value of an HTTPRoute goes to Lua as data (render/lua-payload.ts gatewayPayload).
import type { GatewayCandidate, GatewayTable } from '../model/gateway/route-types.js';
import type { Location, Server } from '../model/types.js';
import { ident, quote } from './escape.js';
import { nextUpstreamWords } from '../model/gateway/retry.js';

const I = '            ';
/** Where a location sends its mirror copies: an internal location of each server that has one (under /_portico, reserved). */
const GATEWAY_MIRROR_URI = '/_portico_gateway_mirror';
const BALANCER_PASS = `${I}proxy_pass http://portico_balancer;`;
const GRPC_PASS = `${I}grpc_pass grpc://portico_balancer;`;

function listOf(table: GatewayTable | undefined, l: Pick<Location, 'gateway'>): readonly GatewayCandidate[] {
  return l.gateway !== undefined ? (table?.locations[l.gateway] ?? []) : [];
}

/** How many mirror subrequests the location's candidates need (0: none). */
function mirrorsOf(table: GatewayTable | undefined, l: Pick<Location, 'gateway'>): number {
  return Math.max(
    0,
    ...listOf(table, l).map((c) => {
      const a = table?.actions[c.action];
      return a?.mirror === undefined ? 0 : 1 + (a.moreMirrors?.length ?? 0);
    }),
  );
}

/** The n-th (0-based) mirror's variable and internal location: the first keeps the plain names. */
function mirrorNames(n: number): { readonly variable: string; readonly uri: string } {
  return n === 0 ? { variable: 'portico_gw_mirror', uri: GATEWAY_MIRROR_URI } : { variable: `portico_gw_mirror_${n + 1}`, uri: `${GATEWAY_MIRROR_URI}_${n + 1}` };
}

function uses(table: GatewayTable | undefined, l: Pick<Location, 'gateway'>, what: 'mirror' | 'timeoutMs' | 'deadlineMs' | 'retry' | 'cors' | 'responseHeaders' | 'grpc'): boolean {
  return listOf(table, l).some((c) => {
    const a = table?.actions[c.action];
    // A backendRef's ResponseHeaderModifier needs the same header filter as the rule's.
    return a?.[what] !== undefined || (what === 'responseHeaders' && a?.backends.some((b) => b.responseHeaders !== undefined) === true);
  });
}

/**
 * A location with candidates: `lines` is the location as it would be rendered for its own target (head, `set
 * $portico_backend`, the balancer hooks, the body, `}`). The balancer's rewrite hook gives way to portico.gateway's
 * (which calls it once a backend is chosen); a location whose target is the built-in 404 proxies too, since a
 * candidate may take its requests, and Lua answers the 404 when none does.
 */
export function gatewayLocation(l: Location, lines: readonly string[], table: GatewayTable | undefined, notFoundBody: readonly string[]): string[] {
  const key = l.gateway;
  if (key === undefined) return [...lines];
  const head = lines[0] ?? '';
  let body = lines.slice(1, -1).filter((x) => !x.includes('rewrite_by_lua_block { require("portico.balancer").rewrite() }'));
  if (l.target.kind === 'not-found') body = [...body.filter((x) => !x.startsWith(`${I}return 404 `)), ...notFoundBody];
  const timeouts = uses(table, l, 'timeoutMs') || uses(table, l, 'deadlineMs') || uses(table, l, 'retry');
  const retry = retryLines(table, l);
  if (retry.length > 0) body = body.filter((x) => !x.startsWith(`${I}proxy_next_upstream`));
  if (timeouts) body = body.map((x) => (x === BALANCER_PASS ? `${I}proxy_pass http://portico_gateway;` : x));
  // GRPCRoute candidates (model/gateway/table.ts keeps a location's candidates of one protocol): HTTP/2 to the backend.
  if (uses(table, l, 'grpc')) body = body.map((x) => (x === BALANCER_PASS ? GRPC_PASS : x));
  const mirrors = Array.from({ length: mirrorsOf(table, l) }, (_, n) => mirrorNames(n));
  // A Lua VM entry per response only where some candidate modifies response headers; never twice in one block.
  const filter =
    !(uses(table, l, 'responseHeaders') || uses(table, l, 'cors')) || body.some((x) => x.includes('header_filter_by_lua'))
      ? []
      : [`${I}header_filter_by_lua_block { require("portico.gateway").header_filter() }`];
  return [
    head,
    `${I}set $portico_gw ${quote(ident(key))};`,
    ...mirrors.flatMap((m) => [`${I}set $${ident(m.variable)} "";`, `${I}mirror ${quote(m.uri)};`]),
    ...retry,
    ...body.slice(0, 1),
    `${I}rewrite_by_lua_block { require("portico.gateway").rewrite() }`,
    ...filter,
    ...body.slice(1),
    '        }',
  ];
}

/** The internal location mirror copies go to (one per server that mirrors): Lua chose the endpoint; no copy when it chose none. */
export function gatewayServerLines(s: Server, table: GatewayTable | undefined): string[] {
  const n = Math.max(0, ...s.locations.map((l) => mirrorsOf(table, l)));
  return Array.from({ length: n }, (_, i) => mirrorNames(i)).flatMap((m) => [
    `        location = ${quote(m.uri)} {`,
    `${I}internal;`,
    `${I}if ($${ident(m.variable)} = "") { return 204; }`,
    `${I}proxy_pass http://$${ident(m.variable)}$request_uri;`,
    '        }',
  ]);
}

/**
 * A location some candidate of which retries (docs/adr/0026): nginx retries on the codes of that candidate (one code set
 * per location: model/gateway/table.ts), with no cap of its own (Lua grants each try); `$portico_gw_retry` tells Lua
 * that the other requests of the location get one try.
 */
function retryLines(table: GatewayTable | undefined, l: Pick<Location, 'gateway'>): string[] {
  const codes = listOf(table, l).flatMap((c) => table?.actions[c.action]?.retry?.codes ?? []);
  if (!uses(table, l, 'retry')) return [];
  const words = nextUpstreamWords([...new Set(codes)].sort((a, b) => a - b));
  return [`${I}set $portico_gw_retry 1;`, `${I}proxy_next_upstream ${words.join(' ')};`, `${I}proxy_next_upstream_tries 0;`, `${I}proxy_next_upstream_timeout 0;`];
}

/** The upstream whose balancer applies a rule's timeouts, deadline and retries before the usual pick (only when some rule has one). */
export function gatewayHttpLines(table: GatewayTable | undefined, keepalive: string): string[] {
  if (!table?.actions.some((a) => a.timeoutMs !== undefined || a.deadlineMs !== undefined || a.retry !== undefined)) return [];
  return ['    upstream portico_gateway {', '        server 0.0.0.1;', '        balancer_by_lua_block { require("portico.gateway").balance() }', keepalive, '    }'];
}
