// The route table as it is pushed to Lua (docs/adr/0014): its whole text, made only when a whole push asks for it,
// a delta of the hosts whose entry changed, and what a conf's workers can route of it (its gate). Pure.
import { entryChanges } from './entry-changes.js';
import type { RouteHost } from './route-entries.js';

/** The entry of a table without a catch-all's own paths. */
export const NO_HOST: RouteHost = { exact: {}, prefix: {}, hsts: false, targets: [] };

/**
 * What an nginx.conf's workers can route of a table: an entry routes in them as in the conf it was made for when its
 * router (the catch-all's router location, its variables and headers: `router`, a digest of their lines) is the same
 * and the conf has every named location (profile) the entry names. The executor pushes before a reload the new
 * hosts the old workers can route so (apply/executor.ts), instead of after the old workers are gone.
 */
export interface RouteGate {
  readonly router: string;
  readonly profiles: readonly string[];
}

/** The named locations (profiles) a host's entry (its JSON) names. */
export function entryProfiles(entry: string): string[] {
  // a string value cannot hold `"profile":"`: its quotes would be escaped
  return [...entry.matchAll(/"profile":"(@portico_profile_[0-9a-f]+)"/g)].map((m) => m[1] ?? '');
}

/**
 * The whole route table (POST /configuration/routes) of `routeHosts` (host → entry JSON, '_' the default), the hosts
 * in the map's order. Built only when a whole push or /debug asks for it, and not kept: 2.8 MiB at 10,000 hosts, 29
 * MiB at 100,000, where a change pushes one host's entry; kept by map, it stayed as long as the conf (docs/adr/0059).
 */
export function routesText(routeHosts: ReadonlyMap<string, string>): string {
  const parts: string[] = [];
  for (const [host, entry] of routeHosts) if (host !== '_') parts.push(`${JSON.stringify(host)}:${entry}`);
  return `{"hosts":{${parts.join(',')}},"default":${routeHosts.get('_') ?? JSON.stringify(NO_HOST)}}`;
}

/**
 * `conf` with a route table: `routeHosts`, its gate (RouteGate) when known, and `routes` (its whole text) built on
 * first read only (spreading `conf` reads it).
 */
export function withRoutes<T extends object>(
  conf: T,
  routeHosts: ReadonlyMap<string, string>,
  gate: RouteGate | undefined,
): T & { readonly routes: string; readonly routeHosts: ReadonlyMap<string, string>; readonly routeGate?: RouteGate } {
  return {
    ...conf,
    routeHosts,
    ...(gate === undefined ? {} : { routeGate: gate }),
    get routes(): string {
      return routesText(routeHosts);
    },
  };
}

/**
 * The body of a route table delta from `held` to `now` (host → entry JSON, '_' the default), the hosts whose entry
 * changed or is new ('_' when the default did) and the hosts gone; undefined when nothing differs.
 */
export function routesDelta(held: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>): { body: string; changed: string[]; removed: string[] } | undefined {
  // the catch-all ('_') is the default: set when it changed, never removed
  const { changed, removed } = entryChanges(held, now, '_');
  if (changed.length === 0 && removed.length === 0) return undefined;
  const fallback = changed.includes('_') ? now.get('_') : undefined;
  const parts = changed.filter((host) => host !== '_').map((host) => `${JSON.stringify(host)}:${now.get(host) ?? 'null'}`);
  for (const host of removed) parts.push(`${JSON.stringify(host)}:null`);
  return { body: `{"hosts":{${parts.join(',')}}${fallback === undefined ? '' : `,"default":${fallback}`}}`, changed, removed };
}
