// Renders traffic policy: rate-limit zones and keys, CORS, mirroring, logs and blocked referers.
// Zone layout and sizes: docs/adr/0006-traffic-policy.md.
import { sha256 } from '../hash.js';
import type { GlobalSettings, ResolvedHeaders } from '../model/settings.js';
import type { CorsSettings, LimitSettings, MirrorSettings } from '../model/settings-traffic.js';
import type { Location, Model, ObjectRef, Server } from '../model/types.js';
import { CORS_VARY_MAP, corsLocation, corsMaps, resolveCors, corsId } from './cors.js';
import { cidr, ident, int, quote, quoteLiteral } from './escape.js';
import { proxyHeaders } from './globals.js';
import { refKey } from '../model/keys.js';

export type UpstreamTarget = Extract<Location['target'], { kind: 'upstream' }>;

/** The characters lua/portico/configuration.lua accepts in a cookie path: no ';' to end the attribute, no space. */
const COOKIE_PATH = /^\/[A-Za-z0-9\-._~!&'()*+,=:@/%]{0,1023}$/;

/**
 * Where the affinity cookie of a location's backend is set, the value of $portico_affinity_cookie_path that
 * lua/portico/balancer/sticky.lua reads: only on the paths of an Ingress that asked for affinity, with its
 * session-cookie-path, else the location's own path, as ingress-nginx does; `off` on the other paths of the backend
 * (a client's cookie still picks the endpoint there). A regex path is no cookie path: `/`, as the use-regex warning
 * says. Undefined when the backend has no affinity.
 */
export function affinityCookiePath(t: UpstreamTarget, backendAffinity: boolean): string | undefined {
  if (!backendAffinity) return undefined;
  const asked = t.settings?.affinityCookie;
  if (asked === undefined) return 'off';
  return asked.path ?? (t.rule === undefined || t.rule.regex || !COOKIE_PATH.test(t.rule.path) ? '/' : t.rule.path);
}

/** The location line setting affinityCookiePath, if any. */
export function affinityCookieLines(t: UpstreamTarget, backendAffinity: boolean): string[] {
  const path = affinityCookiePath(t, backendAffinity);
  return path === undefined ? [] : [`            set $portico_affinity_cookie_path ${quote(path)};`];
}

const hash = (s: string, n = 12): string => sha256(s, n);

/** limitId per reference object: model objects are never changed once built (model/content-key.ts). */
const limitIds = new WeakMap<ObjectRef, string>();

/** Id of one Ingress inside the limit key: the same client counts once per Ingress, over all its locations. */
function limitId(ref: ObjectRef): string {
  let id = limitIds.get(ref);
  if (id === undefined) {
    id = hash(refKey(ref.namespace, ref.name), 8);
    limitIds.set(ref, id);
  }
  return id;
}

/** A CORS configuration's id and http-level maps, per settings object (each render asked again for every target). */
const corsById = new WeakMap<CorsSettings, readonly [string, string[]]>();

function corsOf(settings: CorsSettings | undefined): readonly [string, string[]] | undefined {
  const c = resolveCors(settings);
  if (!c || !settings) return undefined;
  let kept = corsById.get(settings);
  if (kept === undefined) {
    kept = [corsId(c), corsMaps(c)];
    corsById.set(settings, kept);
  }
  return kept;
}
const whitelistId = (list: readonly string[]): string => hash([...list].sort().join(','));

/** Zone size in MiB: about 1 MiB (some 8,000 client states) per Ingress using it, as a power of two, at most 64. */
export function zoneMiB(users: number): number {
  let m = 1;
  while (m < users && m < 64) m *= 2;
  return m;
}

function targets(model: Model): UpstreamTarget[] {
  return model.servers.flatMap((s) => s.locations.map((l) => l.target)).filter((t): t is UpstreamTarget => t.kind === 'upstream');
}

function limitsOn(l: LimitSettings | undefined): boolean {
  return l !== undefined && ((l.rps ?? 0) > 0 || (l.rpm ?? 0) > 0 || (l.connections ?? 0) > 0);
}

/** limit_req/limit_conn zones (one per distinct rate, keyed by client and Ingress), whitelist geos and the key map. */
function limitZones(ts: readonly UpstreamTarget[]): string[] {
  const users = new Map<string, Set<string>>();
  const whitelists = new Map<string, readonly string[]>();
  const use = (zone: string, t: UpstreamTarget): void => {
    const set = users.get(zone) ?? new Set<string>();
    set.add(limitId(t.ingress));
    users.set(zone, set);
  };
  for (const t of ts) {
    const l = t.settings?.traffic?.limit;
    if (!limitsOn(l) || !l) continue;
    if ((l.rps ?? 0) > 0) use(`rps ${int(l.rps ?? 0)}`, t);
    if ((l.rpm ?? 0) > 0) use(`rpm ${int(l.rpm ?? 0)}`, t);
    if ((l.connections ?? 0) > 0) use('conn', t);
    if (l.whitelist?.length) whitelists.set(whitelistId(l.whitelist), l.whitelist);
  }
  if (users.size === 0) return [];
  const lines = ['    map $portico_limit_skip $portico_limit_key { "1" ""; default "$binary_remote_addr$portico_limit_id"; }'];
  for (const [id, list] of [...whitelists].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(`    geo $portico_limit_wl_${id} { default 0; ${list.map((c) => `${cidr(c)} 1;`).join(' ')} }`);
  }
  for (const [zone, set] of [...users].sort(([a], [b]) => a.localeCompare(b))) {
    const [kind, rate] = zone.split(' ');
    const size = `${zoneMiB(set.size)}m`;
    if (kind === 'conn') lines.push(`    limit_conn_zone $portico_limit_key zone=portico_conn:${size};`);
    else lines.push(`    limit_req_zone $portico_limit_key zone=portico_${kind ?? ''}_${rate ?? ''}:${size} rate=${rate ?? ''}r/${kind === 'rps' ? 's' : 'm'};`);
  }
  return lines;
}

/** A server's targets that render http-level lines (CORS maps, limit zones), in location order; the others add none. */
export function trafficTargets(s: Server): UpstreamTarget[] {
  const out: UpstreamTarget[] = [];
  for (const l of s.locations) {
    const t = l.target;
    if (t.kind === 'upstream' && (resolveCors(t.settings?.traffic?.cors) !== undefined || limitsOn(t.settings?.traffic?.limit))) out.push(t);
  }
  return out;
}

/** http-level lines: status codes, zones, CORS maps and the blocked-referer map. */
export function trafficHttp(model: Model, g: GlobalSettings): string[] {
  return trafficHttpOf(targets(model), g);
}

/** trafficHttp of the targets `ts` (every target, or only those trafficTargets keeps: the same lines). */
export function trafficHttpOf(ts: readonly UpstreamTarget[], g: GlobalSettings): string[] {
  const cors = new Map<string, string[]>();
  for (const t of ts) {
    const c = corsOf(t.settings?.traffic?.cors);
    if (c) cors.set(c[0], c[1]);
  }
  const zones = limitZones(ts);
  const lines = zones.length > 0 ? [`    limit_req_status ${int(g.limitReqStatusCode)}; limit_conn_status ${int(g.limitConnStatusCode)};`, ...zones] : [];
  for (const [, maps] of [...cors].sort(([a], [b]) => a.localeCompare(b))) lines.push(...maps);
  if (cors.size > 0) lines.push(CORS_VARY_MAP);
  if (g.blockReferers.length > 0) {
    lines.push('    map $http_referer $portico_block_referer {', '        default 0;');
    for (const r of g.blockReferers) lines.push(`        ${r.startsWith('~') ? quoteLiteral(r) : quote(r)} 1;`);
    lines.push('    }');
  }
  return lines;
}

/** limit_req / limit_conn: the key's parts (Ingress id, whitelisted or not), then one line per limit. */
function requestLimits(l: LimitSettings, ref: ObjectRef, I: string): string[] {
  const burst = l.burstMultiplier ?? 5;
  const rps = l.rps ?? 0;
  const rpm = l.rpm ?? 0;
  const conn = l.connections ?? 0;
  return [
    `${I}set $portico_limit_id ${limitId(ref)};`,
    `${I}set $portico_limit_skip ${l.whitelist?.length ? `$portico_limit_wl_${whitelistId(l.whitelist)}` : '0'};`,
    ...(rps > 0 ? [`${I}limit_req zone=portico_rps_${int(rps)} burst=${int(rps * burst)} nodelay;`] : []),
    ...(rpm > 0 ? [`${I}limit_req zone=portico_rpm_${int(rpm)} burst=${int(rpm * burst)} nodelay;`] : []),
    ...(conn > 0 ? [`${I}limit_conn portico_conn ${int(conn)};`] : []),
  ];
}

function limitLines(l: LimitSettings | undefined, ref: ObjectRef, I: string): string[] {
  if (!l) return [];
  const out = limitsOn(l) ? requestLimits(l, ref, I) : [];
  if ((l.rate ?? 0) > 0) out.push(`${I}limit_rate ${int(l.rate ?? 0)}k;`);
  if ((l.rateAfter ?? 0) > 0) out.push(`${I}limit_rate_after ${int(l.rateAfter ?? 0)}k;`);
  return out;
}

/** The internal location a mirror goes to: `/_portico_mirror_ID`. */
export function mirrorUri(m: MirrorSettings): string {
  return `/_portico_mirror_${hash(JSON.stringify([m.target, m.host, m.requestBody]))}`;
}

/** Location lines of one upstream location, placed before any rewrite (rewrite-module directives run in order). */
export function trafficLocation(t: UpstreamTarget, I: string): string[] {
  const tr = t.settings?.traffic;
  const route = t.canary !== undefined ? [`${I}set $portico_canary ${ident(t.canary)};`] : [];
  if (!tr) return route;
  const out = [...route, ...limitLines(tr.limit, t.ingress, I)];
  const cors = resolveCors(tr.cors);
  if (cors) out.push(...corsLocation(cors, I));
  if (tr.mirror?.target !== undefined) {
    out.push(`${I}mirror ${quote(mirrorUri(tr.mirror))};`);
    if (tr.mirror.requestBody === false) out.push(`${I}mirror_request_body off;`);
  }
  if (tr.accessLog === false) out.push(`${I}access_log off;`);
  if (tr.rewriteLog === true) out.push(`${I}rewrite_log on;`);
  return out;
}

/** `"http://x/y"`, or with a trailing `$request_uri` kept as the variable. */
function mirrorUrl(target: string): string {
  const suffix = target.endsWith('$request_uri') ? '$request_uri' : '';
  const base = quote(suffix ? target.slice(0, -suffix.length) : target);
  return `${base.slice(0, -1)}${suffix}"`;
}

function mirrorLocation(m: MirrorSettings, g: GlobalSettings, h: ResolvedHeaders): string[] {
  const I = '            ';
  const target = m.target ?? '';
  const host = m.host ?? new URL(target.replace(/\$request_uri$/, '')).host;
  const noBody = m.requestBody === false;
  return [
    `        location = ${quote(mirrorUri(m))} {`,
    `${I}internal;`,
    `${I}rewrite_by_lua_block { return }`,
    `${I}set $portico_mirror_target ${mirrorUrl(target)};`,
    ...proxyHeaders(g, h, { host, ...(noBody ? { extra: [['Content-Length', '']] } : {}) }, I),
    ...(noBody ? [`${I}proxy_pass_request_body off;`] : []),
    `${I}proxy_pass $portico_mirror_target;`,
    '        }',
  ];
}

/** Server-level lines: blocked referers, and one internal location per distinct mirror of the server's locations. */
export function trafficServer(s: Server, g: GlobalSettings, h: ResolvedHeaders): string[] {
  const mirrors = new Map<string, MirrorSettings>();
  for (const l of s.locations) {
    const m = l.target.kind === 'upstream' ? l.target.settings?.traffic?.mirror : undefined;
    if (m?.target !== undefined) mirrors.set(mirrorUri(m), m);
  }
  return [
    ...(g.blockReferers.length > 0 ? ['        if ($portico_block_referer) { return 403; }'] : []),
    ...[...mirrors].sort(([a], [b]) => a.localeCompare(b)).flatMap(([, m]) => mirrorLocation(m, g, h)),
  ];
}
