// One server block of nginx.conf: its listens, its server-level lines and its locations, each location's Lua hooks.
// Pure, like the rest of render/.
import type { ExtraPorts } from '../model/gateway/listener-ports.js';
import type { GatewayTable } from '../model/gateway/route-types.js';
import type { StreamModel } from '../model/stream.js';
import type { TlsModel } from '../model/tls-types.js';
import type { Location, Server, Upstream } from '../model/types.js';
import { catchAllServers } from './catch-all-split.js';
import { h2c, trafficListens } from './conf-main.js';
import { NO_ACCESS_LOG, defaultBackendUnlogged } from './default-log.js';
import type { DynamicSplit } from './dynamic-routes.js';
import { ident, quote } from './escape.js';
import { gatewayLocation, gatewayServerLines } from './gateway.js';
import { proxyHeaders } from './globals.js';
import { serverCompat } from './globals-http.js';
import { ingressVarsLines } from './ingress-vars.js';
import type { BlockText } from './memo.js';
import { metricsLocationLines } from './metrics.js';
import { misdirectServerLines } from './misdirected.js';
import { ctxOf, type RenderOptions } from './options.js';
import { locationBody, regexHead, serverBody, serverNames, wwwRedirectServer, type SettingsContext } from './settings.js';
import { httpsListen, trafficAddresses } from './stream.js';
import { CERTIFICATE_HOOK, clientCertHeaders, tlsListenParams, tlsLocationLines, tlsServerLines } from './tls.js';
import { locationTracing, tracedHooks } from './tracing.js';
import { affinityCookieLines } from './traffic.js';

/**
 * The request id (docs/adr/0015) in the server's rewrite phase, before any location's: set_by_lua runs its chunk on
 * the main Lua thread, without the coroutine, context and variable lookup an http-level rewrite_by_lua cost, and
 * locations with a rewrite hook of their own (canaries, affinity) get the same id. Not in the dynamic catch-all: its
 * router (lua/portico/router.lua) runs in a rewrite hook anyway and sets the id there, without a second Lua entry.
 */
const REQUEST_ID = '        set_by_lua_block $portico_request_id { return require("portico.request_id").value() }';
const REWRITE_HOOK = '            rewrite_by_lua_block { require("portico.balancer").rewrite() }';
const LOG_HOOK = '            log_by_lua_block { require("portico.balancer").log() }';

/**
 * The Lua hooks a location proxying to `upstream` needs besides the balancer (ADR 0001). Each hook costs a Lua VM
 * entry on every request, so a plain upstream (round robin or consistent hashing) runs Lua once, in the balancer.
 * Cookie affinity and canaries pick in the rewrite phase (a cookie to set, a backend to switch to) and ewma learns
 * in the log phase. An upstream an
 * Ingress tuned with a balancing annotation keeps both hooks, so changing its algorithm is a dynamic update, not a
 * reload. An unknown upstream (missing Service) needs none: it answers 503.
 */
export function luaHooks(upstream: Upstream | undefined): string[] {
  if (upstream === undefined) return [];
  if (upstream.tuned) return [REWRITE_HOOK, LOG_HOOK];
  const log = upstream.affinity === null && upstream.hashBy === '' && upstream.loadBalance === 'ewma';
  return [...(runsRewriteHook(upstream) ? [REWRITE_HOOK] : []), ...(log ? [LOG_HOOK] : [])];
}

/** Whether luaHooks(upstream) holds the balancer's rewrite hook (a route entry asks, for each of its targets). */
export function runsRewriteHook(upstream: Upstream | undefined): boolean {
  // A canary is decided in the rewrite phase, before the balancer (docs/adr/0006-traffic-policy.md).
  return upstream !== undefined && (upstream.tuned || upstream.affinity !== null || upstream.canary !== undefined);
}

/** The first line of a location block, as rendered (also how quarantine finds the location nginx named). */
export function locationHead(l: Pick<Location, 'match' | 'path'>): string {
  return l.match === 'regex' ? `        ${regexHead(l.path)}` : `        location ${l.match === 'exact' ? '= ' : ''}${quote(l.path)} {`;
}

/** What a 404 location with HTTPRoute candidates proxies with when one takes the request (render/gateway.ts). */
function notFoundBody(l: Location, ctx: SettingsContext): string[] {
  return l.gateway !== undefined && l.target.kind === 'not-found'
    ? locationBody({ kind: 'upstream', upstream: '', ingress: { kind: 'HTTPRoute', namespace: '', name: '' }, ...(l.backendTls ? { settings: l.backendTls } : {}) }, ctx)
    : [];
}

/** How a server block reads upstreams (a memo records which it read: render/memo.ts). */
type Upstreams = Pick<ReadonlyMap<string, Upstream>, 'get'>;

function location(l: Location, ctx: SettingsContext, extra: string[], upstreams: Upstreams, where: { server: Server; metrics: boolean }): string[] {
  const head = locationHead(l);
  if (l.target.kind === 'not-found') {
    return [head, '            set $portico_backend "";', ...extra, '            return 404 "default backend - 404\\n";', '        }'];
  }
  const upstream = upstreams.get(l.target.upstream);
  const hooks = tracedHooks(locationTracing(ctx.global, l), luaHooks(upstream), { ...where, location: l, service: upstream?.service.name ?? '' });
  const affinity = affinityCookieLines(l.target, (upstream?.affinity ?? null) !== null);
  return [head, `            set $portico_backend ${quote(ident(l.target.upstream))};`, ...affinity, ...extra, ...hooks, ...locationBody(l.target, ctx), '        }'];
}

/** One server block of `s`. `dyn`: the dynamic split (--enable-dynamic-routes), whose Lua locations replace the catch-all's. */
export function serverBlock(
  s: Server,
  o: RenderOptions,
  tls: TlsModel,
  upstreams: Upstreams,
  { stream, dyn, gateway, gatewayPorts, misdirect = false }: { stream: StreamModel | undefined; dyn: DynamicSplit | undefined; gateway?: GatewayTable; gatewayPorts?: ExtraPorts; misdirect?: boolean },
): BlockText {
  const catchAll = s.host === '_';
  const clientCert = clientCertHeaders(tls, s.host);
  const ctx: SettingsContext = {
    ...ctxOf(o),
    luaHooks: (name) => luaHooks(upstreams.get(name)),
    self: { address: trafficAddresses(o)[0] ?? o.listenAddress, httpPort: o.httpPort, httpsPort: o.httpsPort },
    clientCert,
  };
  const proxyProtocol = ctx.global.useProxyProtocol ? ' proxy_protocol' : '';
  // No reuseport: with it, connections queued on old workers' sockets are served by the old configuration after a reload.
  const first = catchAll ? ' default_server backlog=4096' : '';
  const name = `        server_name ${serverNames(s)};`;
  const plainListens = trafficListens(o, o.httpPort, `${h2c(o, o.httpPort)}${proxyProtocol}${first}`);
  // With --enable-ssl-passthrough the HTTPS server listens behind the stream front (render/stream.ts).
  const tlsListens =
    httpsListen(stream, o) === undefined
      ? trafficListens(o, o.httpsPort, `${tlsListenParams(tls)}${proxyProtocol}${first}`)
      : [`        ${httpsListen(stream, o) ?? ''}${tlsListenParams(tls)} proxy_protocol${first};`];
  // Gateway listeners on other ports (model/gateway/listener-ports.ts): every server listens there too, so a route
  // moving between ports changes the route table only; Lua keeps the ports apart (model/gateway/port-scope.ts).
  const gatewayPlain = (gatewayPorts?.http ?? []).flatMap((p) => trafficListens(o, p, `${h2c(o, p)}${proxyProtocol}${first}`));
  const gatewayTls = (gatewayPorts?.https ?? []).flatMap((p) => trafficListens(o, p, `${tlsListenParams(tls)}${proxyProtocol}${first}`));
  const body = [
    // the dynamic catch-all's one location runs the router, a rewrite hook that sets the id itself
    ...(dyn && catchAll ? [] : [REQUEST_ID]),
    // 421 when the Host names another Gateway listener than the SNI name did (render/misdirected.ts)
    ...misdirectServerLines(misdirect),
    ...tlsServerLines(tls, s.host, o.workDir),
    // Only here the ssl-client-* headers: the whole list again, as nginx inherits none into a level that sets one.
    ...(clientCert === undefined ? [] : proxyHeaders(ctx.global, ctx.headers, { clientCert }, '        ')),
    ...serverCompat(ctx.global),
    ...serverBody(s, ctx),
    ...gatewayServerLines(s, gateway),
  ];
  // the dynamic catch-all: its plain-HTTP and its TLS ports in two blocks (render/catch-all-split.ts)
  if (dyn && catchAll) return { text: catchAllServers({ name, plain: [...plainListens, ...gatewayPlain], tls: [...tlsListens, ...gatewayTls], body, locations: dyn.locations }), marks: [] };
  const head = ['    server {', name, ...plainListens, ...tlsListens, ...gatewayPlain, ...gatewayTls, ...body];
  // each location's lines, and where they fall in the block (the quarantine's map from nginx's line to an Ingress)
  const marks: [number, number][] = [];
  const lines = head;
  for (const l of s.locations) {
    const upstream = l.target.kind === 'upstream' ? upstreams.get(l.target.upstream) : undefined;
    const extra = [
      ...(defaultBackendUnlogged(s.host, l, ctx.global) ? [NO_ACCESS_LOG] : []),
      ...tlsLocationLines(tls, s.host, l),
      ...ingressVarsLines(o.ingressVars === true, l, upstream),
      ...metricsLocationLines(o.metrics === true, s, l, upstream, o.metricsUndefinedHosts),
    ];
    const block = gatewayLocation(l, location(l, ctx, extra, upstreams, { server: s, metrics: o.metrics === true }), gateway, notFoundBody(l, ctx));
    marks.push([lines.length, lines.length + block.length - 1]);
    for (const line of block) lines.push(line);
  }
  lines.push(
    '    }',
    ...wwwRedirectServer(s, [
      `        ${trafficListens(o, o.httpPort, `${h2c(o, o.httpPort)}${proxyProtocol}`)
        .map((l) => l.trim())
        .join(' ')}`,
      ...(httpsListen(stream, o) === undefined
        ? trafficListens(o, o.httpsPort, `${tlsListenParams(tls)}${proxyProtocol}`)
        : [`        ${httpsListen(stream, o) ?? ''}${tlsListenParams(tls)} proxy_protocol;`]),
      CERTIFICATE_HOOK,
    ]),
  );
  return { text: lines.join('\n'), marks };
}
