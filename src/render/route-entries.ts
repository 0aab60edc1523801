// One host's entry of the dynamic route table (docs/adr/0014) and the table as JSON: what lua/portico/router.lua reads
// for a host, each distinct target once. Pure, like the rest of render/; dynamic-routes.ts decides which hosts have one.
import { contentKey } from '../model/content-key.js';
import type { Location, Model, Server, Target, Upstream } from '../model/types.js';
import { serverRefs } from './kept-deps.js';
import { upstreamKey } from './memo.js';
import { metricsLabels } from './metrics.js';
import { runsRewriteHook } from './server-block.js';
import { tlsHsts, tlsLocationPolicy, tlsServerOf } from './tls.js';
import { affinityCookiePath } from './traffic.js';
import { ingressVarsValue } from './ingress-vars.js';
import { NO_HOST } from './route-push.js';

/** One answer of a host's table; the host's paths name them by index. `backend` '' is the built-in 404. */
export interface RouteTarget {
  readonly backend: string;
  readonly canary: string;
  readonly redirect: number;
  readonly denied: boolean;
  readonly metrics: string;
  /** The balancer's rewrite step runs (canary, cookie affinity, a tuned upstream): where a rendered location has the hook. */
  readonly rewrite: boolean;
  /** The named location (dynamic-profiles.ts) that runs this route's directives, or '' for the router's own. */
  readonly profile: string;
  /** Where the affinity cookie is set (render/traffic.ts affinityCookiePath); absent when the backend has no affinity. */
  readonly cookiePath?: string;
  /** $portico_ingress for ingress-nginx's $namespace, $service_name... (render/ingress-vars.ts), when something reads them. */
  readonly ingress?: string;
  /** The request body limit the router checks (bytes, 0: none), where the router's location does not (render/body-limit.ts). */
  readonly maxBody?: number;
}

/**
 * One host's compiled locations (model/routes.ts compileLocations): exact paths, and prefixes ending in '/', each
 * naming one of the host's own targets. Self-contained, so one host's entry can be pushed alone (a delta).
 */
export interface RouteHost {
  readonly exact: Readonly<Record<string, number>>;
  readonly prefix: Readonly<Record<string, number>>;
  readonly hsts: boolean;
  readonly targets: readonly RouteTarget[];
}

export interface RoutesPayload {
  readonly hosts: Readonly<Record<string, RouteHost>>;
  readonly default: RouteHost;
}

/**
 * Which profile a target runs in ('' for the router's own location, or for a 404 the router's @portico_not_found).
 * `quiet`: the catch-all's default backend, kept out of the access log (render/default-log.ts).
 */
export type ProfileOf = (t: Target, quiet: boolean) => string;

/** What a host's entry carries besides the routes: metrics labels, the ingress variables, the profile of a target,
 * and which 404s are the catch-all's default backend kept out of the access log. */
export interface EntryHow {
  readonly metrics: boolean;
  readonly ingressVars?: boolean;
  readonly profileOf: ProfileOf;
  readonly quiet?: (host: string, l: Location) => boolean;
  /** The body limit the router checks for a target run in `profile` ('' for none); absent: none. */
  readonly maxBody?: (profile: string) => number | undefined;
}

function targetOf(s: Server, l: Location, model: Model, upstreams: ReadonlyMap<string, Upstream>, { metrics, ingressVars, profileOf, quiet, maxBody }: EntryHow): RouteTarget {
  const tls = tlsLocationPolicy(model.tls, s.host, l);
  const t = l.target;
  const q = quiet?.(s.host, l) === true;
  if (t.kind === 'not-found') {
    const profile = q ? profileOf(t, q) : '';
    const limit = maxBody?.(profile);
    return { backend: '', canary: '', redirect: tls.redirect, denied: tls.denied, metrics: '', rewrite: false, profile, ...(limit === undefined ? {} : { maxBody: limit }) };
  }
  const upstream = upstreams.get(t.upstream);
  const labels = metrics ? (metricsLabels(s, l, upstream) ?? '') : '';
  const profile = profileOf(t, q);
  // in a profile, the hooks are the named location's own
  const rewrite = profile === '' && runsRewriteHook(upstream);
  const cookiePath = affinityCookiePath(t, (upstream?.affinity ?? null) !== null);
  const ingress = ingressVars === true ? ingressVarsValue(l, upstream) : undefined;
  const limit = maxBody?.(profile);
  const out: Mutable<RouteTarget> = { backend: t.upstream, canary: t.canary ?? '', redirect: tls.redirect, denied: tls.denied, metrics: labels, rewrite, profile };
  // the optional fields set only when present, in this order (the table's JSON is compared as text)
  if (cookiePath !== undefined) out.cookiePath = cookiePath;
  if (ingress !== undefined) out.ingress = ingress;
  if (limit !== undefined) out.maxBody = limit;
  return out;
}

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** `v` as a part of targetKey: its length, then itself, so no two different field lists make one key. */
const part = (v: string | undefined): string => (v === undefined ? '-' : `${v.length}:${v}`);

/**
 * A target's identity within its host: its fields, each string after its length (test/unit/route-target-key.test.ts
 * changes each field of a target in turn). JSON.stringify of each of the 30,000 targets of a 10,000-Ingress build was
 * 40 ms of it.
 */
export function targetKey(t: RouteTarget): string {
  return `${part(t.backend)}${part(t.canary)}${t.redirect},${t.denied ? 1 : 0}${t.rewrite ? 1 : 0}${part(t.metrics)}${part(t.profile)}${part(t.cookiePath)}${part(t.ingress)}${t.maxBody === undefined ? '-' : `${t.maxBody},`}`;
}

/** One host's entry, each distinct target once. */
export function hostOf(s: Server, model: Model, upstreams: ReadonlyMap<string, Upstream>, how: EntryHow): RouteHost {
  const targets: RouteTarget[] = [];
  const index = new Map<string, number>();
  const intern = (t: RouteTarget): number => {
    const key = targetKey(t);
    let i = index.get(key);
    if (i === undefined) {
      i = targets.length;
      targets.push(t);
      index.set(key, i);
    }
    return i;
  };
  const pick = (match: Location['match']): Record<string, number> =>
    Object.fromEntries(s.locations.filter((l) => l.match === match).map((l) => [l.path, intern(targetOf(s, l, model, upstreams, how))]));
  const exact = pick('exact');
  const prefix = pick('prefix');
  return { exact, prefix, hsts: tlsHsts(model.tls, s.host), targets };
}

/** The table of the dynamic hosts. */
export function routesPayload(model: Model, hosts: ReadonlySet<string>, metrics: boolean, profileOf: ProfileOf = () => ''): RoutesPayload {
  const upstreams = new Map(model.upstreams.map((u) => [u.name, u]));
  const entries: [string, RouteHost][] = [];
  let fallback = NO_HOST;
  for (const s of model.servers) {
    if (!hosts.has(s.host)) continue;
    if (s.host === '_') fallback = hostOf(s, model, upstreams, { metrics, profileOf });
    else entries.push([s.host, hostOf(s, model, upstreams, { metrics, profileOf })]);
  }
  return { hosts: Object.fromEntries(entries), default: fallback };
}

/**
 * What a host's entry is made of besides the render context: the server, its host's TLS entry, the TLS policy of the
 * Ingresses its paths belong to, and the upstreams they name (without endpoints, which the table never holds).
 */
export function entryInput(s: Server, model: Model, upstreams: ReadonlyMap<string, Upstream>): string {
  const { owners, targets } = serverRefs(s);
  const ups = targets.map((n) => upstreamKey(upstreams.get(n)));
  return JSON.stringify([contentKey(s), tlsServerOf(model.tls, s.host) ?? null, owners.map((k) => model.tls.ingresses[k] ?? null), ups]);
}
