// The dynamic route table (docs/adr/0014): which hosts the catch-all server's Lua location routes, its locations, and
// each host's entry of the JSON pushed to /configuration/routes (made by route-entries.ts). Pure, like the rest of render/.
import { dynamicHosts, dynamicTarget, ownEligibility } from '../model/dynamic.js';
import type { Location, Model, ObjectRef, Server, Target, Upstream } from '../model/types.js';
import { errorPages, locationBody, type SettingsContext } from './settings.js';
import type { RouteEntry, RouteMemo } from './memo.js';
import { keptDeps, sameDeps } from './kept-deps.js';
import { emptyServerBody, profileBody, profileLocations, profileName, readsServerName, ROUTE_HSTS } from './dynamic-profiles.js';
import { NO_ACCESS_LOG, defaultBackendUnlogged } from './default-log.js';
import { splitFrom, splitState, type SplitState } from './split-delta.js';
import { sha256 } from '../hash.js';
import type { RouteGate } from './route-push.js';
import { entryInput, hostOf, type ProfileOf } from './route-entries.js';
import { BOUNDED, blockBodyLimit, routerOpen } from './body-limit.js';
import { sizeBytes } from '../model/size.js';
import { size } from './escape.js';

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
  // by settings, then by rule path, a map for plain rules and one for regex ones (no key string made a question: the
  // split and the table ask once for each of 50,000 locations at 10,000 Ingresses)
  const memo = new WeakMap<object, { readonly path: Map<string | undefined, boolean>; readonly regex: Map<string, boolean> }>();
  return (t) => {
    if (t.kind === 'not-found') return true;
    const settings = t.settings ?? NO_SETTINGS;
    let bySettings = memo.get(settings);
    if (bySettings === undefined) {
      bySettings = { path: new Map(), regex: new Map() };
      memo.set(settings, bySettings);
    }
    const rule = t.rule;
    const byRule: Map<string | undefined, boolean> = rule?.regex === true ? bySettings.regex : bySettings.path;
    const key = rule?.path;
    let v = byRule.get(key);
    if (v === undefined) {
      v = dynamicTarget(t) && sameBody(t, ctx, generic);
      byRule.set(key, v);
    }
    return v;
  };
}

/**
 * The catch-all server's locations in dynamic mode: one `location /` whose rewrite phase runs the router, and the
 * named 404 location it sends unmatched requests to (which also declares the variables the router sets).
 */
function routerLocations(ctx: SettingsContext, hsts: boolean, { metrics, ingressVars }: DynamicHow, open: boolean): string[] {
  const headers = hsts ? [ROUTE_HSTS] : [];
  // open (render/body-limit.ts): the router checks each route's limit; a body of unknown length to a route without a
  // profile is read in @portico_bounded, under the catch-all's limit
  const bounded = open
    ? [
        `        location ${BOUNDED} {`,
        `${I}rewrite_by_lua_block { require("portico.router").bounded() }`,
        `${I}log_by_lua_block { require("portico.balancer").log() }`,
        `${I}client_max_body_size ${size(ctx.global.proxyBodySize)};`,
        ...headers,
        ...locationBody(GENERIC, ctx),
        '        }',
      ]
    : [];
  return [
    '        location / {',
    `${I}rewrite_by_lua_block { require("portico.router").route() }`,
    `${I}log_by_lua_block { require("portico.balancer").log() }`,
    ...(open ? [`${I}client_max_body_size 0;`] : []),
    ...headers,
    ...locationBody(GENERIC, ctx),
    '        }',
    ...bounded,
    '        location @portico_not_found {',
    `${I}set $portico_backend "";`,
    ...headers,
    `${I}return 404 "default backend - 404\\n";`,
    '        }',
    '        location @portico_router_variables {',
    `${I}set $portico_canary ""; set $portico_route_hsts ""; set $portico_affinity_cookie_path "";${open ? ' set $portico_bounded_rewrite "";' : ''}${metrics ? ' set $portico_metrics "";' : ''}${ingressVars ? ' set $portico_ingress "";' : ''}`,
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
  // The catch-all's body limit, and whether the router's location takes none (render/body-limit.ts, docs/adr/0063)
  const catchAllLimit = sizeBytes(ctx.global.proxyBodySize) ?? 0;
  // A limit in every location (a ConfigMap location-snippet): the router's location holds it already, so it is never
  // opened (two lines would fail nginx -t), and no profile holds a limit of its own, as before ADR 0063.
  const genericLimited = blockBodyLimit(generic) !== 'none';
  const open = !genericLimited && routerOpen(model, catchAllLimit);
  const routerLimit = genericLimited ? undefined : open ? 0 : catchAllLimit;
  const bodyMemo = new WeakMap<Target, string | undefined>();
  const bodyOf = (t: Extract<Target, { kind: 'upstream' }>): string | undefined => {
    if (!bodyMemo.has(t)) bodyMemo.set(t, profileBody(t, upstreams.get(t.upstream), ctx, empty, routerLimit));
    return bodyMemo.get(t);
  };
  const accept = (t: Target): boolean => plain(t) || (t.kind === 'upstream' && bodyOf(t) !== undefined);
  const names = new Map<string, string>();
  /** A profile's own body limit (bytes), by name; none for a profile without a client_max_body_size line. */
  const limits = new Map<string, number>();
  // the route's limit where the router's location does not hold it: its profile's own, else (open) the catch-all's
  const maxBody = (profile: string): number | undefined => (profile === '' ? undefined : limits.get(profile)) ?? (open ? catchAllLimit : undefined);
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
        const own = blockBodyLimit(body);
        if (typeof own === 'number') limits.set(name, own);
      }
      used.set(body, name);
      return name;
    };
    const quiet = (host: string, l: Location): boolean => defaultBackendUnlogged(host, l, ctx.global);
    return { eligible: true, json: JSON.stringify(hostOf(s, model, upstreams, { metrics, ingressVars, profileOf, quiet, maxBody })), profiles: [...used] };
  };
  const context = JSON.stringify([ctx, model.tls.settings, metrics, ingressVars, open]);
  // A server of the last render (the same object, after an incremental sync) whose TLS entries and upstreams are the
  // same objects takes its entry by identity, without serializing it (render/identity-memo.ts, docs/adr/0043).
  const kept = (m: RouteMemo, s: Server, eligible: () => boolean): RouteEntry =>
    m.byServer.get(
      s,
      () => keptDeps(s, model.tls, upstreams),
      () =>
        m.keyedLater(
          () => entryInput(s, model, upstreams),
          () => make(s, eligible),
        ),
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
      return splitOf(next, ctx, model.tls.settings.hsts, how, open);
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
  return splitOf(state, ctx, model.tls.settings.hsts, how, open);
}

const NOT_ELIGIBLE: RouteEntry = { eligible: false, json: '', profiles: [] };

/** The split a state gives: the servers still rendered (the catch-all emptied), the catch-all's locations, the table. */
function splitOf(state: SplitState, ctx: SettingsContext, hsts: boolean, how: DynamicHow, open: boolean): DynamicSplit {
  const profiles = new Map([...state.profiles].map(([body, p]) => [body, p.name] as const));
  const servers = state.model.servers.filter((s, i) => state.routed[i] !== true || s.host === '_').map((s) => (s.host === '_' ? { host: '_', locations: [] } : s));
  const router = routerLocations(ctx, hsts, how, open);
  const gate = { router: sha256(router.join('\n')), profiles: [...profiles.values()].sort() };
  return { servers, locations: [...router, ...profileLocations(profiles, hsts)], routeHosts: state.routeHosts, gate };
}
