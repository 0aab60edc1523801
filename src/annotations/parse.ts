// Pure parsing of one Ingress's annotations through the table: typed settings, or the reasons they were refused.
import { RISK_ORDER, type IngressSettings, type RiskLevel, type UpstreamSettings } from '../model/settings.js';
import { BY_KEY, type Draft } from './table.js';
import { combineAuth } from './table-auth.js';
import { combineTls } from './table-tls.js';
import { compatVerdict } from './table-without-setting.js';
import { snippetRefusal, type SnippetMode } from '../model/snippets/check.js';
import type { Context } from '../model/snippets/allowlist.js';

export interface ParseOptions {
  /** e.g. `nginx.ingress.kubernetes.io`. */
  readonly prefix: string;
  /** Annotations rated above this level are refused. */
  readonly riskLevel: RiskLevel;
  readonly allowSnippets: boolean;
  /** --snippet-mode (default safe): refuse, safe (the allowlist of docs/adr/0012) or any (ingress-nginx's behaviour). */
  readonly snippetMode?: SnippetMode;
  /** Namespace of the Ingress: object references in annotations may not leave it. */
  readonly namespace: string;
  /** The ConfigMap's proxy-buffer-size and proxy-buffers-number, which the location inherits (default 4k and 4). */
  readonly proxyBuffers?: { readonly size: string; readonly number: number };
}

export interface AnnotationError {
  /** The full annotation key. */
  readonly annotation: string;
  readonly reason: string;
}

export interface Parsed {
  readonly settings: IngressSettings;
  readonly errors: readonly AnnotationError[];
  /** Names ignored with a Warning (removed upstream, or unknown): the Ingress is served. */
  readonly warnings: readonly AnnotationError[];
}

function riskAbove(risk: RiskLevel, level: RiskLevel): boolean {
  return RISK_ORDER.indexOf(risk) > RISK_ORDER.indexOf(level);
}

/** Why a known annotation may not be used under these options, or undefined. */
function gate(name: string, o: ParseOptions): string | undefined {
  const spec = BY_KEY.get(name);
  if (!spec) return undefined;
  const mode = o.snippetMode ?? 'safe';
  if (spec.snippet && mode === 'refuse') return 'snippet annotations are refused (--snippet-mode=refuse)';
  if (name === 'stream-snippet' && mode === 'safe') {
    return "a stream-snippet acts on every TCP/UDP service, not on this Ingress: refused under --snippet-mode=safe (the ConfigMap's stream-snippet takes stream-wide timeouts and access lists; --snippet-mode=any takes any, docs/adr/0012)";
  }
  // In safe mode a snippet holds only allowlisted directives (docs/adr/0012): it is judged as a High annotation.
  const risk = spec.snippet && mode === 'safe' ? 'High' : spec.risk;
  if (riskAbove(risk, o.riskLevel))
    return `the annotation is rated ${risk}${spec.snippet && mode === 'safe' ? ' (a snippet under --snippet-mode=safe)' : ''}, above --annotations-risk-level ${o.riskLevel}`;
  return undefined;
}

/**
 * Snippets follow ingress-nginx's opt-in (v1.9+): without allow-snippet-annotations (the ConfigMap key, else the flag;
 * default false) a snippet annotation is ignored with a Warning and the rest of the Ingress is served.
 */
export const SNIPPETS_OFF =
  'ignored: snippet annotations apply only when allow-snippet-annotations is true (the ConfigMap key, or --allow-snippet-annotations; default false, as in ingress-nginx); --snippet-mode then decides which snippets apply';

/** Where each snippet annotation lands in nginx.conf. */
const SNIPPET_CONTEXT: Readonly<Record<string, Context>> = { 'configuration-snippet': 'location', 'auth-snippet': 'location', 'server-snippet': 'server', 'stream-snippet': 'stream' };

/** The upstream settings: affinity only with `affinity: cookie`, its cookie defaults as ingress-nginx's. */
function upstreamOf(d: Draft): UpstreamSettings {
  const u = d.upstream;
  const c = d.cookie;
  const affinity =
    u.affinity === 'cookie'
      ? ({
          mode: c.mode ?? 'balanced',
          name: c.name ?? 'INGRESSCOOKIE',
          path: c.path ?? '/',
          ...(c.maxAge !== undefined ? { maxAge: c.maxAge } : {}),
          ...(c.expires !== undefined ? { expires: c.expires } : {}),
          ...(c.sameSite !== undefined ? { sameSite: c.sameSite } : {}),
          ...(c.secure !== undefined ? { secure: c.secure } : {}),
          ...(c.canaryBehavior === 'legacy' ? { canaryBehavior: 'legacy' as const } : {}),
        } as const)
      : undefined;
  return {
    ...(u.loadBalance !== undefined ? { loadBalance: u.loadBalance } : {}),
    ...(u.hashBy !== undefined ? { hashBy: u.hashBy } : {}),
    ...(u.hashBy !== undefined && u.hashSubset === true ? { hashSubset: u.hashSubsetSize ?? 3 } : {}),
    ...(u.serviceUpstream !== undefined ? { serviceUpstream: u.serviceUpstream } : {}),
    ...(affinity ? { affinity } : {}),
  };
}

/** Bytes of an nginx size (`8k`, `1m`, `1g`, `512`). */
function bytes(v: string): number {
  const m = /^(\d+)([kmg]?)$/.exec(v.toLowerCase());
  const unit = m?.[2] === 'g' ? 2 ** 30 : m?.[2] === 'm' ? 2 ** 20 : m?.[2] === 'k' ? 1024 : 1;
  return m ? Number(m[1]) * unit : Number.NaN;
}

/** Checks annotations that only make sense together, and those naming objects in other namespaces. */
function combine(d: Draft, o: ParseOptions, key: (n: string) => string, errors: AnnotationError[]): void {
  const r = d.redirect;
  if (r.temporal !== undefined) d.location.redirect = { url: r.temporal, code: r.temporalCode ?? 302 };
  else if (r.permanent !== undefined) d.location.redirect = { url: r.permanent, code: r.permanentCode ?? 301 };
  const from = d.location.redirectFrom;
  const to = d.location.redirectTo;
  if ((from === undefined) !== (to === undefined) && from !== 'off' && to !== 'off') {
    errors.push({ annotation: key(from === undefined ? 'proxy-redirect-to' : 'proxy-redirect-from'), reason: 'proxy-redirect-from and proxy-redirect-to go together' });
  }
  combineBuffers(d, o, key, errors);
  combineHeaderRefs(d, o, key, errors);
  combineBackend(d, o, key, errors);
}

/** nginx -t refuses these proxy buffer combinations for the whole configuration: refused here for their own Ingress. */
function combineBuffers(d: Draft, o: ParseOptions, key: (n: string) => string, errors: AnnotationError[]): void {
  // nginx -t refuses a temp file limit (other than 0) below the buffer size: the whole configuration would fail to load.
  const tmp = d.location.maxTempFileSize;
  // The effective size is the location's own, else the ConfigMap's (render/settings.ts and globals-http.ts render both so).
  const buffer = d.location.bufferSize ?? o.proxyBuffers?.size ?? '4k';
  if (tmp !== undefined && bytes(tmp) !== 0 && bytes(tmp) < bytes(buffer)) {
    errors.push({ annotation: key('proxy-max-temp-file-size'), reason: `${tmp} is below the proxy buffer size ${buffer} (nginx needs 0 or at least the buffer size)` });
  }
  const busy = d.location.busyBuffersSize;
  const count = d.location.buffersNumber ?? o.proxyBuffers?.number ?? 4;
  if (busy !== undefined && (bytes(busy) < bytes(buffer) || bytes(busy) > (count - 1) * bytes(buffer))) {
    errors.push({ annotation: key('proxy-busy-buffers-size'), reason: `${busy} must be from the proxy buffer size ${buffer} to all ${count} buffers but one (nginx refuses other values)` });
  }
}

/** The custom-headers ConfigMap stays in the Ingress's namespace. */
function combineHeaderRefs(d: Draft, o: ParseOptions, key: (n: string) => string, errors: AnnotationError[]): void {
  for (const [name, field] of [['custom-headers', 'customHeaders']] as const) {
    const ref = d.location[field];
    if (ref === undefined) continue;
    const [ns, obj] = ref.split('/');
    if (ns !== '' && ns !== o.namespace) {
      errors.push({ annotation: key(name), reason: `${ref} is in another namespace than the Ingress (${o.namespace})` });
    }
    d.location[field] = `${o.namespace}/${obj ?? ''}`;
  }
}

/** fastcgi-params-configmap stays in the Ingress's namespace; AUTO_HTTP cannot take proxy-redirect-from `default`. */
function combineBackend(d: Draft, o: ParseOptions, key: (n: string) => string, errors: AnnotationError[]): void {
  const fcgiRef = d.location.fastcgi?.paramsConfigMap;
  if (fcgiRef !== undefined) {
    const [ns, obj] = fcgiRef.split('/');
    if (ns !== '' && ns !== o.namespace) errors.push({ annotation: key('fastcgi-params-configmap'), reason: `${fcgiRef} is in another namespace than the Ingress (${o.namespace})` });
    d.location.fastcgi = { ...d.location.fastcgi, paramsConfigMap: `${o.namespace}/${obj ?? ''}` };
  }
  // nginx -t refuses `proxy_redirect default` beside a proxy_pass with a variable, which AUTO_HTTP's is.
  if (d.location.backendProtocol === 'AUTO_HTTP' && d.location.redirectFrom === 'default') {
    errors.push({ annotation: key('proxy-redirect-from'), reason: '"default" cannot go with backend-protocol AUTO_HTTP (nginx refuses it beside a proxy_pass with $scheme)' });
  }
}

/** Parses the annotations under `o.prefix`; other annotations are ignored. Errors name the annotation and why. */
export function parseAnnotations(annotations: Readonly<Record<string, string>> | undefined, o: ParseOptions): Parsed {
  const draft: Draft = { location: {}, server: {}, redirect: {}, upstream: {}, cookie: {}, auth: {}, tls: {} };
  const errors: AnnotationError[] = [];
  const warnings: AnnotationError[] = [];
  const key = (name: string): string => `${o.prefix}/${name}`;
  for (const full of Object.keys(annotations ?? {}).sort()) {
    if (!full.startsWith(`${o.prefix}/`)) continue;
    const name = full.slice(o.prefix.length + 1);
    const raw = annotations?.[full] ?? '';
    if (BY_KEY.get(name)?.snippet === true && !o.allowSnippets && (o.snippetMode ?? 'safe') !== 'refuse') {
      warnings.push({ annotation: full, reason: SNIPPETS_OFF });
      continue;
    }
    const refused = gate(name, o);
    if (refused) {
      errors.push({ annotation: full, reason: refused });
      continue;
    }
    const spec = BY_KEY.get(name);
    if (!spec) {
      const v = compatVerdict(name, raw);
      if (v.error !== undefined) errors.push({ annotation: full, reason: v.error });
      if (v.warning !== undefined) warnings.push({ annotation: full, reason: v.warning });
      continue;
    }
    const reason = (spec.snippet ? snippetRefusal(raw, o.snippetMode ?? 'safe', SNIPPET_CONTEXT[name] ?? 'location') : undefined) ?? spec.apply(spec.snippet ? raw : raw.trim(), draft);
    if (reason !== undefined) errors.push({ annotation: full, reason });
  }
  return finish(draft, o, key, errors, warnings);
}

/** The checks and settings that take several annotations together, once each has been read. */
function finish(draft: Draft, o: ParseOptions, key: (name: string) => string, errors: AnnotationError[], warnings: AnnotationError[]): Parsed {
  combine(draft, o, key, errors);
  // As ingress-nginx warns: a regex path is no cookie path, so the affinity cookie needs a path of its own.
  if (draft.upstream.affinity === 'cookie' && draft.location.useRegex === true && draft.cookie.path === undefined) {
    warnings.push({ annotation: key('session-cookie-path'), reason: 'session-cookie-path should be set when use-regex is true; the affinity cookie gets Path=/' });
  }
  if (draft.upstream.affinity === 'cookie') draft.location.affinityCookie = draft.cookie.path === undefined ? {} : { path: draft.cookie.path };
  combineAuth(draft, key, errors);
  const authTls = combineTls(draft);
  const canary = draft.location.traffic?.canary;
  if (canary && draft.cookie.canaryBehavior === 'legacy') draft.location.traffic = { ...draft.location.traffic, canary: { ...canary, legacyAffinity: true } };
  return { settings: { location: draft.location, server: draft.server, upstream: upstreamOf(draft), ...(authTls ? { authTls } : {}) }, errors, warnings };
}
