// Which form of each Ingress is served, purely (docs/adr/0016): a refused annotation that fails open is left out with a
// Warning; one that fails closed keeps the Ingress in its last form whose annotations all parsed, or not served.
import type { ConfigMap, Ingress, Snapshot } from '../model/input.js';
import { NO_SETTINGS, type AnnotationInput, type IngressSettings, type RiskLevel } from '../model/settings.js';
import type { ObjectRef, Problem } from '../model/types.js';
import { parseAnnotations, type AnnotationError } from './parse.js';
import { headerName, headerValue } from './values.js';
import { resolveAuth } from './auth-resolve.js';
import { resolveProxySsl } from './proxy-ssl-resolve.js';
import { GLOBAL_AUTH_DEFAULTS, type GlobalAuthSettings } from '../model/settings-auth.js';
import { refuseUrl, type TargetPolicy } from '../model/targets.js';
import { isSelfHostUrl } from './auth-urls.js';
import type { SnippetMode } from '../model/snippets/check.js';
import { byName } from '../model/lookup.js';
import { fastcgiParamsFrom } from './fastcgi.js';
import { failsClosed } from './refusal.js';
import { nsKey } from '../model/keys.js';

/** An Ingress as last accepted, with the settings its annotations gave. */
export interface Accepted {
  readonly ingress: Ingress;
  readonly settings: IngressSettings;
}

export interface SelectOptions {
  readonly prefix: string;
  readonly riskLevel: RiskLevel;
  readonly allowSnippets: boolean;
  /** --snippet-mode (default safe). */
  readonly snippetMode?: SnippetMode;
  readonly strictPaths: boolean;
  /** The ConfigMap's service-upstream (default of the annotation); absent: false. */
  readonly serviceUpstream?: boolean;
  /** True for the Ingresses this controller serves (others are not parsed nor reported). */
  readonly ours: (ing: Ingress) => boolean;
  /** Global auth and cross-namespace settings of the ConfigMap (default: none); with the ConfigMap's proxy buffers, which annotations are checked against. */
  readonly auth?: GlobalAuthSettings & { readonly proxyBufferSize?: string; readonly proxyBuffersNumber?: number };
  /** Where mirror-target and auth-url may point (absent: DEFAULT_TARGET_POLICY). */
  readonly targets?: TargetPolicy;
}

export interface Selection {
  /** The snapshot with each Ingress replaced by its last valid form (or removed). */
  readonly snapshot: Snapshot;
  readonly input: AnnotationInput;
  readonly problems: readonly Problem[];
  /** The new last-valid table, for the next sync. */
  readonly lastValid: ReadonlyMap<string, Accepted>;
}

function keyOf(ing: Ingress): string {
  return nsKey(ing);
}

/** Reads a ConfigMap of headers (`namespace/name`): each key a header name, each value its value. */
export function headersFrom(configMaps: readonly ConfigMap[], ref: string): { headers: [string, string][]; error?: string } {
  const [ns, name] = ref.split('/');
  const cm = byName(configMaps, ns, name);
  if (!cm) return { headers: [], error: `ConfigMap ${ref} not found` };
  const headers: [string, string][] = [];
  for (const k of Object.keys(cm.data ?? {}).sort()) {
    const n = headerName(k);
    const v = headerValue(cm.data?.[k] ?? '');
    if (!n.ok) return { headers: [], error: `ConfigMap ${ref}: ${n.reason}` };
    if (!v.ok) return { headers: [], error: `ConfigMap ${ref} key ${k}: ${v.reason}` };
    headers.push([n.value, v.value]);
  }
  return { headers };
}

/** The URLs an Ingress proxies to (mirror-target, auth-url) that the target policy refuses; redirects are the browser's. */
function refusedTargets(s: IngressSettings, o: SelectOptions): AnnotationError[] {
  const urls: [string, string | undefined][] = [
    ['mirror-target', s.location.traffic?.mirror?.target],
    ['auth-url', s.location.auth?.external?.url],
  ];
  return urls.flatMap(([name, url]) => {
    // A $host auth-url goes to Portico's own listener for the request's host, never resolved (annotations/auth-urls.ts).
    const reason = url === undefined || (name === 'auth-url' && isSelfHostUrl(url)) ? undefined : refuseUrl(url, o.targets);
    return reason === undefined ? [] : [{ annotation: `${o.prefix}/${name}`, reason }];
  });
}

/** Parses an Ingress's annotations and resolves the ConfigMaps they name. */
function settle(ing: Ingress, snap: Snapshot, o: SelectOptions, warned: AnnotationError[]): { settings: IngressSettings; errors: AnnotationError[] } {
  const namespace = ing.metadata?.namespace ?? 'default';
  const buffers = o.auth?.proxyBufferSize !== undefined ? { proxyBuffers: { size: o.auth.proxyBufferSize, number: o.auth.proxyBuffersNumber ?? 4 } } : {};
  const parsed = parseAnnotations(ing.metadata?.annotations, { prefix: o.prefix, riskLevel: o.riskLevel, allowSnippets: o.allowSnippets, snippetMode: o.snippetMode ?? 'safe', namespace, ...buffers });
  const errors = [...parsed.errors, ...refusedTargets(parsed.settings, o)];
  warned.push(...parsed.warnings);
  let settings = parsed.settings;
  const ref = settings.location.customHeaders;
  if (ref !== undefined) {
    const r = headersFrom(snap.configMaps, ref);
    if (r.error !== undefined) errors.push({ annotation: `${o.prefix}/custom-headers`, reason: r.error });
    // As ingress-nginx (1.12+): only the names of the ConfigMap's global-allowed-response-headers, compared exactly.
    const allowed = (o.auth ?? GLOBAL_AUTH_DEFAULTS).allowedResponseHeaders;
    const stray = r.headers.map(([h]) => h).filter((h) => !allowed.includes(h));
    if (stray.length > 0) {
      errors.push({
        annotation: `${o.prefix}/custom-headers`,
        reason: `ConfigMap ${ref}: header ${stray.join(', ')} is not in the ConfigMap's global-allowed-response-headers (${allowed.length > 0 ? allowed.join(',') : 'empty'})`,
      });
    }
    settings = { ...settings, location: { ...settings.location, responseHeaders: r.headers } };
  }
  const fcgi = settings.location.fastcgi;
  if (fcgi?.paramsConfigMap !== undefined && settings.location.backendProtocol === 'FCGI') {
    const r = fastcgiParamsFrom(snap.configMaps, fcgi.paramsConfigMap);
    if (r.error !== undefined) errors.push({ annotation: `${o.prefix}/fastcgi-params-configmap`, reason: r.error });
    settings = { ...settings, location: { ...settings.location, fastcgi: { ...fcgi, params: r.params } } };
  }
  return { settings, errors };
}

interface Settled {
  readonly settings: IngressSettings;
  /** Refusals that keep the Ingress from being served as it is (one of them fails closed). */
  readonly errors: readonly AnnotationError[];
  /** Refusals of annotations that fail open: the Ingress is served without them. */
  readonly ignored: readonly AnnotationError[];
  readonly warned: readonly AnnotationError[];
}

/**
 * settle(), and while every refusal is of an annotation that fails open, settle() again without those annotations
 * (leaving one out can refuse another: proxy-redirect-to without its -from). Ends: each round removes an annotation.
 */
function settleServing(ing: Ingress, snap: Snapshot, o: SelectOptions): Settled {
  const annotations = new Map(Object.entries(ing.metadata?.annotations ?? {}));
  const ignored: AnnotationError[] = [];
  for (;;) {
    const warned: AnnotationError[] = [];
    const r = settle({ ...ing, metadata: { ...ing.metadata, annotations: Object.fromEntries(annotations) } }, snap, o, warned);
    const open = r.errors.filter((e) => annotations.has(e.annotation) && failsClosed(e.annotation.slice(o.prefix.length + 1)) === undefined);
    if (r.errors.length === 0) return { settings: r.settings, errors: [], ignored, warned };
    if (open.length < r.errors.length) return { settings: r.settings, errors: [...ignored, ...r.errors], ignored: [], warned };
    for (const e of open) annotations.delete(e.annotation);
    ignored.push(...open);
  }
}

/** The location settings every Ingress without any shares (one object: what is memoized by it is found once). */
const NO_LOCATION_SETTINGS = NO_SETTINGS.location;

function sharedWhenEmpty(s: IngressSettings): IngressSettings {
  return s.location === NO_LOCATION_SETTINGS || Object.keys(s.location).length > 0 ? s : { ...s, location: NO_LOCATION_SETTINGS };
}

/**
 * Parses the annotations of our Ingresses. A refused annotation that fails open is left out: the Ingress is served
 * without it (a 'degraded' problem). One that fails closed keeps the Ingress in its last accepted form (a 'degraded'
 * problem) or leaves it out (a 'dropped' one). Every problem names the annotation and why.
 */
export function selectIngresses(snap: Snapshot, previous: ReadonlyMap<string, Accepted>, o: SelectOptions): Selection {
  const lastValid = new Map<string, Accepted>();
  const settings = new Map<string, IngressSettings>();
  const problems: Problem[] = [];
  const ingresses: Ingress[] = [];
  for (const ing of snap.ingresses) {
    if (!o.ours(ing)) {
      ingresses.push(ing);
      continue;
    }
    const key = keyOf(ing);
    const { settings: s, errors, ignored, warned } = settleServing(ing, snap, o);
    const chosen: Accepted | undefined = errors.length === 0 ? { ingress: ing, settings: s } : previous.get(key);
    const object: ObjectRef = { kind: 'Ingress', namespace: ing.metadata?.namespace ?? 'default', name: ing.metadata?.name ?? '' };
    const field = (e: AnnotationError): string => `metadata.annotations[${e.annotation}]`;
    // Said once, at the end (src/migrate/check.ts strips it); why an annotation fails closed is its row in refusal.ts.
    const fate = chosen ? 'the Ingress keeps its last valid form' : 'the Ingress is not served';
    for (const e of errors) problems.push({ object, field: field(e), reason: `${e.reason}; ${fate}`, severity: chosen ? 'degraded' : 'dropped' });
    for (const e of ignored) problems.push({ object, field: field(e), reason: `${e.reason}; the Ingress is served without this annotation`, severity: 'degraded' });
    for (const w of warned) problems.push({ object, field: field(w), reason: w.reason, severity: 'degraded' });
    if (!chosen) continue;
    lastValid.set(key, chosen);
    const global = o.auth ?? GLOBAL_AUTH_DEFAULTS;
    const auth = resolveAuth(chosen.settings, snap, object, { prefix: o.prefix, global });
    const ssl = resolveProxySsl(auth.settings, snap, object, { prefix: o.prefix, allowCrossNamespace: global.allowCrossNamespaceResources });
    problems.push(...auth.problems, ...ssl.problems);
    settings.set(key, sharedWhenEmpty(ssl.settings));
    ingresses.push(chosen.ingress);
  }
  return { snapshot: { ...snap, ingresses }, input: { settings, strictPaths: o.strictPaths, ...(o.serviceUpstream === true ? { serviceUpstream: true } : {}) }, problems, lastValid };
}
