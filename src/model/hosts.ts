// Host ownership: who defines each host, who owns it (--strict-host-ownership), and which aliases and www redirects a server may take.
import type { Ingress } from './input.js';
import { checkHost } from './names.js';
import type { ServerSettings } from './settings.js';
import type { ObjectRef, Problem } from './types.js';

type AddProblem = (object: ObjectRef, field: string, reason: string, severity?: Problem['severity']) => void;

/** The phrase every host-ownership Problem carries, so its Event reason is HostConflict (model/problems.ts). */
export const HOST_CONFLICT = 'another Ingress has this host';

/**
 * The hosts the served Ingresses define as rule hosts, each with its oldest Ingress. With `strict`, a host belongs to
 * that Ingress's namespace (docs/adr/0008): the rules, TLS entries and canaries of other namespaces on it are refused.
 */
export class HostOwners {
  private readonly first = new Map<string, ObjectRef>();

  /** `ingresses` oldest first (byAge), canaries left out: a canary never defines nor owns a host. */
  constructor(
    ingresses: readonly Ingress[],
    readonly strict: boolean,
  ) {
    for (const ing of ingresses) {
      const ref: ObjectRef = { kind: 'Ingress', namespace: ing.metadata?.namespace ?? 'default', name: ing.metadata?.name ?? '' };
      for (const rule of ing.spec?.rules ?? []) {
        const host = (rule.host ?? '').toLowerCase();
        if (host !== '' && !checkHost(host) && !this.first.has(host)) this.first.set(host, ref);
      }
    }
  }

  /** The oldest Ingress with a rule for `host`, if any. */
  definedBy(host: string): ObjectRef | undefined {
    return this.first.get(host.toLowerCase());
  }

  /** The namespace `host` belongs to in strict mode; undefined when not strict or nobody defines it. */
  ownerOf(host: string): string | undefined {
    return this.strict ? this.first.get(host)?.namespace : undefined;
  }

  /** Why `ref` may not use `host` (strict mode, another namespace's host), else undefined. */
  refusal(ref: ObjectRef, host: string): string | undefined {
    const owner = this.strict ? this.first.get(host) : undefined;
    if (!owner || owner.namespace === ref.namespace) return undefined;
    return (
      `${HOST_CONFLICT}: ${host} belongs to namespace ${owner.namespace} (its oldest Ingress is ${owner.namespace}/${owner.name}) and --strict-host-ownership is on; ` +
      'use a host of your own namespace, or ask the operator to move the host'
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
export function wwwTwin(host: string): string | undefined {
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
      if (definer) problem(ref, aliasField, `${HOST_CONFLICT}: alias ${alias} is ignored, the Ingress ${definer.namespace}/${definer.name} defines it as a rule host`, 'degraded');
      else if (holder !== undefined) problem(ref, aliasField, `${HOST_CONFLICT}: alias ${alias} is ignored, an older Ingress took it as an alias of ${holder}`, 'degraded');
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
      `${HOST_CONFLICT}: the redirect from ${other} to ${c.host} is not created, already exists an Ingress with that host (${why})`,
      'degraded',
    );
    out.set(c.host, { ...(out.get(c.host) ?? c.settings), fromToWwwRedirect: false });
  }
  return out;
}
