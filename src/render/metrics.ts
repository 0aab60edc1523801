// The nginx.conf lines of per-request metrics (lua/portico/metrics.lua): the dict, the log hook, each location's labels.
import type { Location, Server, Upstream } from '../model/types.js';
import { quote } from './escape.js';

/** The shared dict the log phase flushes into; 16 MiB holds a few thousand label sets (sparse histogram slots). */
const METRICS_DICT = 'portico_metrics';

/**
 * http-level lines: one `log_by_lua_block` that every location without a log hook of its own inherits (locations
 * with one, ewma, call the same counter from portico.balancer.log), the dict, and nothing when metrics are off.
 */
export function metricsHttpLines(enabled: boolean): string[] {
  if (!enabled) return [];
  return [`    lua_shared_dict ${METRICS_DICT} 16m;`, '    log_by_lua_block { require("portico.metrics").log() }'];
}

/**
 * The flush timer started in init_worker_by_lua (appended to the balancer's call), or '' when metrics are off; with
 * `undefinedHosts` (--metrics-per-undefined-host) the requests marked UNDEFINED_HOST are counted under their host.
 */
export function metricsInitWorker(enabled: boolean, undefinedHosts = false): string {
  return enabled ? ` require("portico.metrics").init_worker(${undefinedHosts ? '{ undefined_hosts = true }' : ''})` : '';
}

/** The labels of a request no Ingress's host defines: metrics.lua counts it under its $host, or not at all. */
const UNDEFINED_HOST = '?';

/** One label value: the separator `|` never occurs in names the model accepts; replaced anyway, never trusted. */
const label = (v: string): string => (v.includes('|') ? v.replace(/\|/g, '_') : v);

/**
 * The labels of a location proxying to a backend, in the order metrics.lua and src/metrics/requests.ts read them:
 * namespace|ingress|service|host|upstream. All of them come from the model (the server's host as the Ingress
 * wrote it, not the request's Host header): the number of label sets is bounded by the Ingresses, never by clients.
 */
export function metricsLabels(s: Pick<Server, 'host'>, l: Location, upstream: Upstream | undefined): string | undefined {
  if (l.target.kind !== 'upstream') return undefined;
  const service = upstream?.service.name ?? '';
  return `${label(l.target.ingress.namespace)}|${label(l.target.ingress.name)}|${label(service)}|${label(s.host)}|${label(l.target.upstream)}`;
}

/**
 * The location's `set $portico_metrics ...;` line, or none (metrics off, or a location that proxies nowhere). The
 * catch-all server's 404 locations answer the hosts no Ingress defines: with `undefinedHosts` they are marked so.
 */
export function metricsLocationLines(enabled: boolean, s: Pick<Server, 'host'>, l: Location, upstream: Upstream | undefined, undefinedHosts = false): string[] {
  if (enabled && undefinedHosts && s.host === '_' && l.target.kind === 'not-found') return [`            set $portico_metrics ${quote(UNDEFINED_HOST)};`];
  const labels = enabled ? metricsLabels(s, l, upstream) : undefined;
  if (labels === undefined) return [];
  return [`            set $portico_metrics ${quote(labels)};`];
}
