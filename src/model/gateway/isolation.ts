// Listener isolation (Gateway API, GatewayHTTPListenerIsolation): a request is served only by the routes of the most
// specific listener of a Gateway whose hostname matches its host. nginx picks a server by host, not by listener, so a
// route attached through a less specific listener carries the hostnames of the more specific listeners of the same
// Gateway and port (GatewayMatch.exceptHosts), and Lua skips it for a request host one of them matches
// (lua/portico/isolation.lua). Ingress hosts and other Gateways are not listeners of that Gateway: they change nothing.
import type { Attachment, ServedListener } from './attach.js';

/** `*.example.com` matches `a.example.com` and `a.b.example.com`, never `example.com` (Gateway API wildcards). */
function underWildcard(wild: string, host: string): boolean {
  return host.length > wild.length - 1 && host.endsWith(wild.slice(1));
}

/** Is listener hostname `inner` strictly more specific than `outer` (undefined: no hostname, every host)? */
export function narrower(inner: string | undefined, outer: string | undefined): boolean {
  if (inner === undefined || inner === outer) return false;
  if (outer === undefined) return true;
  if (!outer.startsWith('*.')) return false;
  return underWildcard(outer, inner.startsWith('*.') ? inner.slice(2) : inner);
}

/** Can a request host match both `pattern` (a listener hostname) and `host` (a route's host there; '' every host)? */
function overlaps(pattern: string, host: string): boolean {
  if (host === '' || pattern === host) return true;
  const pw = pattern.startsWith('*.');
  const hw = host.startsWith('*.');
  if (pw && !hw) return underWildcard(pattern, host);
  if (hw && !pw) return underWildcard(host, pattern);
  return pw && hw && (pattern.endsWith(host.slice(1)) || host.endsWith(pattern.slice(1)));
}

/** The hostnames of the listeners of the same Gateway, port and protocol that are more specific than `s`'s. */
function moreSpecific(s: ServedListener, served: readonly ServedListener[]): string[] {
  const own = s.listener.hostname?.toLowerCase();
  return served
    .filter((o) => o !== s && o.gateway.namespace === s.gateway.namespace && o.gateway.name === s.gateway.name)
    .filter((o) => o.listener.port === s.listener.port && o.listener.protocol === s.listener.protocol)
    .map((o) => o.listener.hostname?.toLowerCase())
    .filter((h): h is string => h !== undefined && narrower(h, own));
}

/**
 * For each host a route serves, the listener hostnames a request host must not match for the route to take it: those
 * of the more specific listeners beside the one it attached through that can match the host. A host the route
 * reaches through several listeners keeps only the hostnames every one of them excludes (the less specific listener
 * never takes a request another of the route's listeners serves). Hosts with nothing to exclude are absent.
 */
export function isolationOf(via: readonly Attachment[], served: readonly ServedListener[]): ReadonlyMap<string, readonly string[]> {
  const per = new Map<string, Set<string>[]>();
  for (const a of via) {
    const specific = moreSpecific(a.listener, served);
    for (const h of a.hosts) {
      const list = per.get(h) ?? [];
      per.set(h, list);
      list.push(new Set(specific.filter((p) => overlaps(p, h))));
    }
  }
  const out = new Map<string, readonly string[]>();
  for (const [h, sets] of per) {
    const [first, ...rest] = sets;
    const kept = [...(first ?? [])].filter((p) => rest.every((s) => s.has(p))).sort();
    if (kept.length > 0) out.set(h, kept);
  }
  return out;
}
