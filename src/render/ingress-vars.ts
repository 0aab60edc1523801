// ingress-nginx's per-location variables naming what served a request: $namespace, $ingress_name, $service_name,
// $service_port and $location_path. Rendered only when something reads them (the access log format, an admin or
// Ingress snippet, a header value): then each location proxying to a backend (or, on a dynamic host, the router)
// sets one variable, $portico_ingress, and http-level maps split it, lazily, when a reader asks.
import type { GlobalSettings, ResolvedHeaders } from '../model/settings.js';
import type { Location, Server, Upstream } from '../model/types.js';
import { quoteLiteral } from './escape.js';

const NAMES = ['namespace', 'ingress_name', 'service_name', 'service_port', 'location_path'] as const;
const READS = new RegExp(`\\$(\\{(${NAMES.join('|')})\\}|(${NAMES.join('|')})(?![A-Za-z0-9_]))`);

/** True when nginx text (a log format, a snippet, a header value) reads one of the five variables. */
const readsIngressVars = (text: string | undefined): boolean => text !== undefined && READS.test(text);

/**
 * Whether the ConfigMap's settings or headers read them. Any of the configuration reading them renders them: these,
 * a server snippet or an Ingress's configuration snippet (serverReadsIngressVars, folded by render/server-facts.ts).
 */
export function globalReadsIngressVars(g: GlobalSettings, headers: ResolvedHeaders | undefined): boolean {
  return readsIngressVars(JSON.stringify(g)) || readsIngressVars(JSON.stringify(headers ?? null));
}

/** Whether a server's snippet or one of its Ingresses' configuration snippets reads them. */
export function serverReadsIngressVars(s: Server): boolean {
  return readsIngressVars(s.settings?.serverSnippet) || s.locations.some((l) => l.target.kind === 'upstream' && readsIngressVars(l.target.settings?.configurationSnippet));
}

/** The five values of a location proxying to a backend, `|`-separated (no name holds a `|`; the path comes last). */
export function ingressVarsValue(l: Location, upstream: Upstream | undefined): string | undefined {
  if (l.target.kind !== 'upstream') return undefined;
  // without the Upstream (a Service not found), its name `namespace_service_port` (model/names.ts) says both
  const [, name = '', port = ''] = l.target.upstream.split('_');
  const service = upstream ? [upstream.service.name, String(upstream.servicePort)] : [name, port];
  return [l.target.ingress.namespace, l.target.ingress.name, ...service, l.target.rule?.path ?? l.path].join('|');
}

/** The location's `set $portico_ingress ...;` line: a `$` of a regex path is written through $portico_dollar. */
export function ingressVarsLines(used: boolean, l: Location, upstream: Upstream | undefined): string[] {
  const value = used ? ingressVarsValue(l, upstream) : undefined;
  if (value === undefined) return [];
  const quoted = value
    .split('$')
    .map((part) => quoteLiteral(part).slice(1, -1))
    .join('${portico_dollar}');
  return [`            set $portico_ingress "${quoted}";`];
}

/** http{}: the literal `$` (geo never expands its values) and the five maps, each evaluated only when read. */
export function ingressVarsHttpLines(used: boolean): string[] {
  if (!used) return [];
  const field = (i: number): string => `"~^(?:[^|]*\\|){${i}}(${i === NAMES.length - 1 ? '.*' : '[^|]*'})" $1;`;
  return ['    geo $portico_dollar { default "$"; }', ...NAMES.map((name, i) => `    map $portico_ingress $${name} { default ""; ${field(i)} }`)];
}
