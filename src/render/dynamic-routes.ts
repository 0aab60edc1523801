// The dynamic route table (docs/adr/0014): the catch-all server's Lua location and the JSON pushed to
// /configuration/routes (lua/portico/router.lua). Pure, like the rest of render/.
import { dynamicHosts, dynamicTarget, ownEligibility } from '../model/dynamic.js';
import { contentKey } from '../model/content-key.js';
import type { Location, Model, ObjectRef, Server, Target, Upstream } from '../model/types.js';
import { metricsLabels } from './metrics.js';
import { errorPages, locationBody, type SettingsContext } from './settings.js';
import { tlsHsts, tlsLocationPolicy, tlsServerOf } from './tls.js';
import { upstreamKey, type RouteEntry, type RouteMemo } from './memo.js';
import { keptDeps, sameDeps, serverRefs } from './kept-deps.js';
import { luaHooks } from './server-block.js';
import { emptyServerBody, profileBody, profileLocations, profileName, readsServerName, ROUTE_HSTS } from './dynamic-profiles.js';
import { affinityCookiePath } from './traffic.js';
import { ingressVarsValue } from './ingress-vars.js';
import { NO_ACCESS_LOG, defaultBackendUnlogged } from './default-log.js';
import { splitFrom, splitState, type SplitState } from './split-delta.js';
import { sha256 } from '../hash.js';
import { NO_HOST, type RouteGate } from './route-push.js';

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

/** What renderNginxConf needs in dynamic mode: the servers still rendered, the catch-all's locations, the table. */
export interface DynamicSplit {
  readonly servers: readonly Server[];
  readonly locations: readonly string[];
  /** Each routed host's entry in the table ('_': the default), for pushing the hosts that changed; routesText() the whole. */
  readonly routeHosts: ReadonlyMap<string, string>;
  readonly gate: RouteGate;
}

const GENERIC_REF: ObjectRef = { kind: 'Ingress', namespace: '', name: '' };
const GENERIC: Extract<Target, { kind: 'upstream' }> = { kind: 'upstream', upstream: 'portico_dynamic', ingress: GENERIC_REF };
const I = '            ';
/** The built-in 404 in a quiet profile of the catch-all's default backend, as @portico_not_found answers it. */
const NOT_FOUND_BODY = `${I}set $portico_backend "";\n${I}return 404 "default backend - 404\\n";`;

/** The directives every dynamic location shares: what a location with no annotation of its own renders. */
function genericBody(ctx: SettingsContext): string {
  return locationBody(GENERIC, ctx).join('\n');
}

/**
 * True when `t`'s rendered location would hold the generic body: nothing but what the table carries (backend,
 * canary key, redirect, metrics labels). A ConfigMap setting that renders per path (no-auth-locations with global
 * auth) or an annotation the model lets through is caught here, whatever the settings keys say.
 */
function sameBody(t: Target, ctx: SettingsContext, generic: string): boolean {
  if (t.kind === 'not-found') return true;
  return locationBody({ ...t, canary: undefined, upstream: GENERIC.upstream, ingress: GENERIC.ingress }, ctx).join('\n') === generic;
}

/** Settings of a target without annotations (the plain-target memo's key for them). */
const NO_SETTINGS = {};

/**
 * plain(t): true when `t` is a dynamic target whose location would hold the generic body (dynamicTarget and
 * sameBody). Both read only the target's kind, settings and rule (sameBody replaces its upstream, Ingress and canary),
 * so the answer is kept per settings object (shared by the paths of one Ingress, absent on most) and rule: at 10,000
 * Ingresses one location body is rendered per distinct settings, not one per path.
 */
function plainTargets(ctx: SettingsContext, generic: string): (t: Target) => boolean {
  const memo = new WeakMap<object, Map<string, boolean>>();
  return (t) => {
    if (t.kind === 'not-found') return true;
    const settings = t.settings ?? NO_SETTINGS;
    let bySettings = memo.get(settings);
    if (bySettings === undefined) {
      bySettings = new Map<string, boolean>();
      memo.set(settings, bySettings);
    }
    const rule = t.rule === undefined ? '' : `${t.rule.regex ? 'regex' : 'path'} ${t.rule.path}`;
    let v = bySettings.get(rule);
    if (v === undefined) {
      v = dynamicTarget(t) && sameBody(t, ctx, generic);
      bySettings.set(rule, v);
    }
    return v;
  };
}

/**
 * Which profile a target runs in ('' for the router's own location, or for a 404 the router's @portico_not_found).
 * `quiet`: the catch-all's default backend, kept out of the access log (render/default-log.ts).
 */
type ProfileOf = (t: Target, quiet: boolean) => string;

/** What a host's entry carries besides the routes: metrics labels, the ingress variables, the profile of a target,
 * and which 404s are the catch-all's default backend kept out of the access log. */
interface EntryHow {
  readonly metrics: boolean;
  readonly ingressVars?: boolean;
  readonly profileOf: ProfileOf;
  readonly quiet?: (host: string, l: Location) => boolean;
}

function targetOf(s: Server, l: Location, model: Model, upstreams: ReadonlyMap<string, Upstream>, { metrics, ingressVars, profileOf, quiet }: EntryHow): RouteTarget {
  const tls = tlsLocationPolicy(model.tls, s.host, l);
  const t = l.target;
  const q = quiet?.(s.host, l) === true;
  if (t.kind === 'not-found') return { backend: '', canary: '', redirect: tls.redirect, denied: tls.denied, metrics: '', rewrite: false, profile: q ? profileOf(t, q) : '' };
  const upstream = upstreams.get(t.upstream);
  const labels = metrics ? (metricsLabels(s, l, upstream) ?? '') : '';
  const profile = profileOf(t, q);
  // in a profile, the hooks are the named location's own
  const rewrite = profile === '' && luaHooks(upstream).some((h) => h.includes('rewrite_by_lua'));
  const cookiePath = affinityCookiePath(t, (upstream?.affinity ?? null) !== null);
  const ingress = ingressVars === true ? ingressVarsValue(l, upstream) : undefined;
  return {
    backend: t.upstream,
    canary: t.canary ?? '',
    redirect: tls.redirect,
    denied: tls.denied,
    metrics: labels,
    rewrite,
    profile,
    ...(cookiePath === undefined ? {} : { cookiePath }),
    ...(ingress === undefined ? {} : { ingress }),
  };
}

/** `v` as a part of targetKey: its length, then itself, so no two different field lists make one key. */
const part = (v: string | undefined): string => (v === undefined ? '-' : `${v.length}:${v}`);

/**
 * A target's identity within its host: its fields, each string after its length (test/unit/route-target-key.test.ts
 * changes each field of a target in turn). JSON.stringify of each of the 30,000 targets of a 10,000-Ingress build was
 * 40 ms of it.
 */
export function targetKey(t: RouteTarget): string {
  return `${part(t.backend)}${part(t.canary)}${t.redirect},${t.denied ? 1 : 0}${t.rewrite ? 1 : 0}${part(t.metrics)}${part(t.profile)}${part(t.cookiePath)}${part(t.ingress)}`;
}

/** One host's entry, each distinct target once. */
function hostOf(s: Server, model: Model, upstreams: ReadonlyMap<string, Upstream>, how: EntryHow): RouteHost {
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
function entryInput(s: Server, model: Model, upstreams: ReadonlyMap<string, Upstream>): string {
  const { owners, targets } = serverRefs(s);
  const ups = targets.map((n) => upstreamKey(upstreams.get(n)));
  return JSON.stringify([contentKey(s), tlsServerOf(model.tls, s.host) ?? null, owners.map((k) => model.tls.ingresses[k] ?? null), ups]);
}

/**
 * The catch-all server's locations in dynamic mode: one `location /` whose rewrite phase runs the router, and the
 * named 404 location it sends unmatched requests to (which also declares the variables the router sets).
 */
function routerLocations(ctx: SettingsContext, hsts: boolean, { metrics, ingressVars }: DynamicHow): string[] {
  const headers = hsts ? [ROUTE_HSTS] : [];
  return [
    '        location / {',
    `${I}rewrite_by_lua_block { require("portico.router").route() }`,
    `${I}log_by_lua_block { require("portico.balancer").log() }`,
    ...headers,
    ...locationBody(GENERIC, ctx),
    '        }',
    '        location @portico_not_found {',
    `${I}set $portico_backend "";`,
    ...headers,
    `${I}return 404 "default backend - 404\\n";`,
    '        }',
    '        location @portico_router_variables {',
    `${I}set $portico_canary ""; set $portico_route_hsts ""; set $portico_affinity_cookie_path "";${metrics ? ' set $portico_metrics "";' : ''}${ingressVars ? ' set $portico_ingress "";' : ''}`,
    `${I}return 404;`,
    '        }',
  ];
}

/** What splitDynamic renders besides the routes: metrics labels (--enable-metrics), the ingress variables. */
export interface DynamicHow {
  readonly metrics: boolean;
  readonly ingressVars: boolean;
}

/**
 * Splits the model for --enable-dynamic-routes: undefined when nothing can be dynamic (the catch-all is not, or the
 * ConfigMap's custom-http-errors route errors per Ingress, which a shared location cannot), else the servers still
 * rendered (the catch-all emptied: its locations are `locations`) and the route table as JSON. With `memo`, a host
 * whose entry input (entryInput) and render context are unchanged takes its entry from the last render.
 */
export function splitDynamic(model: Model, upstreams: ReadonlyMap<string, Upstream>, ctx: SettingsContext, how: DynamicHow, memo?: RouteMemo): DynamicSplit | undefined {
  const { metrics, ingressVars } = how;
  if (errorPages(GENERIC, ctx) !== undefined) return undefined;
  // tracing runs in each traced location's own hooks (render/tracing.ts), which the router's location has not
  if (ctx.global.enableOpentelemetry) return undefined;
  const generic = genericBody(ctx);
  const empty = emptyServerBody(ctx);
  // $server_name in every location, server or access log line (a ConfigMap header or log-format-upstream) would read
  // the catch-all's `_` for every dynamic host: then every host keeps its server block (docs/adr/0014, "Default").
  if (readsServerName(generic) || readsServerName(empty) || readsServerName(ctx.global.logFormatUpstream ?? '')) return undefined;
  // Each answer once per target object: the compiled locations of a host share their rules' targets, and both the
  // split and the table ask (rendering a block per location made a sync at 10,000 Ingresses seconds slower).
  const plain = plainTargets(ctx, generic);
  const bodyMemo = new WeakMap<Target, string | undefined>();
  const bodyOf = (t: Extract<Target, { kind: 'upstream' }>): string | undefined => {
    if (!bodyMemo.has(t)) bodyMemo.set(t, profileBody(t, upstreams.get(t.upstream), ctx, empty));
    return bodyMemo.get(t);
  };
  const accept = (t: Target): boolean => plain(t) || (t.kind === 'upstream' && bodyOf(t) !== undefined);
  const names = new Map<string, string>();
  const make = (s: Server, eligible: () => boolean): RouteEntry => {
    if (!eligible()) return NOT_ELIGIBLE;
    const used = new Map<string, string>();
    const profileOf: ProfileOf = (t, quiet) => {
      const ownOf = (): string | undefined => (t.kind === 'not-found' ? NOT_FOUND_BODY : bodyOf(t));
      // quiet: the block with no access log; a block no profile can hold stays in the router's location (logged).
      // A plain target needs no block of its own unless quiet: its profile block is not rendered to be dropped.
      const quietBody = quiet ? ownOf() : undefined;
      const body = quietBody !== undefined ? `${NO_ACCESS_LOG}\n${quietBody}` : plain(t) ? undefined : ((quiet ? quietBody : ownOf()) ?? '');
      if (body === undefined) return '';
      let name = names.get(body);
      if (name === undefined) {
        name = profileName(body);
        names.set(body, name);
      }
      used.set(body, name);
      return name;
    };
    const quiet = (host: string, l: Location): boolean => defaultBackendUnlogged(host, l, ctx.global);
    return { eligible: true, json: JSON.stringify(hostOf(s, model, upstreams, { metrics, ingressVars, profileOf, quiet })), profiles: [...used] };
  };
  const context = JSON.stringify([ctx, model.tls.settings, metrics, ingressVars]);
  // A server of the last render (the same object, after an incremental sync) whose TLS entries and upstreams are the
  // same objects takes its entry by identity, without serializing it (render/identity-memo.ts, docs/adr/0043).
  const kept = (m: RouteMemo, s: Server, eligible: () => boolean): RouteEntry =>
    m.byServer.get(
      s,
      () => keptDeps(s, model.tls, upstreams),
      () => m.keyed(entryInput(s, model, upstreams), () => make(s, eligible)),
      (k) => m.carry(k.key, k.entry),
      (deps) => sameDeps(deps, s, model.tls, upstreams),
    ).entry;
  const last = memo?.split;
  if (memo !== undefined && last !== undefined && last.context === context) {
    // the last split with the servers that changed (render/split-delta.ts); the memo keeps the entries it had
    memo.extend(context);
    memo.byServer.begin(context);
    const own = ownEligibility(model, accept);
    const next = splitFrom(last, model, (s) => kept(memo, s, () => own(s)));
    memo.end();
    memo.split = next;
    if (next !== undefined) {
      memo.stats.reused += next.entries.length - (next.made - last.made);
      return splitOf(next, ctx, model.tls.settings.hsts, how);
    }
  }
  const entries = new Map<Server, RouteEntry>();
  memo?.begin(context);
  memo?.byServer.begin(context);
  const hosts = dynamicHosts(model, accept, (s, eligible) => {
    const e = entries.get(s) ?? (memo ? kept(memo, s, eligible) : make(s, eligible));
    entries.set(s, e);
    return e.eligible;
  });
  memo?.end();
  if (!hosts.has('_')) {
    if (memo) memo.split = undefined;
    return undefined;
  }
  const state = splitState(context, model, (s) => entries.get(s) ?? NOT_ELIGIBLE, hosts);
  if (memo) memo.split = state;
  return splitOf(state, ctx, model.tls.settings.hsts, how);
}

const NOT_ELIGIBLE: RouteEntry = { eligible: false, json: '', profiles: [] };

/** The split a state gives: the servers still rendered (the catch-all emptied), the catch-all's locations, the table. */
function splitOf(state: SplitState, ctx: SettingsContext, hsts: boolean, how: DynamicHow): DynamicSplit {
  const profiles = new Map([...state.profiles].map(([body, p]) => [body, p.name] as const));
  const servers = state.model.servers.filter((s, i) => state.routed[i] !== true || s.host === '_').map((s) => (s.host === '_' ? { host: '_', locations: [] } : s));
  const router = routerLocations(ctx, hsts, how);
  const gate = { router: sha256(router.join('\n')), profiles: [...profiles.values()].sort() };
  return { servers, locations: [...router, ...profileLocations(profiles, hsts)], routeHosts: state.routeHosts, gate };
}
