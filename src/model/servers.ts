// The servers of the model: one per host, its tiers of rules (host, wildcard, no host), guarded by host ownership.
import { HOST_CONFLICT, settleNames, type HostOwners, type NameClaim } from './hosts.js';
import { RegexGuard, literalPrefix } from './regex-capture.js';
import { compileLocations, regexLocations, type PathRule } from './routes.js';
import type { ServerSettings } from './settings.js';
import type { ObjectRef, Server, Target } from './types.js';
import type { AddProblem } from './types.js';
import { coded } from './problems.js';

/** What the servers are made from: the builder's tables, with who set each server setting. */
export interface ServerInput {
  readonly rules: ReadonlyMap<string, ReadonlyMap<string, PathRule>>;
  readonly regexRules: ReadonlyMap<string, ReadonlyMap<string, PathRule>>;
  readonly hostDefaults: ReadonlyMap<string, Target>;
  readonly hostSettings: ReadonlyMap<string, ServerSettings>;
  /** host → the Ingress whose server-alias / from-to-www-redirect the host's settings took. */
  readonly aliasBy: ReadonlyMap<string, ObjectRef>;
  readonly wwwBy: ReadonlyMap<string, ObjectRef>;
  /** Each regex rule → its field (`spec.rules[i].http.paths[j]`), for Problems. */
  readonly regexField: ReadonlyMap<PathRule, string>;
  readonly owners: HostOwners;
  rankOf(ref: ObjectRef): number;
  refOf(rank: number): ObjectRef;
  problem: AddProblem;
}

const NOT_FOUND: Target = { kind: 'not-found' };

function wildcardOf(host: string): string | undefined {
  const dot = host.indexOf('.');
  return dot > 0 ? `*${host.slice(dot)}` : undefined;
}

const nsOf = (t: Target | undefined): string | undefined => (t?.kind === 'upstream' ? t.ingress.namespace : undefined);

/** Reports each regex rule the guard refused, once, with the hosts it was refused on. */
function reportRegexes(b: ServerInput, guard: RegexGuard): void {
  for (const [rule, { hosts, owner }] of guard.refused) {
    if (rule.target.kind !== 'upstream') continue;
    const more = hosts.length > 1 ? ` (and ${hosts.length - 1} more hosts)` : '';
    const host = hosts[0] === '_' ? 'hosts without a rule of their own' : hosts[0];
    b.problem(
      rule.target.ingress,
      `${b.regexField.get(rule) ?? 'spec.rules'}.path`,
      coded(
        'PathConflict',
        `regex ${rule.path} could capture paths of the older Ingress ${owner.namespace}/${owner.name} of another namespace on ${host}${more} ` +
          `(nginx tries regex paths first; its literal prefix "${literalPrefix(rule.path)}" overlaps one of that Ingress's paths); it is not served there. ` +
          'Start the regex with a path prefix no other namespace serves on this host, e.g. /mine(/|$)(.*)',
      ),
    );
  }
}

/** The locations of one named server; with an owner (strict mode), other namespaces' lower tiers are left out and named in `withhold`. */
interface ServerContext {
  readonly hosts: ReadonlySet<string>;
  readonly fallback: Target;
  readonly guard: RegexGuard;
  readonly withhold: (r: ObjectRef, field: 'spec.rules' | 'spec.defaultBackend') => void;
}

function locationsOf(b: ServerInput, host: string, { hosts, fallback, guard, withhold }: ServerContext): Server['locations'] {
  const owner = b.owners.ownerOf(host);
  const mine = (r: PathRule): boolean => owner === undefined || nsOf(r.target) === owner;
  const wild = host.startsWith('*.') ? undefined : wildcardOf(host);
  const keys = [host, ...(wild && hosts.has(wild) ? [wild] : []), ''];
  const all = keys.map((k) => [[...(b.rules.get(k)?.values() ?? [])], [...(b.regexRules.get(k)?.values() ?? [])]] as const);
  const tiers = all.map(([plain], i) => (i === 0 ? plain : plain.filter(mine)));
  let regexTiers = all.map(([, regex], i) => (i === 0 ? regex : regex.filter(mine)));
  if (owner === undefined) regexTiers = guard.filter(host, keys, regexTiers);
  for (const [plain, regex] of all.slice(1)) for (const r of [...plain, ...regex]) if (!mine(r) && r.target.kind === 'upstream') withhold(r.target.ingress, 'spec.rules');
  const wildDefault = wild ? b.hostDefaults.get(wild) : undefined;
  const own = b.hostDefaults.get(host) ?? (owner === undefined || nsOf(wildDefault) === owner ? wildDefault : undefined);
  const foreign = owner !== undefined && !own && fallback.kind === 'upstream' && fallback.ingress.kind === 'Ingress' && fallback.ingress.namespace !== owner;
  if (foreign && fallback.kind === 'upstream') withhold(fallback.ingress, 'spec.defaultBackend');
  return [...regexLocations(regexTiers), ...compileLocations(tiers, own ?? (foreign ? NOT_FOUND : fallback))];
}

/**
 * The servers, sorted by host, then the catch-all `_`. `routePaths`: the paths of HTTPRoute matches that are not path
 * rules (model/gateway/shared-host.ts gatewayLiterals). With --strict-host-ownership a host's server takes wildcard
 * and host-less rules and default backends of its owner's namespace only (docs/adr/0008).
 */
export function buildServers(b: ServerInput, fallback: Target, routePaths: ReadonlyMap<string, readonly PathRule[]> = new Map()): Server[] {
  const rulesOf = (h: string): PathRule[] => [...(b.rules.get(h)?.values() ?? [])];
  // HTTPRoute matches with conditions or a regex are served paths too: a newer namespace's regex may not capture them.
  const servedOf = (h: string): PathRule[] => [...rulesOf(h), ...(routePaths.get(h) ?? [])];
  const guard = new RegexGuard({ plainOf: servedOf, rankOf: (r) => b.rankOf(r), refOf: (n) => b.refOf(n) });
  const hosts = new Set([...b.rules.keys(), ...b.regexRules.keys(), ...b.hostDefaults.keys()].filter((h) => h !== ''));
  const withheld = new Map<string, [ObjectRef, string]>();
  const withhold = (r: ObjectRef, field: string): void => {
    withheld.set(`${r.namespace}/${r.name} ${field}`, [r, field]);
  };
  const servers: Server[] = [];
  const claims: NameClaim[] = [];
  for (const host of [...hosts].sort()) {
    servers.push({ host, locations: locationsOf(b, host, { hosts, fallback, guard, withhold }) });
    const settings = b.hostSettings.get(host);
    const alias = b.aliasBy.get(host);
    const www = b.wwwBy.get(host);
    if (settings) claims.push({ host, settings, ...(alias ? { alias: { ref: alias, rank: b.rankOf(alias) } } : {}), ...(www ? { www: { ref: www, rank: b.rankOf(www) } } : {}) });
  }
  const catchAll = guard.filter('_', [''], [[...(b.regexRules.get('')?.values() ?? [])]]);
  servers.push({ host: '_', locations: [...regexLocations(catchAll), ...compileLocations([rulesOf('')], fallback)] });
  reportRegexes(b, guard);
  for (const [ref, field] of [...withheld.values()].sort((x, y) => (x[1] < y[1] ? -1 : x[1] > y[1] ? 1 : 0))) {
    const what = field === 'spec.rules' ? 'rules without a host and wildcard rules serve' : 'default backend serves';
    b.problem(
      ref,
      field,
      coded(
        'HostConflict',
        `${HOST_CONFLICT}: with --strict-host-ownership, this Ingress's ${what} hosts of namespace ${ref.namespace} and hosts ` +
          "no Ingress defines, never another namespace's hosts; give the rule a host of your own namespace",
      ),
      'degraded',
    );
  }
  const settled = settleNames(claims, b.owners, (o, f, r, s) => {
    b.problem(o, f, r, s);
  });
  return servers.map((s) => {
    const { serverAlias, ...rest } = settled.get(s.host) ?? {};
    const settings: ServerSettings = serverAlias && serverAlias.length > 0 ? { serverAlias, ...rest } : rest;
    return Object.keys(settings).length > 0 ? { ...s, settings } : s;
  });
}

/** The order of a model's servers: by host, the catch-all `_` last (buildServers). */
export function serverOrder(x: { readonly host: string }, y: { readonly host: string }): number {
  if (x.host === '_' || y.host === '_') return (x.host === '_' ? 1 : 0) - (y.host === '_' ? 1 : 0);
  return x.host < y.host ? -1 : x.host > y.host ? 1 : 0;
}
