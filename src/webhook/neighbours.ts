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

/** Names an Ingress is found under: `h:` a host (rule, TLS, alias, www twin), `w:` the domain under a wildcard. */
interface Entry {
  readonly ing: Ingress;
  readonly keys: readonly string[];
}

/** The index of one snapshot's Ingresses by name, built once per snapshot (the store freezes each one). */
export interface HostIndex {
  readonly byKey: ReadonlyMap<string, readonly Entry[]>;
  /** Ingresses with rules without a host or a default backend: they reach every server. */
  readonly everywhere: readonly Ingress[];
  /** Domains `x` some Ingress has a `*.x` rule for. */
  readonly wildDomains: ReadonlySet<string>;
}

const ALIAS_SUFFIX = '/server-alias';

const refOf = (i: Ingress): string => `${i.metadata?.namespace ?? 'default'}/${i.metadata?.name ?? ''}`;

/** Whether the Ingress has a rule without a host, or a default backend: it takes part in every server. */
function reachesEverywhere(i: Ingress): boolean {
  return i.spec?.defaultBackend !== undefined || (i.spec?.rules ?? []).some((r) => (r.host ?? '') === '');
}

/** The host names an Ingress names anywhere: rule hosts, TLS hosts, server-alias values (any annotation prefix). */
function namesOf(i: Ingress): string[] {
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

/** The keys of one Ingress: each name and its www twin; the domain of a wildcard, and of a host under a wildcard. */
function keysOf(i: Ingress, wildDomains: ReadonlySet<string>): string[] {
  const keys = new Set<string>();
  for (const n of namesOf(i)) {
    const bare = n.startsWith('www.') ? n.slice(4) : n;
    keys.add(`h:${bare}`);
    const domain = domainOf(n);
    if (n.startsWith('*.')) keys.add(`w:${n.slice(2)}`);
    else if (domain !== undefined && wildDomains.has(domain)) keys.add(`w:${domain}`);
  }
  return [...keys];
}

function wildDomainsOf(ingresses: readonly Ingress[]): Set<string> {
  const out = new Set<string>();
  for (const i of ingresses) for (const n of namesOf(i)) if (n.startsWith('*.')) out.add(n.slice(2));
  return out;
}

const indexes = new WeakMap<readonly Ingress[], HostIndex>();

/** The index of `ingresses` (cached for the list: a snapshot's lists are frozen and replaced on change). */
export function hostIndex(ingresses: readonly Ingress[]): HostIndex {
  const cached = indexes.get(ingresses);
  if (cached) return cached;
  const wildDomains = wildDomainsOf(ingresses);
  const byKey = new Map<string, Entry[]>();
  const everywhere: Ingress[] = [];
  for (const ing of ingresses) {
    if (reachesEverywhere(ing)) everywhere.push(ing);
    const entry = { ing, keys: keysOf(ing, wildDomains) };
    for (const k of entry.keys) {
      const list = byKey.get(k);
      if (list) list.push(entry);
      else byKey.set(k, [entry]);
    }
  }
  const index = { byKey, everywhere, wildDomains };
  indexes.set(ingresses, index);
  return index;
}

/**
 * The Ingresses to judge `candidate` with: every Ingress reachable from it through shared keys, plus those that
 * reach everywhere, the candidate's own earlier version left out. Undefined: judge against the whole snapshot.
 */
export function neighbourIngresses(candidate: Ingress, snapshot: Snapshot, opts: ModelOptions): Ingress[] | undefined {
  if (reachesEverywhere(candidate)) return undefined;
  if (opts.gateway !== undefined && (snapshot.gateways?.length ?? 0) > 0) return undefined;
  const index = hostIndex(snapshot.ingresses);
  const self = refOf(candidate);
  // The candidate may bring a wildcard no stored Ingress has: its domain's hosts are then its neighbours.
  const own = wildDomainsOf([candidate]);
  const wild = [...own].some((d) => !index.wildDomains.has(d)) ? new Set([...index.wildDomains, ...own]) : index.wildDomains;
  const seenKeys = new Set<string>();
  const members = new Map<string, Ingress>();
  const queue = keysOf(candidate, wild);
  // Each key and each Ingress is visited once: the walk ends within the snapshot's size.
  for (let k = queue.pop(); k !== undefined; k = queue.pop()) {
    if (seenKeys.has(k)) continue;
    seenKeys.add(k);
    const hits = k.startsWith('w:') && !index.wildDomains.has(k.slice(2)) ? hostsUnder(index, k.slice(2)) : (index.byKey.get(k) ?? []);
    for (const e of hits) {
      const ref = refOf(e.ing);
      if (ref === self || members.has(ref)) continue;
      members.set(ref, e.ing);
      queue.push(...e.keys);
    }
  }
  for (const ing of index.everywhere) if (refOf(ing) !== self) members.set(refOf(ing), ing);
  return [...members.values()];
}

/** The Ingresses with a host directly under `domain`, for a candidate bringing the first `*.domain` (a rare case). */
function hostsUnder(index: HostIndex, domain: string): Entry[] {
  const out: Entry[] = [];
  for (const [k, list] of index.byKey) if (k.startsWith('h:') && domainOf(k.slice(2)) === domain) out.push(...list);
  return out;
}
