// The route table (docs/adr/0011): for each nginx location, the HTTPRoute matches that may take its requests, in the
// specification's precedence, cut at the first one that takes every request of the location; Lua walks the list.
import { isElementPrefix, nginxPick, type PathRule } from '../routes.js';
import type { Location, Server } from '../types.js';
import { comparePrecedence } from './match.js';
import { SharedHostGuard, type SharedHostInput } from './shared-host.js';
import { deepTiers, gatewayWildcards } from './deep-wildcards.js';
import { pathOnly, plainAction, type GatewayAction, type GatewayCandidate, type GatewayEntry, type GatewayMatch, type GatewayTable } from './route-types.js';

/** A candidate of a location: an HTTPRoute match, or an Ingress path (which nginx serves: Lua stops there). */
type Candidate = { readonly entry?: GatewayEntry; readonly match: GatewayMatch; readonly order: readonly [number, number, number]; readonly deep?: true };

function wildcardOf(host: string): string | undefined {
  const dot = host.indexOf('.');
  return dot > 0 ? `*${host.slice(dot)}` : undefined;
}

/** Does a match's path take the requests of this location (every one of them, for Exact and PathPrefix)? */
function applies(path: GatewayMatch['path'], l: Location): boolean {
  if (path.type === 'RegularExpression') return true;
  if (path.type === 'Exact') return l.match === 'exact' && path.value === l.path;
  const at = l.match === 'exact' || l.path === '/' ? l.path : l.path.slice(0, -1);
  return isElementPrefix(path.value, at);
}

/**
 * A location's key: a 64-bit FNV-1a of its server and path, stable across syncs, so that between a reload and the push
 * of the new table (new workers read the old one meanwhile) a key never names another location's candidates.
 */
function keyOf(host: string, l: Location, used: Set<string>): string {
  const text = `${host}\n${l.match}\n${l.path}`;
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c, 0x01000193) >>> 0;
  }
  let key = `gw${a.toString(16).padStart(8, '0')}${b.toString(16).padStart(8, '0')}`;
  while (used.has(key)) key += 'x';
  used.add(key);
  return key;
}

/** Why a candidate is not served in a location of the other protocol (an Ingress path and a GRPCRoute on one host). */
function mixed(host: string, l: Location, grpc: boolean): string {
  const where = `${l.match === 'exact' ? '= ' : ''}${l.path}`;
  return `the path ${where} of host ${host || '(every host)'} is served ${grpc ? 'over gRPC' : 'over HTTP/1.1'} by another route or Ingress; a match of the other protocol is not served there`;
}

/** Why a retrying candidate is not served where another one retries on other codes. */
function retryClash(host: string, l: Location, codes: string): string {
  return `the path ${l.match === 'exact' ? '= ' : ''}${l.path} of host ${host || '(every host)'} already retries on codes [${codes}] for a route of higher precedence; nginx retries one code set per path, so this rule is not served there`;
}

function byPrecedence(a: Candidate, b: Candidate): number {
  return comparePrecedence(a.match, b.match) || a.order[0] - b.order[0] || a.order[1] - b.order[1] || a.order[2] - b.order[2];
}

/** The Ingress paths of a tier as candidates: they come before HTTPRoute matches of the same path (docs/adr/0011). */
function ingressCandidates(rules: ReadonlyMap<string, PathRule> | undefined, owner: string | undefined): Candidate[] {
  return [...(rules?.values() ?? [])]
    .filter((r) => r.target.kind !== 'upstream' || (r.target.ingress.kind !== 'HTTPRoute' && r.target.ingress.kind !== 'GRPCRoute'))
    .filter((r) => owner === undefined || (r.target.kind === 'upstream' && r.target.ingress.namespace === owner))
    .map((r) => ({ match: { path: { type: r.type === 'Exact' ? 'Exact' : 'PathPrefix', value: r.path }, headers: [], query: [] }, order: [-1, 0, 0] }));
}

/** Adds the locations of conditional matches' paths (nginx must catch their requests apart), each with nginx's answer there. */
function withPaths(locations: readonly Location[], entries: readonly GatewayEntry[]): Location[] {
  const regex = locations.filter((l) => l.match === 'regex');
  const exact = new Map(locations.filter((l) => l.match === 'exact').map((l) => [l.path, l]));
  const prefix = new Map(locations.filter((l) => l.match === 'prefix').map((l) => [l.path, l]));
  const plain = [...exact.values(), ...prefix.values()];
  for (const e of entries) {
    if (pathOnly(e.match) || e.match.path.type === 'RegularExpression') continue;
    const v = e.match.path.value;
    if (!exact.has(v) && !(e.match.path.type === 'PathPrefix' && v === '/')) exact.set(v, { match: 'exact', path: v, target: (nginxPick(plain, v) ?? { target: { kind: 'not-found' } }).target });
    const p = v === '/' ? '/' : `${v}/`;
    if (e.match.path.type === 'PathPrefix' && !prefix.has(p)) {
      prefix.set(p, {
        match: 'prefix',
        path: p,
        target: (
          nginxPick(
            plain.filter((l) => l.match === 'prefix'),
            p,
          ) ?? { target: { kind: 'not-found' } }
        ).target,
      });
    }
  }
  const sorted = (m: Map<string, Location>): Location[] => [...m.keys()].sort().map((k) => m.get(k) as Location);
  return [...regex, ...sorted(exact), ...sorted(prefix)];
}

/**
 * Gives every location whose requests an HTTPRoute match with conditions (headers, query, method, a regex path) or
 * with more than one plain backend may take a key into the returned table, whose list holds those matches in the
 * specification's precedence across the host's tiers (host, wildcard, no host), up to the first match that takes
 * every request there. Locations where nginx's choice alone is the answer are left as they are. `ownerOf`: the
 * namespace owning a host under --strict-host-ownership (docs/adr/0008), whose lower tiers then hold its routes only.
 */
export function gatewayTable(
  servers: readonly Server[],
  rules: ReadonlyMap<string, ReadonlyMap<string, PathRule>>,
  entries: readonly GatewayEntry[],
  ownerOf: (host: string) => string | undefined = () => undefined,
  shared?: SharedHostInput,
): { servers: Server[]; table?: GatewayTable } {
  if (entries.length === 0) return { servers: [...servers] };
  const actions = new Map<GatewayAction, number>();
  const table: Record<string, GatewayCandidate[]> = {};
  const used = new Set<string>();
  const guard = shared ? new SharedHostGuard(rules, shared) : undefined;
  const wildcards = gatewayWildcards(entries);
  const out = servers.map((s) => {
    const wild = s.host === '_' || s.host.startsWith('*.') ? undefined : wildcardOf(s.host);
    const keys = s.host === '_' ? [''] : [s.host, ...(wild !== undefined && rules.has(wild) ? [wild] : []), ''];
    // --strict-host-ownership: the wildcard and host-less tiers of an owned host hold its owner's routes only (model/servers.ts).
    const owner = s.host === '_' ? undefined : ownerOf(s.host);
    const own = (e: GatewayEntry): boolean => e.host === s.host || owner === undefined || e.action.route.namespace === owner;
    const tiers: Candidate[][] = keys.map((k, i) => [
      ...ingressCandidates(rules.get(k), i === 0 ? undefined : owner),
      ...entries.filter((e) => e.host === k && own(e)).map((e) => ({ entry: e, match: e.match, order: e.order })),
    ]);
    // Gateway wildcards of two or more labels more (model/gateway/deep-wildcards.ts): after the host's own tiers, before the host-less one.
    const deep = deepTiers(s.host, wildcards, entries, own);
    tiers.splice(tiers.length - 1, 0, ...deep.map((tier) => tier.map((e) => ({ entry: e, match: e.match, order: e.order, deep: true as const }))));
    const mine = [...entries.filter((e) => keys.includes(e.host) && own(e)), ...deep.flat()];
    if (mine.length === 0) return s;
    const locations = withPaths(s.locations, mine).map((l): Location => {
      if (l.match === 'regex') return l;
      const list: GatewayEntry[] = [];
      let lua = false;
      // One protocol per location: its own target's (gRPC: backend-protocol GRPC or a GRPCRoute), else the first candidate's.
      let grpc = l.target.kind === 'upstream' ? l.target.settings?.backendProtocol === 'GRPC' : undefined;
      let retryCodes: string | undefined;
      walk: for (const tier of tiers) {
        for (const c of tier.filter((x) => applies(x.match.path, l)).sort(byPrecedence)) {
          if (!c.entry) break walk;
          // A deeper wildcard is a host of its own, above the host-less tier: the shared-path guard is for one host's paths.
          if (guard && !c.deep && !guard.allows(s.host, c.entry, l)) continue;
          grpc ??= c.entry.action.grpc === true;
          if (grpc !== (c.entry.action.grpc === true)) {
            shared?.problem(c.entry.action.route, `spec.rules[${c.entry.action.rule}]`, mixed(s.host, l, grpc), 'degraded');
            continue;
          }
          // One retry code set per location: nginx's proxy_next_upstream is a directive (docs/adr/0026).
          const codes = c.entry.action.retry?.codes.join(' ');
          retryCodes ??= codes;
          if (codes !== undefined && codes !== retryCodes) {
            shared?.problem(c.entry.action.route, `spec.rules[${c.entry.action.rule}].retry.codes`, retryClash(s.host, l, retryCodes ?? ''), 'degraded');
            continue;
          }
          list.push(c.entry);
          if (!pathOnly(c.entry.match)) {
            lua = true;
            continue;
          }
          if (!plainAction(c.entry.action)) lua = true;
          break walk;
        }
      }
      if (!lua) return l;
      const key = keyOf(s.host, l, used);
      table[key] = list.map((e) => {
        if (!actions.has(e.action)) actions.set(e.action, actions.size);
        return { match: e.match, action: actions.get(e.action) ?? 0 };
      });
      return { ...l, gateway: key };
    });
    return { ...s, locations };
  });
  return used.size === 0 ? { servers: out } : { servers: out, table: { actions: [...actions.keys()], locations: table } };
}
