// The accumulator of one model build: each method takes one part of one Ingress, with Kubernetes' Ingress semantics
// (path and host conflicts by age, server-wide settings only from the host owner's namespace: docs/adr/0008).
import { byName } from './lookup.js';
import type { Ingress, Snapshot } from './input.js';
import type { IngressBackend } from 'kubernetes-types/networking/v1.js';
import type { BackendIndex, BackendRef } from './backends.js';
import { checkHost, checkLabel, checkPath, checkPathRelaxed, checkRegexPath } from './names.js';
import { normalizePath, type PathRule } from './routes.js';
import { claimAgeKey, type HostOwners } from './hosts.js';
import { sortByAge, type AgeKey } from './age-sort.js';
import { NO_SETTINGS, type AnnotationInput, type IngressSettings, type ServerSettings, type UpstreamSettings } from './settings.js';
import type { ObjectRef, Problem, Reason, Target, Upstream } from './types.js';
import { localeOrder, refKey } from './keys.js';
import { coded, problemOf } from './problems.js';

/** The server settings that reach every path of a host, with their annotation names. */
const SERVER_WIDE: readonly (readonly [keyof ServerSettings, string])[] = [
  ['serverSnippet', 'server-snippet'],
  ['serverAlias', 'server-alias'],
  ['fromToWwwRedirect', 'from-to-www-redirect'],
  ['sslCiphers', 'ssl-ciphers'],
  ['sslPreferServerCiphers', 'ssl-prefer-server-ciphers'],
];

/** Oldest first: creationTimestamp, then namespace/name (the conflict rule of DESIGN.md). */
export function byAge(a: Ingress, b: Ingress): number {
  const ta = a.metadata?.creationTimestamp ?? '9999';
  const tb = b.metadata?.creationTimestamp ?? '9999';
  if (ta !== tb) return Date.parse(ta) - Date.parse(tb) || (ta < tb ? -1 : 1);
  return localeOrder(refOf(a).namespace, refOf(b).namespace) || localeOrder(refOf(a).name, refOf(b).name);
}

/** byAge's key, for sortByAge (age-sort.ts): the same order with each timestamp parsed once. */
export function ingressAgeKey(ing: Ingress): AgeKey {
  const ref = refOf(ing);
  return { created: ing.metadata?.creationTimestamp, namespace: ref.namespace, name: ref.name, kind: '' };
}

/** Ingresses keep their `namespace/name` key; other kinds are told apart by kind. */
const rankKey = (r: ObjectRef): string => (r.kind === 'Ingress' ? refKey(r.namespace, r.name) : `${r.kind}:${r.namespace}/${r.name}`);

/** Served Ingresses, HTTPRoutes and GRPCRoutes, oldest first across the kinds: the age order of path and host conflicts. */
export function ageOrder(served: readonly Ingress[], snapshot: Snapshot, gateway: boolean): ObjectRef[] {
  const all = served.map((ing) => ({ ref: refOf(ing), created: ing.metadata?.creationTimestamp }));
  if (gateway) {
    for (const r of snapshot.httpRoutes ?? [])
      all.push({ ref: { kind: 'HTTPRoute', namespace: r.metadata?.namespace ?? 'default', name: r.metadata?.name ?? '' }, created: r.metadata?.creationTimestamp });
    for (const r of snapshot.grpcRoutes ?? [])
      all.push({ ref: { kind: 'GRPCRoute', namespace: r.metadata?.namespace ?? 'default', name: r.metadata?.name ?? '' }, created: r.metadata?.creationTimestamp });
  }
  return sortByAge(all, claimAgeKey).map((x) => x.ref);
}

function refOf(ing: Ingress): ObjectRef {
  return { kind: 'Ingress', namespace: ing.metadata?.namespace ?? 'default', name: ing.metadata?.name ?? '' };
}

function backendRef(b: IngressBackend | undefined): BackendRef | undefined {
  if (!b?.service) return undefined;
  return { serviceName: b.service.name, portNumber: b.service.port?.number, portName: b.service.port?.name };
}

/** Accumulates one model; each method takes one part of one Ingress. */
export class Builder {
  readonly problems: Problem[] = [];
  readonly upstreams = new Map<string, Upstream>();
  /** host ('' = no host) → path rules, each path+type claimed by the oldest Ingress. */
  readonly rules = new Map<string, Map<string, PathRule>>();
  /** host → regex path → rule (use-regex and rewrite-target paths). */
  readonly regexRules = new Map<string, Map<string, PathRule>>();
  readonly hostDefaults = new Map<string, Target>();
  /** host → server settings, each field from the oldest Ingress of the host that set it. */
  readonly hostSettings = new Map<string, ServerSettings>();
  globalDefault: Target | undefined;
  readonly served: ObjectRef[] = [];
  /** host → the Ingress whose server-alias / from-to-www-redirect the host took; regex rule → its field (model/servers.ts). */
  readonly aliasBy = new Map<string, ObjectRef>();
  readonly wwwBy = new Map<string, ObjectRef>();
  readonly regexField = new Map<PathRule, string>();
  /** Age rank of every served Ingress (`namespace/name` → 0 for the oldest), and back. */
  private readonly ranks = new Map<string, number>();
  private readonly byRank: ObjectRef[] = [];

  constructor(
    private readonly index: BackendIndex,
    private readonly annotations: AnnotationInput,
    private readonly snapshot: Snapshot,
    oldestFirst: readonly ObjectRef[],
    readonly owners: HostOwners,
  ) {
    for (const r of oldestFirst) {
      this.ranks.set(rankKey(r), this.byRank.length);
      this.byRank.push(r);
    }
  }

  problem(object: ObjectRef, field: string, reason: Reason, severity: Problem['severity'] = 'dropped'): void {
    this.problems.push(problemOf(object, field, reason, severity));
  }

  /** Age rank among the served Ingresses and the HTTPRoutes (0 = oldest); unknown objects rank as the newest. */
  rankOf(ref: ObjectRef): number {
    return this.ranks.get(rankKey(ref)) ?? this.byRank.length;
  }
  refOf(rank: number): ObjectRef {
    return this.byRank[rank] ?? { kind: 'Ingress', namespace: '', name: '' };
  }
  refusal(ref: ObjectRef, host: string): Reason | undefined {
    return host === '' ? undefined : this.owners.refusal(ref, host);
  }

  /** Upstream settings per upstream name, each field from the oldest Ingress that set it. */
  readonly upstreamSettings = new Map<string, UpstreamSettings>();
  /** The oldest Ingress that set service-upstream for an upstream (named by its Problem). */
  readonly serviceUpstreamBy = new Map<string, ObjectRef>();

  /** `namespace`: where the Service is, when not the referring object's own (an HTTPRoute with a ReferenceGrant). */
  target(ref: ObjectRef, backend: IngressBackend | undefined, field: string, up?: UpstreamSettings, namespace = ref.namespace): Target | undefined {
    const b = backendRef(backend);
    if (!b) {
      this.problem(ref, field, backend?.resource ? 'resource backends are not supported' : 'backend.service is required');
      return undefined;
    }
    const r = this.index.resolve(namespace, b, field);
    if (!r.ok) {
      this.problem(ref, r.field, r.reason);
      return undefined;
    }
    if (r.problem) this.problem(ref, r.problem.field, coded(r.problem.code, r.problem.reason), 'degraded');
    if (!this.upstreams.has(r.upstream.name)) this.upstreams.set(r.upstream.name, r.upstream);
    // An Ingress's backend (`up` given, {} without annotations) without service-upstream takes the ConfigMap's.
    const own = up !== undefined && up.serviceUpstream === undefined && this.annotations.serviceUpstream === true ? { ...up, serviceUpstream: true } : up;
    if (own && Object.keys(own).length > 0) this.upstreamSettings.set(r.upstream.name, { ...own, ...this.upstreamSettings.get(r.upstream.name) });
    if (up?.serviceUpstream !== undefined && !this.serviceUpstreamBy.has(r.upstream.name)) this.serviceUpstreamBy.set(r.upstream.name, ref);
    return { kind: 'upstream', upstream: r.upstream.name, ingress: ref };
  }

  /** The Ingress's settings, with its default-backend annotation resolved to an upstream. */
  private settingsOf(ref: ObjectRef): IngressSettings {
    const s = this.annotations.settings.get(refKey(ref.namespace, ref.name)) ?? NO_SETTINGS;
    const name = s.location.defaultBackend;
    if (name === undefined) return s;
    const svc = byName(this.snapshot.services, ref.namespace, name);
    const port = svc?.spec?.ports?.[0];
    const backend = { service: { name, port: port?.name ? { name: port.name } : { number: port?.port ?? 80 } } };
    const t = this.target(ref, backend, 'metadata.annotations.default-backend');
    return t?.kind === 'upstream' ? { ...s, location: { ...s.location, defaultBackendUpstream: t.upstream } } : s;
  }

  /** A server setting reaches every path of its host: only the host owner's namespace sets it (docs/adr/0008). */
  private addServerSettings(host: string, asked: ServerSettings, ref: ObjectRef): void {
    let s = asked;
    for (const [field, name] of SERVER_WIDE) {
      if (s[field] === undefined || s[field] === false) continue;
      const refused = this.owners.hostWide(ref, host, name);
      if (refused === undefined) continue;
      this.problem(ref, `metadata.annotations.${name}`, refused, 'degraded');
      s = Object.fromEntries(Object.entries(s).filter(([k]) => k !== field));
    }
    const had = this.hostSettings.get(host) ?? {};
    if (s.serverAlias !== undefined && had.serverAlias === undefined) this.aliasBy.set(host, ref);
    if (s.fromToWwwRedirect !== undefined && had.fromToWwwRedirect === undefined) this.wwwBy.set(host, ref);
    this.hostSettings.set(host, { ...s, ...had });
  }

  addIngress(ing: Ingress): void {
    const ref = refOf(ing);
    const badNs = checkLabel(ref.namespace) ?? (ref.name ? undefined : 'metadata.name is required');
    if (badNs) {
      this.problem(ref, 'metadata', badNs);
      return;
    }
    const settings = this.settingsOf(ref);
    const hosts: string[] = [];
    (ing.spec?.rules ?? []).forEach((rule, i) => {
      const host = (rule.host ?? '').toLowerCase();
      const badHost = host === '' ? undefined : checkHost(host);
      if (badHost) {
        this.problem(ref, `spec.rules[${i}].host`, badHost);
        return;
      }
      const refused = this.refusal(ref, host);
      if (refused) {
        this.problem(ref, `spec.rules[${i}].host`, refused);
        return;
      }
      hosts.push(host);
      if (host !== '') this.addServerSettings(host, settings.server, ref);
      (rule.http?.paths ?? []).forEach((p, j) => {
        this.addPath(ref, host, p, `spec.rules[${i}].http.paths[${j}]`, settings);
      });
    });
    if (ing.spec?.defaultBackend) {
      const plain = this.target(ref, ing.spec.defaultBackend, 'spec.defaultBackend', settings.upstream ?? {});
      // The default backend of an Ingress with auth, access lists or an unreadable proxy-ssl-secret is guarded like its paths.
      const guarded = settings.location.auth !== undefined || settings.location.proxySsl?.denied !== undefined;
      const t = plain?.kind === 'upstream' && guarded ? { ...plain, settings: settings.location } : plain;
      if (t) {
        this.globalDefault ??= t;
        // On the Ingress's own hosts the default backend is a path of that Ingress: its annotations apply (as in
        // ingress-nginx, where a rule host without paths is served by a location with them).
        const own = t.kind === 'upstream' && Object.keys(settings.location).length > 0 ? { ...t, settings: settings.location } : t;
        for (const h of hosts) if (!this.hostDefaults.has(h)) this.hostDefaults.set(h, own);
      }
    }
    this.served.push(ref);
  }

  private addPath(ref: ObjectRef, host: string, p: { path?: string; pathType: string; backend: IngressBackend }, field: string, settings: IngressSettings): void {
    const type = p.pathType === 'Exact' ? 'Exact' : p.pathType === 'Prefix' || p.pathType === 'ImplementationSpecific' ? 'Prefix' : undefined;
    if (!type) {
      this.problem(ref, `${field}.pathType`, `${JSON.stringify(p.pathType)} is not Exact, Prefix or ImplementationSpecific`);
      return;
    }
    const raw = p.path ?? '/';
    const regex = type === 'Prefix' && (settings.location.useRegex === true || settings.location.rewriteTarget !== undefined);
    const bad = regex ? checkRegexPath(raw) : this.annotations.strictPaths ? checkPath(raw) : checkPathRelaxed(raw);
    if (bad) {
      this.problem(ref, `${field}.path`, bad);
      return;
    }
    const plain = this.target(ref, p.backend, `${field}.backend`, settings.upstream ?? {});
    if (plain?.kind !== 'upstream') return;
    const path = regex ? raw : normalizePath(raw, type);
    const target: Target = settings === NO_SETTINGS ? plain : { ...plain, settings: settings.location, rule: { path, regex } };
    const tables = regex ? this.regexRules : this.rules;
    const table = tables.get(host) ?? new Map<string, PathRule>();
    tables.set(host, table);
    const key = `${regex ? 'Regex' : type} ${path}`;
    const holder = table.get(key);
    if (holder && holder.target.kind === 'upstream') {
      const owner = holder.target.ingress;
      if (owner.namespace !== ref.namespace || owner.name !== ref.name) {
        this.problem(ref, `${field}.path`, coded('PathConflict', `${type} ${host || '*'}${path} is already served by the older Ingress ${owner.namespace}/${owner.name}`));
      }
      return;
    }
    const rule: PathRule = { path, type, target };
    table.set(key, rule);
    if (regex) this.regexField.set(rule, field);
  }
}
