// Host ownership: who defines each host, who owns it (--strict-host-ownership), and which aliases and www redirects a server may take.
import type { Ingress } from './input.js';
import { checkHost } from './names.js';
import type { ServerSettings } from './settings.js';
import type { ObjectRef } from './types.js';
import type { AddProblem, Reason } from './types.js';
import { coded } from './problems.js';
import { sortByAge, type AgeKey } from './age-sort.js';

/** The phrase every host-ownership Problem carries, so its Event reason is HostConflict (model/problems.ts). */
export const HOST_CONFLICT = 'another Ingress has this host';

/** One object's claim on host names: an Ingress's rule hosts, an attached HTTPRoute's hostnames, a Gateway listener's hostname. */
export interface HostClaim {
  readonly ref: ObjectRef;
  readonly created: string | undefined;
  readonly hosts: readonly string[];
}

/** Oldest first: creationTimestamp, then namespace, name and kind (ADR 0008's rule, across kinds). */
export function byClaimAge(a: { ref: ObjectRef; created: string | undefined }, b: { ref: ObjectRef; created: string | undefined }): number {
  const ta = a.created ?? '9999';
  const tb = b.created ?? '9999';
  if (ta !== tb) return Date.parse(ta) - Date.parse(tb) || (ta < tb ? -1 : 1);
  // As model/build.ts byAge orders Ingresses: namespace, then name (localeCompare); then kind.
  return a.ref.namespace.localeCompare(b.ref.namespace) || a.ref.name.localeCompare(b.ref.name) || (a.ref.kind < b.ref.kind ? -1 : a.ref.kind > b.ref.kind ? 1 : 0);
}

/** byClaimAge's key, for sortByAge (age-sort.ts): the same order with each timestamp parsed once. */
export function claimAgeKey(c: { ref: ObjectRef; created: string | undefined }): AgeKey {
  return { created: c.created, namespace: c.ref.namespace, name: c.ref.name, kind: c.ref.kind };
}

/**
 * Who owns each host: its oldest claimant, counting Ingress rule hosts, attached HTTPRoutes' hostnames and Gateway
 * listeners' hostnames (docs/adr/0008). What reaches every path of a host (server snippets and aliases,
 * client-certificate auth, TLS with its redirect and HSTS) comes only from the owner's namespace. With `strict`, the
 * host belongs to that namespace: the rules, TLS entries and canaries of other namespaces on it are refused.
 */
export class HostOwners {
  private readonly first = new Map<string, HostClaim>();

  /** `ingresses` oldest first (byAge), canaries left out: a canary never defines nor owns a host. `claims`: Gateway API claims. */
  constructor(
    ingresses: readonly Ingress[],
    readonly strict: boolean,
    claims: readonly HostClaim[] = [],
  ) {
    const all: HostClaim[] = ingresses.map((ing) => ({
      ref: { kind: 'Ingress', namespace: ing.metadata?.namespace ?? 'default', name: ing.metadata?.name ?? '' },
      created: ing.metadata?.creationTimestamp,
      hosts: (ing.spec?.rules ?? []).map((rule) => (rule.host ?? '').toLowerCase()),
    }));
    for (const c of claims) all.push(c);
    for (const claim of sortByAge(all, claimAgeKey)) {
      for (const host of claim.hosts) if (host !== '' && !checkHost(host) && !this.first.has(host)) this.first.set(host, claim);
    }
  }

  /** The oldest claimant of `host` (an Ingress with a rule for it, an HTTPRoute or Gateway listener serving it), if any. */
  definedBy(host: string): ObjectRef | undefined {
    return this.first.get(host.toLowerCase())?.ref;
  }

  /**
   * Why `ref` may not set `what` for `host`: it reaches every path of the host, and `ref` is not of the namespace of
   * the host's owner. Undefined for the owner's namespace and for hosts nobody claims.
   */
  hostWide(ref: ObjectRef, host: string, what: string): Reason | undefined {
    const owner = this.first.get(host.toLowerCase())?.ref;
    if (!owner || owner.namespace === ref.namespace) return undefined;
    return coded(
      'HostConflict',
      `${HOST_CONFLICT}: ${what} reaches every path of ${host}, whose owner is namespace ${owner.namespace} (its oldest claimant is ${owner.kind} ${owner.namespace}/${owner.name}); ` +
        `only the owner's namespace may set it, so it is not applied to ${host}`,
    );
  }

  /** The hosts whose owner is of another namespace than `namespace`, sorted. */
  ownedByOthers(namespace: string): string[] {
    return [...this.first]
      .filter(([, c]) => c.ref.namespace !== namespace)
      .map(([h]) => h)
      .sort();
  }

  /** The namespace `host` belongs to in strict mode; undefined when not strict or nobody defines it. */
  ownerOf(host: string): string | undefined {
    return this.strict ? this.first.get(host)?.ref.namespace : undefined;
  }

  /** Why `ref` may not use `host` (strict mode, another namespace's host), else undefined. */
  refusal(ref: ObjectRef, host: string): Reason | undefined {
    const owner = this.strict ? this.first.get(host)?.ref : undefined;
    if (!owner || owner.namespace === ref.namespace) return undefined;
    return coded(
      'HostConflict',
      `${HOST_CONFLICT}: ${host} belongs to namespace ${owner.namespace} (its oldest ${owner.kind} is ${owner.namespace}/${owner.name}) and --strict-host-ownership is on; ` +
        'use a host of your own namespace, or ask the operator to move the host',
    );
  }
}

/** One server's names as the model asked for them: its host, its aliases and its www redirect, with who set them. */
export interface NameClaim {
  readonly host: string;
  readonly settings: ServerSettings;
  /** The Ingress that set server-alias / from-to-www-redirect for this host, and its age rank (0 = oldest). */
  readonly alias?: { readonly ref: ObjectRef; readonly rank: number };
  readonly www?: { readonly ref: ObjectRef; readonly rank: number };
}

/** `www.x` for `x`, `x` for `www.x`; undefined for wildcards and the catch-all. */
function wwwTwin(host: string): string | undefined {
  if (host === '_' || host.startsWith('*.')) return undefined;
  return host.startsWith('www.') ? host.slice(4) : `www.${host}`;
}

/**
 * ingress-nginx's rules for extra server names, oldest Ingress first. An alias is ignored when any Ingress defines
 * it as a rule host or an older Ingress took it as an alias; a www redirect is skipped when its name is defined or
 * already taken. Every name then belongs to one server, so nginx never picks between two (it takes the first).
 */
export function settleNames(claims: readonly NameClaim[], owners: HostOwners, problem: AddProblem): Map<string, ServerSettings> {
  const taken = new Map<string, string>();
  const out = new Map<string, ServerSettings>(claims.map((c) => [c.host, c.settings]));
  const aliasField = 'metadata.annotations.server-alias';
  const byRank = (k: 'alias' | 'www'): NameClaim[] => claims.filter((c) => c[k] !== undefined).sort((a, b) => (a[k]?.rank ?? 0) - (b[k]?.rank ?? 0) || (a.host < b.host ? -1 : 1));
  for (const c of byRank('alias')) {
    const ref = c.alias?.ref;
    if (!ref) continue;
    const kept: string[] = [];
    for (const raw of c.settings.serverAlias ?? []) {
      const alias = raw.toLowerCase();
      const definer = owners.definedBy(alias);
      const holder = taken.get(alias);
      if (definer)
        problem(ref, aliasField, coded('HostConflict', `${HOST_CONFLICT}: alias ${alias} is ignored, the Ingress ${definer.namespace}/${definer.name} defines it as a rule host`), 'degraded');
      else if (holder !== undefined) problem(ref, aliasField, coded('HostConflict', `${HOST_CONFLICT}: alias ${alias} is ignored, an older Ingress took it as an alias of ${holder}`), 'degraded');
      else {
        taken.set(alias, c.host);
        kept.push(alias);
      }
    }
    out.set(c.host, { ...c.settings, serverAlias: kept });
  }
  for (const c of byRank('www')) {
    const other = wwwTwin(c.host);
    const ref = c.www?.ref;
    if (other === undefined || !ref || !c.settings.fromToWwwRedirect) continue;
    const definer = owners.definedBy(other);
    const holder = taken.get(other);
    const why = definer ? `the Ingress ${definer.namespace}/${definer.name} defines it` : holder !== undefined ? `an older Ingress took it as an alias of ${holder}` : undefined;
    if (why === undefined) {
      taken.set(other, c.host);
      continue;
    }
    problem(
      ref,
      'metadata.annotations.from-to-www-redirect',
      coded('HostConflict', `${HOST_CONFLICT}: the redirect from ${other} to ${c.host} is not created, already exists an Ingress with that host (${why})`),
      'degraded',
    );
    out.set(c.host, { ...(out.get(c.host) ?? c.settings), fromToWwwRedirect: false });
  }
  return out;
}
