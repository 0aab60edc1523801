// Misdirected requests (Gateway API, GatewayHTTPSListenerDetectMisdirectedRequests): on the HTTPS port, a request whose
// Host names another listener than the one the TLS handshake's SNI name chose is answered 421, so that the client
// opens a connection of its own for that host. The listener of a name is the most specific HTTPS listener hostname
// matching it (exact, then the longest wildcard, then a listener without hostname), across Portico's Gateways, which
// share the port. Hosts an Ingress names are never answered 421 (ingress-nginx serves by Host): as SNI name or Host
// they opt the request out. render/misdirected.ts turns this into nginx maps; docs/adr/0031.
import type { ServedListener } from './attach.js';
import { localPort, type PortOptions } from './ports.js';
import type { PathRule } from '../routes.js';

/** A name nginx's hostnames map takes as a key (render/escape.ts sniHost): others are left out, never rendered. */
const MAP_KEY = /^(\*\.)?[a-z0-9][a-z0-9.-]*$/;

/** The hosts of the model's path tables that some Ingress path is on (not only Gateway API routes). */
export function ingressHostsOf(rules: ReadonlyMap<string, ReadonlyMap<string, PathRule>>): string[] {
  const routeKinds = new Set(['HTTPRoute', 'GRPCRoute']);
  return [...rules].filter(([, table]) => [...table.values()].some((r) => r.target.kind !== 'upstream' || !routeKinds.has(r.target.ingress.kind))).map(([h]) => h);
}

/** What nginx needs to tell the listener of the SNI name from the Host's. */
export interface MisdirectTable {
  /** The local port the check applies on: --https-port, where the Gateways' port 443 HTTPS listeners are served. */
  readonly port: number;
  /** Each listener hostname (exact or `*.` wildcard, lower case) with its id (`l0`, `l1`, ...). */
  readonly listeners: readonly { readonly host: string; readonly id: string }[];
  /** Some listener has no hostname: a name no other listener matches is its (id `any`); else no listener's (`-`). */
  readonly catchAll: boolean;
  /** Hosts an Ingress names (exact or `*.`): never answered 421, as SNI name or as Host. */
  readonly exempt: readonly string[];
}

/**
 * The table for the served HTTPS listeners on --https-port, or undefined when a request there cannot name two
 * listeners (fewer than two distinct listener hostnames, counting none): then nginx.conf gets nothing.
 */
export function misdirectTable(served: readonly ServedListener[], ingressHosts: readonly string[], ports: PortOptions): MisdirectTable | undefined {
  const https = served.filter((s) => s.listener.protocol === 'HTTPS' && localPort(ports, 'HTTPS', s.listener.port) === ports.httpsPort);
  const catchAll = https.some((s) => s.listener.hostname === undefined);
  const keyed = (h: string): boolean => MAP_KEY.test(h) && !h.includes('..');
  const exempt = [...new Set(ingressHosts.map((h) => h.toLowerCase()).filter(keyed))].sort();
  const skip = new Set(exempt);
  const hosts = [...new Set(https.flatMap((s) => (s.listener.hostname === undefined ? [] : [s.listener.hostname.toLowerCase()])))].filter(keyed).sort();
  if (hosts.length + (catchAll ? 1 : 0) < 2) return undefined;
  return { port: ports.httpsPort, listeners: hosts.filter((h) => !skip.has(h)).map((host, i) => ({ host, id: `l${i}` })), catchAll, exempt };
}

/** `*.example.com` matches a name of one or more labels more. */
function matches(pattern: string, name: string): boolean {
  return pattern.startsWith('*.') ? name.length > pattern.length - 1 && name.endsWith(pattern.slice(1)) : pattern === name;
}

/** The id of the listener serving `name` ('-': none, or an Ingress host): what nginx's hostnames maps answer. */
export function listenerOf(t: MisdirectTable, name: string): string {
  const n = name.toLowerCase();
  const most = (list: readonly string[]): string | undefined => list.filter((p) => matches(p, n)).sort((a, b) => (a.startsWith('*.') ? 1 : 0) - (b.startsWith('*.') ? 1 : 0) || b.length - a.length)[0];
  const exempt = most(t.exempt);
  const own = most(t.listeners.map((l) => l.host));
  // nginx's hostnames map: an exact name before wildcards, then the longest wildcard, whichever list it came from
  const winner = most([exempt, own].filter((x): x is string => x !== undefined));
  if (winner === undefined) return t.catchAll ? 'any' : '-';
  if (winner === exempt) return '-';
  return t.listeners.find((l) => l.host === winner)?.id ?? '-';
}

/** 421 or not, as nginx decides it: an SNI name, a Host of another listener, neither side '-'. */
export function misdirected(t: MisdirectTable, sni: string, host: string): boolean {
  if (sni === '' || sni.toLowerCase() === host.toLowerCase()) return false;
  const a = listenerOf(t, sni);
  const b = listenerOf(t, host);
  return a !== '-' && b !== '-' && a !== b;
}
