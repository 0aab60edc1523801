// Regex paths never capture another namespace's paths: literal prefixes compared by sort and binary search, not regex × path.
import type { PathRule } from './routes.js';
import type { ObjectRef } from './types.js';

const META = new Set(['\\', '.', '^', '$', '|', '?', '*', '+', '(', ')', '[', ']', '{', '}']);

/**
 * The text every URI a path regex matches starts with, lowercased (nginx matches it with `~* "^…"`): the characters
 * up to the first metacharacter, less the one before a `?`, `*` or `{` quantifier (it may be absent). A top-level
 * `|` gives '' (an alternative may start with anything). Shorter than the truth is safe: it only refuses more.
 */
export function literalPrefix(re: string): string {
  let depth = 0;
  for (let i = 0; i < re.length; i++) {
    const c = re[i];
    if (c === '\\') i++;
    else if (c === '[') {
      while (i < re.length && re[i] !== ']') i += re[i] === '\\' ? 2 : 1;
    } else if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === '|' && depth <= 0) return '';
  }
  let end = 0;
  while (end < re.length && !META.has(re[end] ?? '')) end++;
  const next = re[end];
  if (end > 0 && (next === '?' || next === '*' || next === '{')) end--;
  return re.slice(0, end).toLowerCase();
}

function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((sorted[mid] ?? '') < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** One namespace's literals in one tier, with their age ranks: which older one overlaps a literal, in log time. */
class LiteralIndex {
  private readonly lits: string[];
  /** min[k][i]: the smallest rank among lits[i .. i + 2^k) (a sparse table). */
  private readonly min: number[][];
  private readonly exact = new Map<string, number>();

  constructor(entries: readonly (readonly [string, number])[]) {
    const sorted = [...entries].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]));
    this.lits = sorted.map((e) => e[0]);
    this.min = [sorted.map((e) => e[1])];
    for (let k = 1; 1 << k <= sorted.length; k++) {
      const prev = this.min[k - 1] ?? [];
      this.min.push(prev.slice(0, sorted.length - (1 << k) + 1).map((v, i) => Math.min(v, prev[i + (1 << (k - 1))] ?? v)));
    }
    for (const [lit, rank] of sorted) if (!this.exact.has(lit)) this.exact.set(lit, rank);
  }

  /** The smallest rank of a literal that starts with `lit` or that `lit` starts with; Infinity when none. */
  oldestOverlap(lit: string): number {
    let best = Infinity;
    for (let k = 0; k <= lit.length; k++) best = Math.min(best, this.exact.get(lit.slice(0, k)) ?? Infinity);
    const lo = lowerBound(this.lits, lit);
    const hi = lowerBound(this.lits, `${lit}\uffff`);
    if (hi > lo) {
      const k = 31 - Math.clz32(hi - lo);
      best = Math.min(best, this.min[k]?.[lo] ?? Infinity, this.min[k]?.[hi - (1 << k)] ?? Infinity);
    }
    return best;
  }
}

/** Regex literals accepted so far on one server, per tier and namespace; each lookup is a binary search. */
class Accepted {
  private readonly tiers: Map<string, { sorted: string[]; rank: Map<string, number> }>[] = [];

  add(t: number, ns: string, lit: string, rank: number): void {
    const byNs = this.tiers[t] ?? new Map<string, { sorted: string[]; rank: Map<string, number> }>();
    this.tiers[t] = byNs;
    const e = byNs.get(ns) ?? { sorted: [], rank: new Map<string, number>() };
    byNs.set(ns, e);
    if (e.rank.has(lit)) return;
    e.rank.set(lit, rank);
    e.sorted.splice(lowerBound(e.sorted, lit), 0, lit);
  }

  /** The rank of an accepted literal of another namespace, in tier `upTo` or a more specific one, that overlaps `lit`. */
  rival(upTo: number, ns: string, lit: string): number | undefined {
    for (let t = 0; t <= upTo; t++) {
      for (const [other, e] of this.tiers[t] ?? []) {
        if (other === ns) continue;
        const at = e.sorted[lowerBound(e.sorted, lit)];
        if (at?.startsWith(lit)) return e.rank.get(at);
        for (let k = 0; k <= lit.length; k++) {
          const r = e.rank.get(lit.slice(0, k));
          if (r !== undefined) return r;
        }
      }
    }
    return undefined;
  }
}

/** What the guard needs from the model builder. */
export interface RegexGuardInput {
  readonly plainOf: (tier: string) => readonly PathRule[];
  /** Age rank of an Ingress (0 = oldest) and the Ingress of a rank. */
  readonly rankOf: (ref: ObjectRef) => number;
  readonly refOf: (rank: number) => ObjectRef;
}

const nsOf = (r: PathRule): string => (r.target.kind === 'upstream' ? r.target.ingress.namespace : '');

/**
 * Keeps, per server, the regex paths that cannot capture a path of an older Ingress of another namespace in the same
 * or a more specific tier (nginx tries regex locations before prefix ones). Same-namespace regexes are never refused.
 */
export class RegexGuard {
  private readonly plain = new Map<string, Map<string, LiteralIndex>>();
  /** Each refused rule → the hosts it was refused on and the Ingress it would have captured from. */
  readonly refused = new Map<PathRule, { hosts: string[]; owner: ObjectRef }>();

  constructor(private readonly input: RegexGuardInput) {}

  private plainIndex(tier: string): Map<string, LiteralIndex> {
    let byNs = this.plain.get(tier);
    if (byNs) return byNs;
    const entries = new Map<string, [string, number][]>();
    for (const r of this.input.plainOf(tier)) {
      if (r.target.kind !== 'upstream') continue;
      const list = entries.get(r.target.ingress.namespace) ?? [];
      list.push([r.path.toLowerCase(), this.input.rankOf(r.target.ingress)]);
      entries.set(r.target.ingress.namespace, list);
    }
    byNs = new Map([...entries].map(([ns, list]) => [ns, new LiteralIndex(list)]));
    this.plain.set(tier, byNs);
    return byNs;
  }

  private rankOfRule(r: PathRule): number {
    return r.target.kind === 'upstream' ? this.input.rankOf(r.target.ingress) : 0;
  }

  /** The regex tiers of server `host` (tier keys most specific first), less the rules that could capture. */
  filter(host: string, keys: readonly string[], regexTiers: readonly (readonly PathRule[])[]): PathRule[][] {
    const all = regexTiers.flatMap((rules, t) => rules.map((rule) => ({ rule, t, rank: this.rankOfRule(rule) })));
    // No regex: nothing to keep out, and no index of the host's plain paths to build (most hosts: 10,000 indexes a build).
    if (all.length === 0) return regexTiers.map((t) => [...t]);
    const namespaces = new Set(all.map((x) => nsOf(x.rule)));
    for (const k of keys) for (const ns of this.plainIndex(k).keys()) namespaces.add(ns);
    if (namespaces.size <= 1) return regexTiers.map((t) => [...t]);
    all.sort((a, b) => a.rank - b.rank || a.t - b.t);
    const accepted = new Accepted();
    const kept = new Set<PathRule>();
    for (const x of all) {
      const ns = nsOf(x.rule);
      const lit = literalPrefix(x.rule.path);
      let owner = Infinity;
      for (let t = 0; t <= x.t; t++) {
        for (const [other, index] of this.plainIndex(keys[t] ?? '')) if (other !== ns) owner = Math.min(owner, index.oldestOverlap(lit));
      }
      if (owner >= x.rank) owner = Infinity; // only older Ingresses own what they serve
      // Accepted regexes are older or of the same Ingress: any overlap with another namespace's is a capture.
      const rival = accepted.rival(x.t, ns, lit) ?? Infinity;
      if (owner === Infinity && rival === Infinity) {
        kept.add(x.rule);
        accepted.add(x.t, ns, lit, x.rank);
        continue;
      }
      const had = this.refused.get(x.rule);
      if (had) had.hosts.push(host);
      else this.refused.set(x.rule, { hosts: [host], owner: this.input.refOf(Math.min(owner, rival)) });
    }
    return regexTiers.map((rules) => rules.filter((r) => kept.has(r)));
  }
}
