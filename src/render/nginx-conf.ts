// Renders the model into nginx.conf text. Pure: the same model and options always give the same text. The main
// context and the http block's head are conf-main.ts's, each server block server-block.ts's.
import { sha256 } from '../hash.js';
import type { Model, Server, Upstream } from '../model/types.js';
import { tlsServerOf } from './tls.js';
import type { Block, BlockText } from './memo.js';
import { GLOBAL_DEFAULTS } from '../model/settings.js';
import { upstreamKeepalive } from './globals.js';
import { authHttpLinesOf, resolverLines } from './auth.js';
import { tlsBalancerBlocks } from './proxy-ssl.js';
import { trafficHttpOf } from './traffic.js';
import { globalReadsIngressVars, ingressVarsHttpLines } from './ingress-vars.js';
import { scanServers } from './server-facts.js';
import { keptDeps, serverRefs } from './kept-deps.js';
import { passthroughHttpLines, streamSection, streamSnippets } from './stream.js';
import { splitDynamic, type DynamicSplit } from './dynamic-routes.js';
import { withRoutes, type RouteGate } from './route-push.js';
import { ROUTE_HSTS_MAP } from './dynamic-profiles.js';
import { gatewayHttpLines } from './gateway.js';
import { misdirectHttpLines } from './misdirected.js';
import { HASH_PLACEHOLDER, internalServers, mainLines } from './conf-main.js';
import { ctxOf, type RenderOptions } from './options.js';
import { serverBlock } from './server-block.js';

export type { RenderOptions } from './options.js';

export interface RenderedConf {
  readonly text: string;
  /** sha256 of everything else in the text; nginx answers it on `/portico/config-hash` of the status port. */
  readonly hash: string;
  /** Its worker_shutdown_timeout: how long a graceful quit of nginx may take. */
  readonly shutdownTimeoutSeconds: number;
  /** Where each server block is in `text` (1-based lines, `last` its closing brace), in the model's order. */
  readonly serverLines: readonly ServerLines[];
  /** With --enable-dynamic-routes and a dynamic catch-all: the route table for POST /configuration/routes (JSON), built when first read. */
  readonly routes?: string;
  /** With `routes`: each routed host's entry in it ('_': the default), so a push can carry only the changed hosts. */
  readonly routeHosts?: ReadonlyMap<string, string>;
  /** An id that is the same for the same route table and changes with it: set by the build worker's wire (worker/conf-wire.ts), so a sync compares ids, not tables; absent: compare `routes`. */
  readonly routesId?: string;
  /** With `routes`: what this conf's workers can route of a table (render/route-push.ts RouteGate). */
  readonly routeGate?: RouteGate;
}

/** One server block of a rendered nginx.conf: its host, its first and last line, and its locations'. */
export interface ServerLines {
  readonly host: string;
  readonly first: number;
  readonly last: number;
  /** Each location's first and last line, in the order of the server's locations (none in the dynamic catch-all). */
  readonly locations: readonly (readonly [number, number])[];
}

/** The server blocks, one text each, each from the memo when everything it is made of is unchanged. */
function servers(model: Model, o: RenderOptions, upstreams: ReadonlyMap<string, Upstream>, dyn: DynamicSplit | undefined): ({ host: string } & BlockText)[] {
  const list = dyn?.servers ?? model.servers;
  const parts = { stream: model.stream, dyn, gateway: model.gateway, misdirect: model.misdirect !== undefined, ...(model.gatewayPorts ? { gatewayPorts: model.gatewayPorts } : {}) };
  const memo = o.memo;
  if (!memo) return list.map((s) => ({ host: s.host, ...serverBlock(s, o, model.tls, upstreams, parts) }));
  const context = JSON.stringify([
    { ...o, memo: undefined },
    model.tls.settings,
    model.stream ?? null,
    model.gateway ?? null,
    model.gatewayPorts ?? null,
    dyn?.locations ?? null,
    model.misdirect !== undefined,
  ]);
  memo.begin(context);
  // A server of the last render (the same object, after an incremental sync) with the same TLS entries and upstreams
  // takes its block by identity, without serializing it (render/identity-memo.ts, docs/adr/0043).
  memo.byServer.begin(context);
  const deps = (s: Server) => (kept: { readonly block: Block }) => keptDeps(s, model.tls, upstreams, kept.block.upstreams.keys());
  const out = list.map((s) => {
    const { block } = memo.byServer.get(
      s,
      deps(s),
      () => {
        const input = JSON.stringify([s, tlsServerOf(model.tls, s.host) ?? null, serverRefs(s).owners.map((k) => model.tls.ingresses[k] ?? null)]);
        return memo.keyed(input, upstreams, (get) => serverBlock(s, o, model.tls, { get }, parts));
      },
      (k) => memo.carry(k.key, k.block),
    );
    return { host: s.host, text: block.text, marks: block.marks };
  });
  memo.end();
  return out;
}

/** Lines in `text` (one more than its newlines), counted without splitting it. */
function lineCount(text: string): number {
  let n = 1;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n += 1;
  return n;
}

/** The whole nginx.conf for a model. */
export function renderNginxConf(model: Model, given: RenderOptions): RenderedConf {
  // what the http-level lines read of every server, folded once (render/server-facts.ts)
  const facts = scanServers(model.servers, given.global ?? GLOBAL_DEFAULTS, given.memo?.facts);
  const o: RenderOptions = facts.readsVars || globalReadsIngressVars(given.global ?? GLOBAL_DEFAULTS, given.headers) ? { ...given, ingressVars: true } : given;
  const upstreams = new Map(model.upstreams.map((u) => [u.name, u]));
  const dyn = o.dynamicRoutes === true ? splitDynamic(model, upstreams, ctxOf(o), { metrics: o.metrics === true, ingressVars: o.ingressVars === true }, o.memo?.routes) : undefined;
  const streamSnips = streamSnippets(o.global, model.servers);
  const traces = facts.traced;
  const head = [
    ...mainLines(o, model.tls, model.stream, streamSnips, traces),
    ...gatewayHttpLines(model.gateway, upstreamKeepalive(o.global ?? GLOBAL_DEFAULTS)),
    ...misdirectHttpLines(model.misdirect),
    ...resolverLines(o.resolvers),
    ...authHttpLinesOf(facts.authExternal, facts.authCache, o.workDir),
    ...trafficHttpOf(facts.traffic, o.global ?? GLOBAL_DEFAULTS),
    ...passthroughHttpLines(model.stream, o.global ?? GLOBAL_DEFAULTS),
    ...(dyn && model.tls.settings.hsts ? [ROUTE_HSTS_MAP] : []),
    ...ingressVarsHttpLines(o.ingressVars === true),
    ...internalServers(o, traces),
  ];
  const blocks = servers(model, o, upstreams, dyn);
  head.push(
    ...tlsBalancerBlocks(
      blocks.map((b) => b.text),
      upstreamKeepalive(o.global ?? GLOBAL_DEFAULTS),
    ),
  );
  const headText = head.join('\n');
  // an element may hold several lines (a map block, a memoized server)
  let line = lineCount(headText);
  const serverLines = blocks.map((b) => {
    const first = line + 1;
    line += lineCount(b.text);
    return { host: b.host, first, last: line, locations: b.marks.map(([f, l]): [number, number] => [first + f, first + l]) };
  });
  const body = [headText, ...blocks.map((b) => b.text), '}', ...streamSection(model.stream, o, streamSnips), ''].join('\n');
  const hash = sha256(body);
  const shutdownTimeoutSeconds = (o.global ?? GLOBAL_DEFAULTS).workerShutdownTimeout;
  const conf = { text: body.replace(HASH_PLACEHOLDER, hash), hash, shutdownTimeoutSeconds, serverLines };
  return dyn ? withRoutes(conf, dyn.routeHosts, dyn.gate) : conf;
}
