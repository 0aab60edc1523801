// Profiles (docs/adr/0014): one named location in the catch-all server per distinct rendered block of the dynamic
// hosts' annotated paths. The router picks the route as for any dynamic host, sets its variables, then `ngx.exec`s
// the profile, so a new Ingress whose annotations render a block already there is a push; a new block is a reload.
import { sha256 } from '../hash.js';
import type { Server, Target, Upstream } from '../model/types.js';
import { luaHooks } from './server-block.js';
import { errorPages, locationBody, serverBody, type SettingsContext } from './settings.js';
import { resolveTracing } from '../model/settings-tracing.js';
import { blockBodyLimit } from './body-limit.js';

type UpstreamTarget = Extract<Target, { kind: 'upstream' }>;
const I = '            ';

/**
 * The block a profile holds for `t` (its Lua hooks, then its rendered body, the canary key left to the router), or
 * undefined when `t` also needs something at server level (custom error locations, an auth-url location, a mirror
 * location...), which a shared catch-all cannot hold per Ingress: such a host keeps its server block. A body limit of
 * its own (proxy-body-size) is kept when the router's location lets every body it allows through (`routerLimit`,
 * bytes, 0 for none; undefined: no profile may hold one: render/body-limit.ts), since nginx checks a Content-Length
 * there and the router checks the rest.
 */
export function profileBody(t: UpstreamTarget, upstream: Upstream | undefined, ctx: SettingsContext, emptyServer: string, routerLimit: number | undefined): string | undefined {
  // a snippet may hold what a named location refuses (alias, under --snippet-mode=any): nginx -t would hold the Ingress out
  if (errorPages(t, ctx) !== undefined || t.settings?.configurationSnippet !== undefined) return undefined;
  // a traced target needs its location's tracing hooks (render/tracing.ts): its host keeps its server block
  if (resolveTracing(ctx.global, t.settings?.tracing) !== undefined) return undefined;
  const alone: Server = { host: '_', locations: [{ match: 'prefix', path: '/', target: t }] };
  let body: string;
  try {
    if (serverBody(alone, ctx).join('\n') !== emptyServer) return undefined;
    body = [...luaHooks(upstream), ...locationBody({ ...t, canary: undefined }, ctx)].join('\n');
  } catch {
    // A block that cannot be rendered out of its server (an `https://$host/...` auth-url needs the listener the
    // server render knows) keeps its host rendered, which refuses it there if it is bad (test/e2e/oauth2-proxy).
    return undefined;
  }
  // nginx checks client_max_body_size against Content-Length when it picks a location (the router's), never on the
  // internal redirect to a named location: the router checks the route's own limit (maxBody), which must be one the
  // router's location lets through (test/e2e/annotations, test/e2e/dynamic-body-limits)
  const own = blockBodyLimit(body);
  if (own !== 'none' && (own === 'bad' || routerLimit === undefined || (routerLimit !== 0 && (own === 0 || own > routerLimit)))) return undefined;
  // $server_name is `_` in the catch-all: a block reading it (FastCGI's SERVER_NAME, a fastcgi-params or auth key value)
  // keeps its host rendered, so the backend sees the host's server_name as before (docs/adr/0014, "Default").
  if (readsServerName(body)) return undefined;
  return body;
}

/** True when nginx text reads `$server_name`, which a dynamic host would see as the catch-all's `_`. */
export const readsServerName = (text: string): boolean => /\$(server_name\b|\{server_name\})/.test(text);

/** The named location's name: stable for a block, whatever else changes. */
export const profileName = (body: string): string => `@portico_profile_${sha256(body, 16)}`;

/** The server-level lines every profile is checked against (a catch-all with no location). */
export function emptyServerBody(ctx: SettingsContext): string {
  return serverBody({ host: '_', locations: [] }, ctx).join('\n');
}

/**
 * HSTS of the host the router matched (`$portico_route_hsts`, set by lua/portico/router.lua), in the router's
 * location and each profile; the ConfigMap's add-headers come from http{} (more_set_headers merges into every block).
 */
export const ROUTE_HSTS = `${I}more_set_headers "Strict-Transport-Security: $portico_route_hsts_header";`;

/** http{}: the header's value, Portico's when the router set one, else what the backend sent (render/tls.ts). */
export const ROUTE_HSTS_MAP = '    map $portico_route_hsts $portico_route_hsts_header { "" $sent_http_strict_transport_security; default $portico_route_hsts; }';

/** The named locations, sorted by name, each with HSTS when any host may have it. */
export function profileLocations(profiles: ReadonlyMap<string, string>, hsts: boolean): string[] {
  return [...profiles].sort(([, a], [, b]) => (a < b ? -1 : a > b ? 1 : 0)).flatMap(([body, name]) => [`        location ${name} {`, ...(hsts ? [ROUTE_HSTS] : []), ...body.split('\n'), '        }']);
}

/** With --enable-dynamic-routes: each nginx worker reads the route table as it starts, not on its first request. */
export function routerInitWorker(dynamicRoutes: boolean): string {
  return dynamicRoutes ? ' require("portico.router").init_worker()' : '';
}
