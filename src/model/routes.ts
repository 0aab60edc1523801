// Kubernetes path matching: the reference matcher, and its compilation into nginx locations.
import type { Location, Target } from './types.js';

/** One path of one Ingress rule, normalized (Prefix paths lose their trailing slash, except '/'). */
export interface PathRule {
  readonly path: string;
  readonly type: 'Exact' | 'Prefix';
  readonly target: Target;
}

/** Normalizes an Ingress path: ImplementationSpecific is Prefix; a Prefix path ignores its trailing slash. */
export function normalizePath(path: string, type: 'Exact' | 'Prefix'): string {
  if (type === 'Exact' || path === '/') return path;
  return path.replace(/\/+$/, '') || '/';
}

/** True when `prefix` is an element-wise prefix of `uri` (`/foo` matches `/foo`, `/foo/`, `/foo/bar`, not `/foobar`). */
export function isElementPrefix(prefix: string, uri: string): boolean {
  return prefix === '/' || uri === prefix || uri.startsWith(`${prefix}/`);
}

function matchTier(rules: readonly PathRule[], uri: string, prefixOnly: boolean): PathRule | undefined {
  let best: PathRule | undefined;
  for (const rule of rules) {
    const hit = rule.type === 'Exact' ? !prefixOnly && rule.path === uri : isElementPrefix(rule.path, uri);
    if (!hit) continue;
    const longer = best === undefined || rule.path.length > best.path.length;
    const exactTie = best !== undefined && rule.path.length === best.path.length && rule.type === 'Exact';
    if (longer || exactTie) best = rule;
  }
  return best;
}

/**
 * The Kubernetes rules for one request path: the first tier (exact host, then wildcard host, then no host) with a
 * match decides; within it the longest path wins and Exact beats Prefix on a tie. Undefined: no rule matches.
 * The reference semantics, a scan of every rule (tests and /debug); `indexRoutes` gives the same answer in
 * O(length of the path) and is what `compileLocations` uses.
 */
export function route(tiers: readonly (readonly PathRule[])[], uri: string, prefixOnly = false): Target | undefined {
  for (const rules of tiers) {
    const hit = matchTier(rules, uri, prefixOnly);
    if (hit) return hit.target;
  }
  return undefined;
}

/** One tier indexed by path: Exact rules (the last of equal paths wins, as in `matchTier`) and Prefix rules (the first). */
interface TierIndex {
  readonly exact: Map<string, PathRule>;
  readonly prefix: Map<string, PathRule>;
}

function indexTier(rules: readonly PathRule[]): TierIndex {
  const exact = new Map<string, PathRule>();
  const prefix = new Map<string, PathRule>();
  for (const rule of rules) {
    if (rule.type === 'Exact') exact.set(rule.path, rule);
    else if (!prefix.has(rule.path)) prefix.set(rule.path, rule);
  }
  return { exact, prefix };
}

/**
 * `matchTier` in O(length of uri): an Exact rule equal to the uri is the longest possible hit and beats a Prefix
 * tie; else the uri's element prefixes are tried longest first (the uri, each part before a '/', then '/' and '').
 * A uri that does not start with '/' (never a request, never a model path) takes the reference scan.
 */
function lookupTier(tier: TierIndex, rules: readonly PathRule[], uri: string, prefixOnly: boolean): PathRule | undefined {
  if (!uri.startsWith('/')) return matchTier(rules, uri, prefixOnly);
  const exact = prefixOnly ? undefined : tier.exact.get(uri);
  if (exact) return exact;
  if (tier.prefix.size === 0) return undefined;
  let hit = tier.prefix.get(uri);
  for (let i = uri.lastIndexOf('/', uri.length - 1); hit === undefined && i > 0; i = uri.lastIndexOf('/', i - 1)) {
    hit = tier.prefix.get(uri.slice(0, i));
  }
  return hit ?? tier.prefix.get('/') ?? tier.prefix.get('');
}

/** `route` over tiers indexed once: the same answer for every uri, in O(length of uri) per lookup. */
export function indexRoutes(tiers: readonly (readonly PathRule[])[]): (uri: string, prefixOnly?: boolean) => Target | undefined {
  const indexed = tiers.map((rules) => ({ rules, index: indexTier(rules) }));
  return (uri, prefixOnly = false) => {
    for (const { rules, index } of indexed) {
      const hit = lookupTier(index, rules, uri, prefixOnly);
      if (hit) return hit.target;
    }
    return undefined;
  };
}

/**
 * Compiles tiers of rules into nginx locations that give the same answer as `route` for every request path.
 * nginx takes an `= path` location first, else the longest prefix location; each location's target is
 * therefore the answer of `route` for the paths that location catches. Every prefix location `p/` gets an exact
 * twin `= p`, so nginx never answers a 301 of its own for `p` (its auto-redirect for locations ending in '/').
 * O(n log n) in the number of rules: one sort, and one indexed lookup per location (`indexRoutes`).
 */
export function compileLocations(tiers: readonly (readonly PathRule[])[], fallback: Target): Location[] {
  return locationsBy(tiers, fallback, indexRoutes(tiers));
}

/**
 * The locations of `tiers`, each answered by `lookup` (the indexed one here; the reference scan in tests): an exact
 * location per Exact path and per Prefix path, and a prefix location `p/` per Prefix path, sorted.
 */
export function locationsBy(tiers: readonly (readonly PathRule[])[], fallback: Target, lookup: (uri: string, prefixOnly?: boolean) => Target | undefined): Location[] {
  const exact = new Set<string>();
  const prefix = new Set<string>(['/']);
  for (const rule of tiers.flat()) {
    if (rule.type === 'Exact') {
      exact.add(rule.path);
      if (rule.path.length > 1 && rule.path.endsWith('/')) exact.add(rule.path.slice(0, -1));
    } else if (rule.path !== '/') {
      exact.add(rule.path);
      prefix.add(`${rule.path}/`);
    }
  }
  const locations: Location[] = [];
  for (const path of [...exact].sort()) {
    locations.push({ match: 'exact', path, target: lookup(path) ?? fallback });
  }
  for (const path of [...prefix].sort()) {
    locations.push({ match: 'prefix', path, target: lookup(path, true) ?? fallback });
  }
  return locations;
}

/** Simulates nginx's choice among compiled locations (for tests and /debug): exact first, else longest prefix. */
export function nginxPick(locations: readonly Location[], uri: string): Location | undefined {
  const exact = locations.find((l) => l.match === 'exact' && l.path === uri);
  if (exact) return exact;
  let best: Location | undefined;
  for (const l of locations) {
    if (l.match === 'prefix' && uri.startsWith(l.path) && (!best || l.path.length > best.path.length)) best = l;
  }
  return best;
}

/**
 * Regex locations (use-regex, rewrite-target): nginx tries them in file order after exact matches, so the first
 * tier comes first and, within a tier, longer patterns first (as ingress-nginx orders them). A pattern repeated
 * in a later tier is left to the earlier one.
 */
export function regexLocations(tiers: readonly (readonly PathRule[])[]): Location[] {
  const seen = new Set<string>();
  const out: Location[] = [];
  for (const rules of tiers) {
    const sorted = [...rules].sort((a, b) => b.path.length - a.path.length || a.path.localeCompare(b.path));
    for (const r of sorted) {
      if (seen.has(r.path)) continue;
      seen.add(r.path);
      out.push({ match: 'regex', path: r.path, target: r.target });
    }
  }
  return out;
}
