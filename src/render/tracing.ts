// nginx.conf lines of OpenTelemetry tracing (lua/portico/tracing.lua, docs/adr/0018): nothing when no location traces.
import type { Location, Server } from '../model/types.js';
import type { GlobalSettings } from '../model/settings.js';
import { exportPort, resolveTracing, type ResolvedTracing } from '../model/settings-tracing.js';
import { int, luaString } from './escape.js';

const I = '            ';
const LOG_HOOK = `${I}log_by_lua_block { require("portico.balancer").log() }`;

/** How a location traces, or undefined. Only locations that proxy to a backend do: the others answer from nginx. */
export function locationTracing(g: GlobalSettings, l: Location): ResolvedTracing | undefined {
  return l.target.kind === 'upstream' ? resolveTracing(g, l.target.settings?.tracing) : undefined;
}

/**
 * Does one of the server's locations trace? When any rendered location does, the http-level lines and the exporter
 * are rendered (render/server-facts.ts folds the servers' answers).
 */
export function serverTraced(g: GlobalSettings, s: Server): boolean {
  return s.locations.some((l) => locationTracing(g, l) !== undefined);
}

/**
 * Lines of the internal status server that declare the variables tracing sets, so that they exist in every server
 * (empty where nothing sets them): when tracing is used, or when log-format-upstream reads them (as with
 * ingress-nginx, whose otel module defines them whether a location traces or not).
 */
export function tracingDeclarations(g: GlobalSettings, used: boolean): string[] {
  if (!used && !/opentelemetry_(trace|span)_id/.test(g.logFormatUpstream ?? '')) return [];
  return ['        set $opentelemetry_trace_id ""; set $opentelemetry_span_id ""; set $portico_span "";'];
}

/** The exporter's settings, appended to init_worker_by_lua when some location traces. */
export function tracingInitWorker(g: GlobalSettings, used: boolean): string {
  if (!used) return '';
  const ratio = Number.isFinite(g.otelSamplerRatio) && g.otelSamplerRatio >= 0 && g.otelSamplerRatio <= 1 ? String(g.otelSamplerRatio) : '0';
  const fields = [
    ...(g.otlpCollectorHost !== undefined ? [`host = ${luaString(g.otlpCollectorHost)}`] : []),
    `port = ${int(exportPort(g))}`,
    `service = ${luaString(g.otelServiceName)}`,
    `sampler = ${luaString(g.otelSampler)}`,
    `ratio = ${ratio}`,
    `parent_based = ${g.otelSamplerParentBased ? 'true' : 'false'}`,
    `queue = ${int(g.otelMaxQueuesize)}`,
    `batch = ${int(Math.min(g.otelMaxExportBatchSize, g.otelMaxQueuesize))}`,
    `delay_ms = ${int(g.otelScheduleDelayMillis)}`,
  ];
  return ` require("portico.tracing").init_worker({ ${fields.join(', ')} })`;
}

/**
 * The span's fixed attributes, as tracing_export.lua reads them: namespace|name|service|host|route|kind, all from
 * the model (the server's host as written, the Ingress path), never from the request.
 */
function labelsOf(s: Pick<Server, 'host'>, l: Location, service: string): string {
  if (l.target.kind !== 'upstream') return '';
  const t = l.target;
  return [t.ingress.namespace, t.ingress.name, service, s.host, t.rule?.path ?? l.path, t.ingress.kind].map((x) => x.replace(/\|/g, '_')).join('|');
}

/**
 * The Lua hooks of a traced location: the start in its rewrite phase (before its own rewrite hooks), and one log
 * hook that also runs what the location's log phase ran without tracing (the balancer's, else the metrics').
 */
export function tracedHooks(t: ResolvedTracing | undefined, hooks: readonly string[], where: { server: Pick<Server, 'host'>; location: Location; service: string; metrics: boolean }): string[] {
  if (t === undefined) return [...hooks];
  const labels = labelsOf(where.server, where.location, where.service);
  const start = `${I}set_by_lua_block $opentelemetry_trace_id { return require("portico.tracing").start(${t.trust ? 'true' : 'false'}, ${luaString(t.operationName)}, ${luaString(labels)}) }`;
  const before = hooks.includes(LOG_HOOK) ? 'require("portico.balancer").log() ' : where.metrics ? 'require("portico.metrics").log() ' : '';
  const log = `${I}log_by_lua_block { ${before}require("portico.tracing").finish() }`;
  return [start, ...hooks.filter((h) => h !== LOG_HOOK), log];
}
