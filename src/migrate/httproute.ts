// `migrate-check --httproute`: the HTTPRoutes (Gateway API v1, standard channel) that express an Ingress, and the
// annotations and fields with no Gateway API equivalent. Pure: snapshot in, objects and notes out.
import type { HTTPIngressPath, IngressBackend } from 'kubernetes-types/networking/v1.js';
import type { Ingress, Snapshot } from '../model/input.js';
import { byName } from '../model/lookup.js';
import type { HTTPBackendRef, HTTPRouteFilter, HTTPRouteMatch, HTTPRouteRule, ParentReference } from '../model/gateway/api.js';
import { ANNOTATION_NOTES, CANARY_MAPPED, MAPPED } from './httproute-notes.js';
import { BY_KEY } from '../annotations/table.js';
import { COMPAT_ANNOTATION_BY_KEY } from '../annotations/table-without-setting.js';
import { REMOVED_ANNOTATIONS } from '../annotations/ingress-nginx-lists.js';
import { nsKey } from '../model/keys.js';
import { CORS_MAPPED, corsFilter } from './httproute-cors.js';

/** One annotation or field left behind, and why. */
export interface Unmapped {
  readonly key: string;
  readonly value: string;
  readonly why: string;
}

export interface RouteConversion {
  readonly namespace: string;
  readonly name: string;
  /** The HTTPRoutes, as manifests (one per host of the Ingress; none for a canary, merged into its main Ingress's). */
  readonly httpRoutes: readonly Record<string, unknown>[];
  readonly unmapped: readonly Unmapped[];
  /** What the routes do differently from ingress-nginx, though expressed. */
  readonly differences: readonly string[];
}

export interface ConversionOptions {
  /** --annotations-prefix. */
  readonly prefix: string;
  /** The Gateway the routes attach to. */
  readonly parent: ParentReference;
}

type Notes = { unmapped: Unmapped[]; differences: string[] };

const isCanary = (ing: Ingress, prefix: string): boolean => ing.metadata?.annotations?.[`${prefix}/canary`] === 'true';
const keyOf = (ing: Ingress): string => nsKey(ing);

/** A Service backend as a backendRef: a named port is looked up on the Service (backendRefs take numbers only). */
function backendRef(snap: Snapshot, ns: string, b: IngressBackend | undefined, field: string, notes: Notes): HTTPBackendRef | undefined {
  const svc = b?.service;
  if (!svc) {
    notes.unmapped.push({ key: field, value: b?.resource?.kind ?? '', why: 'a resource backend has no HTTPRoute equivalent (backendRefs name Services)' });
    return undefined;
  }
  let port = svc.port?.number;
  if (port === undefined && svc.port?.name !== undefined) {
    port = byName(snap.services, ns, svc.name)?.spec?.ports?.find((p) => p.name === svc.port?.name)?.port;
    if (port === undefined) {
      notes.unmapped.push({ key: `${field}.service.port.name`, value: svc.port.name, why: `Service ${ns}/${svc.name} has no port of that name: backendRefs need a port number` });
      return undefined;
    }
  }
  return { name: svc.name, ...(port !== undefined ? { port } : {}) };
}

/** The path match, as ingress-nginx would match it (ImplementationSpecific is a prefix, or a regex with use-regex/rewrite-target). */
function pathMatch(p: HTTPIngressPath, regex: boolean, field: string, notes: Notes): HTTPRouteMatch['path'] {
  const value = p.path ?? '/';
  if (regex) {
    notes.differences.push(`${field}: regex ${JSON.stringify(value)} becomes RegularExpression (ingress-nginx matches it case-insensitively from the path's start, ~*)`);
    return { type: 'RegularExpression', value };
  }
  if (p.pathType === 'Exact') return { type: 'Exact', value };
  if (p.pathType === 'ImplementationSpecific') notes.differences.push(`${field}: ImplementationSpecific becomes PathPrefix (whole path elements; ingress-nginx matches a string prefix)`);
  return { type: 'PathPrefix', value };
}

/** Filters every rule of the Ingress gets from its annotations (rewrite-target, upstream-vhost, x-forwarded-prefix). */
function annotationFilters(a: Readonly<Record<string, string>>, prefix: string, regex: boolean, notes: Notes): HTTPRouteFilter[] {
  const get = (k: string): string | undefined => a[`${prefix}/${k}`];
  // nginx's rewrite replaces the whole URI with a target that has no captures: ReplaceFullPath, not ReplacePrefixMatch.
  const filters: HTTPRouteFilter[] = [];
  const rewrite = get('rewrite-target');
  const host = get('upstream-vhost');
  const target = rewrite !== undefined && !rewrite.includes('$') && !regex ? rewrite : undefined;
  if (rewrite !== undefined && target === undefined) {
    notes.unmapped.push({
      key: `${prefix}/rewrite-target`,
      value: rewrite,
      why: rewrite.includes('$')
        ? 'a rewrite with regex captures has no equivalent: URLRewrite replaces the whole path or the matched prefix'
        : "with use-regex the paths are regexes: write the URLRewrite by hand (ReplaceFullPath replaces the whole path, as nginx's rewrite does)",
    });
  }
  if (target !== undefined || host !== undefined) {
    filters.push({
      type: 'URLRewrite',
      urlRewrite: { ...(host !== undefined ? { hostname: host } : {}), ...(target !== undefined ? { path: { type: 'ReplaceFullPath', replaceFullPath: target } } : {}) },
    });
  }
  const fwd = get('x-forwarded-prefix');
  if (fwd !== undefined) filters.push({ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-Forwarded-Prefix', value: fwd }] } });
  return filters;
}

/** A redirect annotation as a RequestRedirect filter (statusCode 301, 302, 303, 307 or 308), or undefined. */
function redirectFilter(a: Readonly<Record<string, string>>, prefix: string, notes: Notes): HTTPRouteFilter | undefined {
  const permanent = a[`${prefix}/permanent-redirect`];
  const url = permanent ?? a[`${prefix}/temporal-redirect`];
  if (url === undefined) return undefined;
  const key = `${prefix}/${permanent !== undefined ? 'permanent' : 'temporal'}-redirect`;
  const code = permanent !== undefined ? Number(a[`${prefix}/permanent-redirect-code`] ?? '301') : 302;
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    notes.unmapped.push({ key, value: url, why: 'not an absolute URL' });
    return undefined;
  }
  if (![301, 302, 303, 307, 308].includes(code)) {
    notes.unmapped.push({ key: `${prefix}/permanent-redirect-code`, value: String(code), why: 'RequestRedirect statusCode is 301, 302, 303, 307 or 308' });
    return undefined;
  }
  notes.differences.push(`${key}: RequestRedirect keeps the request's query string; ingress-nginx redirects to the URL as written`);
  return {
    type: 'RequestRedirect',
    requestRedirect: {
      scheme: u.protocol.slice(0, -1),
      hostname: u.hostname,
      ...(u.port ? { port: Number(u.port) } : {}),
      path: { type: 'ReplaceFullPath', replaceFullPath: u.pathname },
      statusCode: code,
    },
  };
}

/** Canary Ingresses of the same host and path: weights, and header rules ("always"/"never", or canary-by-header-value). */
function withCanaries(rule: HTTPRouteRule, main: HTTPBackendRef, canaries: readonly { ref: HTTPBackendRef; a: Readonly<Record<string, string>> }[], prefix: string): HTTPRouteRule[] {
  if (canaries.length === 0) return [{ ...rule, backendRefs: [main] }];
  const [c] = canaries;
  if (!c) return [{ ...rule, backendRefs: [main] }];
  const get = (k: string): string | undefined => c.a[`${prefix}/${k}`];
  const total = Number(get('canary-weight-total') ?? '100');
  const weight = Number(get('canary-weight') ?? '0');
  const match = rule.matches?.[0] ?? {};
  const out: HTTPRouteRule[] = [];
  const header = get('canary-by-header');
  if (header !== undefined) {
    const value = get('canary-by-header-value');
    out.push({ ...rule, matches: [{ ...match, headers: [{ type: 'Exact', name: header, value: value ?? 'always' }] }], backendRefs: [c.ref] });
    if (value === undefined) out.push({ ...rule, matches: [{ ...match, headers: [{ type: 'Exact', name: header, value: 'never' }] }], backendRefs: [main] });
  }
  out.push({
    ...rule,
    backendRefs: [
      { ...main, weight: Math.max(total - weight, 0) },
      { ...c.ref, weight },
    ],
  });
  return out;
}

/** The annotations (of the prefix) and spec.tls entries no HTTPRoute field expresses. */
function leftBehind(ing: Ingress, prefix: string, canary: boolean, notes: Notes, expressed: ReadonlySet<string>): void {
  const a = ing.metadata?.annotations ?? {};
  for (const key of Object.keys(a)
    .filter((k) => k.startsWith(`${prefix}/`))
    .sort()) {
    const short = key.slice(prefix.length + 1);
    if (MAPPED.has(short) || expressed.has(short) || (canary && CANARY_MAPPED.has(short))) continue;
    if (short === 'ssl-redirect' && a[key] === 'false') continue; // a route on an HTTP listener is not redirected
    const known = BY_KEY.has(short) || COMPAT_ANNOTATION_BY_KEY.has(short) || REMOVED_ANNOTATIONS[short] !== undefined;
    notes.unmapped.push({
      key,
      value: a[key] ?? '',
      why:
        ANNOTATION_NOTES[short] ?? (known ? 'no HTTPRoute field in the standard channel: Portico applies it to Ingresses only' : 'neither Portico nor ingress-nginx knows this annotation (a typo?)'),
    });
  }
  (ing.spec?.tls ?? []).forEach((t, i) => {
    notes.unmapped.push({
      key: `spec.tls[${i}]`,
      value: t.secretName ?? '',
      why: `the certificate belongs to the Gateway: an HTTPS listener (port 443) with tls.certificateRefs to Secret ${ing.metadata?.namespace ?? 'default'}/${t.secretName ?? '?'} for ${(t.hosts ?? []).join(', ') || 'its hosts'}`,
    });
  });
}

/** The conversion of one Ingress; `all` are the Ingresses of the class (canaries of the same host and path merge in). */
export function convertIngress(snap: Snapshot, ing: Ingress, all: readonly Ingress[], opts: ConversionOptions): RouteConversion {
  const namespace = ing.metadata?.namespace ?? 'default';
  const name = ing.metadata?.name ?? '';
  const a = ing.metadata?.annotations ?? {};
  const notes: Notes = { unmapped: [], differences: [] };
  const canary = isCanary(ing, opts.prefix);
  const cors = canary ? undefined : corsFilter(a, opts.prefix, notes);
  // With enable-cors "true" the CORS annotations are the filter (or, for a refused value, one entry left behind).
  leftBehind(ing, opts.prefix, canary, notes, new Set(a[`${opts.prefix}/enable-cors`] === 'true' && !canary ? CORS_MAPPED : []));
  if (canary) {
    const main = all.find(
      (o) => o !== ing && !isCanary(o, opts.prefix) && (o.metadata?.namespace ?? 'default') === namespace && (o.spec?.rules ?? []).some((r) => (ing.spec?.rules ?? []).some((x) => x.host === r.host)),
    );
    notes.differences.push(main ? `a canary: merged into the HTTPRoute of Ingress ${keyOf(main)} (weights, header rules)` : 'a canary without a main Ingress on its host: no HTTPRoute');
    return { namespace, name, httpRoutes: [], unmapped: notes.unmapped, differences: notes.differences };
  }
  const regex = a[`${opts.prefix}/use-regex`] === 'true' || (a[`${opts.prefix}/rewrite-target`]?.includes('$') ?? false);
  const filters = [...annotationFilters(a, opts.prefix, regex, notes), ...(cors ? [cors] : [])];
  const redirect = redirectFilter(a, opts.prefix, notes);
  const canaries = all.filter((o) => isCanary(o, opts.prefix) && (o.metadata?.namespace ?? 'default') === namespace);
  const hosts = new Map<string, HTTPRouteRule[]>();
  const appRoot = a[`${opts.prefix}/app-root`];
  (ing.spec?.rules ?? []).forEach((r, i) => {
    const rules = hosts.get(r.host ?? '') ?? [];
    hosts.set(r.host ?? '', rules);
    if (appRoot !== undefined && rules.length === 0)
      rules.push({
        matches: [{ path: { type: 'Exact', value: '/' } }],
        filters: [{ type: 'RequestRedirect', requestRedirect: { path: { type: 'ReplaceFullPath', replaceFullPath: appRoot }, statusCode: 302 } }],
      });
    (r.http?.paths ?? []).forEach((p, j) => {
      const field = `spec.rules[${i}].http.paths[${j}]`;
      const matches = [{ path: pathMatch(p, regex, field, notes) }];
      if (redirect) {
        rules.push({ matches, filters: [redirect] });
        return;
      }
      const ref = backendRef(snap, namespace, p.backend, `${field}.backend`, notes);
      if (!ref) return;
      const mine = canaries.flatMap((c) =>
        (c.spec?.rules ?? [])
          .filter((x) => x.host === r.host)
          .flatMap((x) => x.http?.paths ?? [])
          .filter((cp) => cp.path === p.path)
          .flatMap((cp) => {
            const cref = backendRef(snap, namespace, cp.backend, `Ingress ${keyOf(c)} backend`, notes);
            return cref ? [{ ref: cref, a: c.metadata?.annotations ?? {} }] : [];
          }),
      );
      rules.push(...withCanaries({ matches, ...(filters.length > 0 ? { filters } : {}) }, ref, mine, opts.prefix));
    });
  });
  if (ing.spec?.defaultBackend) {
    const ref = backendRef(snap, namespace, ing.spec.defaultBackend, 'spec.defaultBackend', notes);
    const rules = hosts.get('') ?? [];
    hosts.set('', rules);
    if (ref) rules.push({ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [ref] });
    notes.differences.push('spec.defaultBackend: a route without hostnames, for requests to any host of the Gateway no more specific route takes');
  }
  const many = hosts.size > 1;
  const httpRoutes = [...hosts]
    .filter(([, rules]) => rules.length > 0)
    .map(([host, rules]) => ({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: many ? `${name}-${host === '' ? 'any-host' : host.replace(/^\*\./, 'wildcard.').replace(/\./g, '-')}`.slice(0, 253) : name, namespace },
      spec: { parentRefs: [opts.parent], ...(host !== '' ? { hostnames: [host] } : {}), rules },
    }));
  const unmapped = [...notes.unmapped].sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return { namespace, name, httpRoutes, unmapped, differences: notes.differences };
}
