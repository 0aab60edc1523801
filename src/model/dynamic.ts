// Which hosts are served by the Lua route table instead of server blocks (--enable-dynamic-routes, docs/adr/0014).
import type { LocationSettings } from './settings.js';
import type { Model, Server, Target } from './types.js';

/**
 * Location settings a dynamic route may carry: each is done per request by Lua or needs no location directive.
 * ssl-redirect and force-ssl-redirect become the route's redirect code; backend-protocol HTTP is the default pass;
 * preserve-trailing-slash only matters for redirects that the dynamic set does not hold. The balancing annotations
 * (load-balance, upstream-hash-by, affinity, session-cookie-*) and canaries live on the upstream and the route key,
 * not in these settings, so they are in the dynamic set as well. affinityCookie (which paths set the cookie, and its
 * path) is a location line in a rendered server; a dynamic route sets the cookie as its backend says (session-cookie-path, else /).
 */
const DYNAMIC_SETTINGS: ReadonlySet<keyof LocationSettings> = new Set<keyof LocationSettings>(['sslRedirect', 'forceSslRedirect', 'backendProtocol', 'preserveTrailingSlash', 'affinityCookie']);

/** True when `t` needs no directive of its own in a location: a 404, or an upstream whose settings are all dynamic. */
export function dynamicTarget(t: Target): boolean {
  if (t.kind === 'not-found') return true;
  const s = t.settings;
  if (s === undefined) return true;
  if (s.backendProtocol !== undefined && s.backendProtocol !== 'HTTP') return false;
  return Object.entries(s).every(([k, v]) => v === undefined || DYNAMIC_SETTINGS.has(k as keyof LocationSettings));
}

/** The wildcard a host would be served under ('a.b.c' → '*.b.c'); none for a wildcard or the catch-all. */
export function wildcardOf(host: string): string | undefined {
  if (host.startsWith('*.') || host === '_') return undefined;
  const dot = host.indexOf('.');
  return dot > 0 ? `*${host.slice(dot)}` : undefined;
}

/**
 * A server's own eligibility (dynamicHosts' first two rules): no server setting, no client-certificate auth, and every
 * location plain, not regex, not an HTTPRoute's, its target passing `accept`. The TLS hosts with client auth are
 * gathered on the first question.
 */
export function ownEligibility(model: Model, accept: (t: Target) => boolean = dynamicTarget): (s: Server) => boolean {
  let clientAuth: ReadonlySet<string> | undefined;
  return (s) => {
    if (s.settings !== undefined && Object.keys(s.settings).length > 0) return false;
    clientAuth ??= new Set(model.tls.servers.filter((t) => t.clientAuth !== undefined).map((t) => t.host));
    // A location with HTTPRoute candidates runs portico.gateway in its own block (docs/adr/0011): rendered, never dynamic.
    return !clientAuth.has(s.host) && s.locations.every((l) => l.match !== 'regex' && l.gateway === undefined && accept(l.target));
  };
}

/**
 * The hosts of the dynamic set, '_' (the catch-all, whose server runs the router) included; empty when the
 * catch-all itself cannot be dynamic, since dynamic hosts are served through it. A host is wholly dynamic or wholly
 * rendered (nginx picks a server before any location, and its longest-prefix choice cannot span two servers):
 * - no server setting (aliases, www redirect, server snippet, ...), no regex location, no client-certificate auth;
 * - every location's target passes `accept`: by default `dynamicTarget`; the renderer's also takes targets whose
 *   rendered block can be shared as a named location (a profile, render/dynamic-routes.ts);
 * - an exact host under a wildcard that has a server is dynamic only with that wildcard: nginx would otherwise give
 *   the request to the wildcard's server block before Lua could see it;
 * - ssl-reject-handshake is off: it fails every TLS handshake the catch-all server takes.
 * `decide`, when given, answers a server's own eligibility (the first two rules) in place of `eligible` (a caller's
 * memo: render/dynamic-routes.ts keeps it per server between renders); it must answer what `eligible` would.
 */
export function dynamicHosts(model: Model, accept: (t: Target) => boolean = dynamicTarget, decide?: (s: Server, eligible: () => boolean) => boolean): Set<string> {
  const out = new Set<string>();
  if (model.tls.settings.rejectHandshake === true) return out;
  const own = ownEligibility(model, accept);
  const eligible = decide ? (s: Server): boolean => decide(s, () => own(s)) : own;
  // the catch-all (the last server of that host, as a map by host would keep) and the wildcard hosts, without a map
  // of every host: at 100,000 Ingresses that map and a pass over every host for wildcards were 60 ms of each change
  let catchAll: Server | undefined;
  const wildcards = new Set<string>();
  for (const s of model.servers) {
    if (s.host === '_') catchAll = s;
    else if (s.host.startsWith('*.')) wildcards.add(s.host);
  }
  if (catchAll === undefined || !eligible(catchAll)) return out;
  for (const s of model.servers) if (eligible(s)) out.add(s.host);
  if (wildcards.size === 0) return out;
  for (const host of [...out]) {
    const wild = wildcardOf(host);
    if (wild !== undefined && wildcards.has(wild) && !out.has(wild)) out.delete(host);
  }
  return out;
}
