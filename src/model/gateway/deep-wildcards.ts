// Gateway API wildcards of more than one label: `*.example.com` on a listener or route matches `a.example.com` and
// `a.b.example.com` alike, where an Ingress wildcard (and the model's `*.` servers, whose server_name is a one-label
// regex) takes exactly one. The one-label names reach the `*.example.com` server as before; the deeper ones reach
// another server (an exact host, a narrower wildcard, or the catch-all `_`), whose route table gets the wildcard's
// HTTPRoute matches as a tier of their own, guarded by the host suffix (portico.gateway checks `$host`).
import type { GatewayEntry } from './route-types.js';

/** The wildcard hosts of HTTPRoute entries, longest suffix first (the specification: the longest matching hostname wins). */
export function gatewayWildcards(entries: readonly GatewayEntry[]): string[] {
  return [...new Set(entries.map((e) => e.host).filter((h) => h.startsWith('*.')))].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
}

/**
 * The wildcards of `wildcards` that match the names of server `host` with two or more labels: for the catch-all
 * every one; for `x.a.example.com` and `*.a.example.com`, `*.example.com` (not `*.a.example.com`, the host's own
 * one-label tier).
 */
function deeperWildcards(host: string, wildcards: readonly string[]): string[] {
  if (host === '_') return [...wildcards];
  if (!host.includes('.')) return [];
  const base = host.startsWith('*.') ? host.slice(1) : host.slice(host.indexOf('.'));
  return wildcards.filter((w) => w !== host && base !== w.slice(1) && base.endsWith(w.slice(1)));
}

/**
 * Per deeper wildcard of a server, its entries that `own` admits, each match carrying the wildcard's suffix as a
 * condition: Lua takes it only for a request host under that suffix (the catch-all serves every other name too).
 */
export function deepTiers(host: string, wildcards: readonly string[], entries: readonly GatewayEntry[], own: (e: GatewayEntry) => boolean): GatewayEntry[][] {
  return deeperWildcards(host, wildcards)
    .map((w) => entries.filter((e) => e.host === w && own(e)).map((e) => ({ ...e, match: { ...e.match, hostSuffix: w.slice(1) } })))
    .filter((tier) => tier.length > 0);
}
