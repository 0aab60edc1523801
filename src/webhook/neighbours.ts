// The part of a snapshot an admission review must translate: the candidate's neighbourhood by host name.
//
// A review used to build the model of the whole cluster with the candidate in it (about 1 s at 10,000 Ingresses).
// What the model can say about one Ingress depends on the Ingresses that share a name with it: the same rule or TLS
// host (ownership, path conflicts, canaries, regex guards), a wildcard host over it, a server-alias or www twin of
// it, and those Ingresses' own neighbours in turn (an older claimant may itself be refused). Ingresses with rules
// without a host or a spec.defaultBackend reach every server, so they are always kept; a candidate that has such
// rules itself, and every snapshot with Gateways under a Gateway-enabled controller, are judged on the whole cluster.
import type { Ingress, Snapshot } from '../model/input.js';
import type { ModelOptions } from '../model/input.js';
import { middleChanges } from '../model/list-fold.js';

/**
 * One Ingress in the index. `filed`: the keys it is found under, `h:` each name it names (a `www.` name under its
 * twin's key) and `d:` each name's parent domain. `links`: the keys its neighbours are found under, its own `h:` keys,
 * `h:*.x` for a name `a.x` (a wildcard over it) and `d:x` for a wildcard `*.x` (the names under it).
 */
interface Entry {
  readonly ing: Ingress;
  readonly filed: readonly string[];
  readonly links: readonly string[];
}

/** The index of one snapshot's Ingresses by name, kept from one snapshot to the next by the changes between them. */
interface HostIndex {
  readonly byKey: ReadonlyMap<string, ReadonlySet<Entry>>;
  /** Ingresses with rules without a host or a default backend: they reach every server. */
  readonly everywhere: ReadonlySet<Ingress>;
  readonly byNamespace: ReadonlyMap<string, ReadonlySet<Ingress>>;
}

const ALIAS_SUFFIX = '/server-alias';

const refOf = (i: Ingress): string => `${i.metadata?.namespace ?? 'default'}/${i.metadata?.name ?? ''}`;

/** Whether the Ingress has a rule without a host, or a default backend: it takes part in every server. */
export function reachesEverywhere(i: Ingress): boolean {
  return i.spec?.defaultBackend !== undefined || (i.spec?.rules ?? []).some((r) => (r.host ?? '') === '');
}

/** The host names an Ingress names anywhere: rule hosts, TLS hosts, server-alias values (any annotation prefix). */
export function namesOf(i: Ingress): string[] {
  const names: string[] = [];
  for (const r of i.spec?.rules ?? []) if (r.host) names.push(r.host);
  for (const t of i.spec?.tls ?? []) for (const h of t.hosts ?? []) names.push(h);
  for (const [k, v] of Object.entries(i.metadata?.annotations ?? {})) {
    if (k.endsWith(ALIAS_SUFFIX) && typeof v === 'string') names.push(...v.split(/[\s,]+/).filter(Boolean));
  }
  return names.map((n) => n.toLowerCase());
}

function domainOf(host: string): string | undefined {
  const dot = host.indexOf('.');
  return dot > 0 ? host.slice(dot + 1) : undefined;
}

function entryOf(ing: Ingress): Entry {
  const filed = new Set<string>();
  const links = new Set<string>();
  for (const n of namesOf(ing)) {
    const bare = n.startsWith('www.') ? n.slice(4) : n;
    const own = `h:${bare}`;
    const domain = domainOf(n);
    filed.add(own);
    links.add(own);
    if (domain === undefined) continue;
    filed.add(`d:${domain}`);
    const twinDomain = domainOf(bare);
    if (twinDomain !== undefined) filed.add(`d:${twinDomain}`);
    links.add(n.startsWith('*.') ? `d:${domain}` : `h:*.${domain}`);
  }
  return { ing, filed: [...filed], links: [...links] };
}

/** A mutable index, and the lists of Ingresses it was last made for (a list and a few more). */
interface Live {
  list: readonly Ingress[];
  extra: readonly Ingress[];
  readonly byKey: Map<string, Set<Entry>>;
  readonly entries: Map<Ingress, Entry>;
  readonly everywhere: Set<Ingress>;
  readonly byNamespace: Map<string, Set<Ingress>>;
}

const nsOf = (i: Ingress): string => i.metadata?.namespace || 'default';

let live: Live | undefined;

function add(ix: Live, ing: Ingress): void {
  const e = entryOf(ing);
  ix.entries.set(ing, e);
  if (reachesEverywhere(ing)) ix.everywhere.add(ing);
  const ns = ix.byNamespace.get(nsOf(ing));
  if (ns) ns.add(ing);
  else ix.byNamespace.set(nsOf(ing), new Set([ing]));
  for (const k of e.filed) {
    const set = ix.byKey.get(k);
    if (set) set.add(e);
    else ix.byKey.set(k, new Set([e]));
  }
}

function drop(ix: Live, ing: Ingress): void {
  const e = ix.entries.get(ing);
  if (!e) return;
  ix.entries.delete(ing);
  ix.everywhere.delete(ing);
  const ns = ix.byNamespace.get(nsOf(ing));
  ns?.delete(ing);
  if (ns?.size === 0) ix.byNamespace.delete(nsOf(ing));
  for (const k of e.filed) {
    const set = ix.byKey.get(k);
    set?.delete(e);
    if (set?.size === 0) ix.byKey.delete(k);
  }
}

/**
 * The index of `ingresses` and `extra` (distinct objects). The last one made is kept and brought up to date by the
 * objects that left and arrived (a snapshot's objects are frozen: the same object is the same content): `ingresses`,
 * the store's list, by its shared ends with the last (model/list-fold.ts), `extra` (a few) as a set. A change of one
 * Ingress costs that Ingress, not a set of 100,000.
 */
function hostIndex(ingresses: readonly Ingress[], extra: readonly Ingress[] = []): HostIndex {
  const ix = live;
  if (ix === undefined) {
    live = { list: ingresses, extra, byKey: new Map(), entries: new Map(), everywhere: new Set(), byNamespace: new Map() };
    for (const ing of [...ingresses, ...extra]) add(live, ing);
    return live;
  }
  if (ix.list === ingresses && ix.extra === extra) return ix;
  const main = middleChanges(ix.list, ingresses);
  const more = middleChanges(ix.extra, extra);
  // an object may move between the list and the extra ones (an Ingress removed is still in the last served)
  const here = new Set([...main.came, ...extra]);
  for (const ing of [...main.gone, ...more.gone]) if (!here.has(ing)) drop(ix, ing);
  for (const ing of [...main.came, ...more.came]) if (!ix.entries.has(ing)) add(ix, ing);
  ix.list = ingresses;
  ix.extra = extra;
  return ix;
}

/** Whether an Ingress of `ingresses` or `extra` reaches every server (reachesEverywhere), from the index. */
export function reachesAnywhere(ingresses: readonly Ingress[], extra: readonly Ingress[]): boolean {
  return hostIndex(ingresses, extra).everywhere.size > 0;
}

/** The Ingresses of `ingresses` and `extra` in `namespaces`, from the index. */
export function indexedIn(ingresses: readonly Ingress[], extra: readonly Ingress[], namespaces: Iterable<string>): Ingress[] {
  const ix = hostIndex(ingresses, extra);
  return [...namespaces].flatMap((ns) => [...(ix.byNamespace.get(ns) ?? [])]);
}

/**
 * A candidate's neighbourhood: `ingresses`, those reachable from it through shared names plus those that reach
 * everywhere (its own earlier version left out); `near`, the references of the reachable ones; `visited`, every index
 * key the walk looked up; `filed`, the keys the candidate itself is found under. Another candidate is outside it when
 * neither is filed under a key the other visited and their `near` sets are apart (webhook/batch.ts).
 */
export interface Neighbourhood {
  readonly ingresses: readonly Ingress[];
  readonly near: ReadonlySet<string>;
  readonly visited: ReadonlySet<string>;
  readonly filed: readonly string[];
}

/** The neighbourhood to judge `candidate` in; undefined: judge against the whole snapshot. */
export function neighbourhood(candidate: Ingress, snapshot: Snapshot, opts: ModelOptions): Neighbourhood | undefined {
  if (reachesEverywhere(candidate)) return undefined;
  if (opts.gateway !== undefined && (snapshot.gateways?.length ?? 0) > 0) return undefined;
  const index = hostIndex(snapshot.ingresses);
  const self = refOf(candidate);
  const own = entryOf(candidate);
  const seenKeys = new Set<string>();
  const members = new Map<string, Ingress>();
  const queue = [...own.links];
  // Each key and each Ingress is visited once: the walk ends within the snapshot's size.
  for (let k = queue.pop(); k !== undefined; k = queue.pop()) {
    if (seenKeys.has(k)) continue;
    seenKeys.add(k);
    for (const e of index.byKey.get(k) ?? []) {
      const ref = refOf(e.ing);
      if (ref === self || members.has(ref)) continue;
      members.set(ref, e.ing);
      queue.push(...e.links);
    }
  }
  const near = new Set(members.keys());
  for (const ing of index.everywhere) if (refOf(ing) !== self) members.set(refOf(ing), ing);
  // Their order does not matter: the model orders Ingresses by age, then namespace and name (model/builder.ts).
  return { ingresses: [...members.values()], near, visited: seenKeys, filed: own.filed };
}

/** The Ingresses to judge `candidate` with (its neighbourhood's); undefined: judge against the whole snapshot. */
export function neighbourIngresses(candidate: Ingress, snapshot: Snapshot, opts: ModelOptions): Ingress[] | undefined {
  const n = neighbourhood(candidate, snapshot, opts);
  return n ? [...n.ingresses] : undefined;
}

/**
 * Every Ingress of `ingresses` reachable from `seeds` through shared names, the seeds included (each object, so two
 * versions of one Ingress are two members): what an incremental sync rebuilds (worker/incremental-scope.ts). Those
 * that reach everywhere are not added; the caller decides about them.
 */
export function hostNeighbourhood(seeds: Iterable<Ingress>, ingresses: readonly Ingress[], extra: readonly Ingress[] = []): Set<Ingress> {
  const index = hostIndex(ingresses, extra);
  const members = new Set<Ingress>(seeds);
  const seenKeys = new Set<string>();
  const queue = [...members].flatMap((i) => entryOf(i).links);
  // Each key and each Ingress is visited once: the walk ends within the list's size.
  for (let k = queue.pop(); k !== undefined; k = queue.pop()) {
    if (seenKeys.has(k)) continue;
    seenKeys.add(k);
    for (const e of index.byKey.get(k) ?? []) {
      if (members.has(e.ing)) continue;
      members.add(e.ing);
      queue.push(...e.links);
    }
  }
  return members;
}

const groups = new WeakMap<readonly object[], ReadonlyMap<string, readonly object[]>>();

/**
 * The objects of `list` in `namespaces`, in list order within each namespace; the grouping is made once per list (a
 * snapshot's lists are frozen), so a review reads its few namespaces instead of scanning 100,000 Services.
 */
export function inNamespaces<T extends { readonly metadata?: { readonly namespace?: string } }>(list: readonly T[], namespaces: Iterable<string>): T[] {
  let byNs = groups.get(list);
  if (!byNs) {
    const m = new Map<string, T[]>();
    for (const o of list) {
      const ns = o.metadata?.namespace ?? 'default';
      const l = m.get(ns);
      if (l) l.push(o);
      else m.set(ns, [o]);
    }
    byNs = m;
    groups.set(list, byNs);
  }
  // Only objects of `list` were grouped under these keys: the lists hold T.
  return [...new Set(namespaces)].flatMap((ns) => (byNs.get(ns) ?? []) as T[]);
}

/** Builds what reviews of `snapshot` read (the host index, the namespace groups) ahead of the first review. */
export function prepareReviews(snapshot: Snapshot): void {
  hostIndex(snapshot.ingresses);
  inNamespaces(snapshot.services, []);
  inNamespaces(snapshot.endpointSlices, []);
}
