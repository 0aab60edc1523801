// The incremental sync's splice (docs/adr/0039): the last model with the rebuilt part's hosts, upstreams, problems
// and TLS entries put in place of the old ones. Pure; equal to the whole build (test/unit/incremental-sync.test.ts).
import type { Model, Server } from '../model/types.js';
import type { TlsModel } from '../model/tls-types.js';
import type { Scope } from './incremental-scope.js';
import { localeOrder } from '../model/keys.js';

const byString =
  <T>(key: (t: T) => string) =>
  (a: T, b: T): number =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * `kept` and `added` in the order sorting their concatenation by `cmp` gives (stable: `kept` first on a tie), merged
 * in one pass when `kept` is in order already, as the last model's lists are: sorting the 10,000 servers and
 * upstreams again was a tenth of a one-Ingress sync.
 */
function merged<T extends object>(kept: readonly T[], added: readonly T[], cmp: (a: T, b: T) => number): T[] {
  let prev: T | undefined;
  for (const x of kept) {
    if (prev !== undefined && cmp(prev, x) > 0) return [...kept, ...added].sort(cmp);
    prev = x;
  }
  const more = [...added].sort(cmp);
  const out: T[] = [];
  let j = 0;
  for (const x of kept) {
    for (let y = more[j]; y !== undefined && cmp(x, y) > 0; y = more[j]) {
      out.push(y);
      j += 1;
    }
    out.push(x);
  }
  return [...out, ...more.slice(j)];
}

/** What the splice cannot take from a part: the sections built from every host at once. */
function wholeOnly(m: Model): string | undefined {
  if (m.stream) return 'a stream section';
  if (m.gateway || m.gatewayPorts || m.misdirect || m.tls.gatewayDefault) return 'Gateway API routes';
  return undefined;
}

/**
 * `last` (the whole model of the last build) with `part` (the model of `scope.snapshot`) spliced in: servers of the
 * scope's names and of the part, everything of the scope's namespaces. A string: why the whole must be built.
 */
export function spliceModel(last: Model, part: Model, scope: Scope): Model | string {
  const why = wholeOnly(last) ?? wholeOnly(part);
  if (why !== undefined) return why;
  const inScope = (ns: string): boolean => scope.namespaces.has(ns);
  const hosts = new Set(scope.names);
  for (const s of part.servers) if (s.host !== '_') hosts.add(s.host);
  const kept: Server[] = [];
  let catchAll: Server | undefined;
  for (const s of last.servers) {
    if (s.host === '_') catchAll = s;
    else if (!hosts.has(s.host)) kept.push(s);
  }
  // A kept host never serves a rebuilt namespace's Ingress: the scope is closed under names and namespaces.
  for (const s of kept)
    for (const l of s.locations)
      if (l.target.kind === 'upstream' && l.target.ingress.kind === 'Ingress' && inScope(l.target.ingress.namespace)) return `${s.host} is outside the part but serves ${l.target.ingress.namespace}`;
  if (!catchAll) return 'no catch-all server';
  const servers = merged(
    kept,
    part.servers.filter((s) => s.host !== '_'),
    byString((s) => s.host),
  );
  servers.push(catchAll);
  const upstreams = merged(
    last.upstreams.filter((u) => !inScope(u.service.namespace)),
    part.upstreams.filter((u) => inScope(u.service.namespace)),
    (x, y) => localeOrder(x.name, y.name),
  );
  return {
    servers,
    upstreams,
    ingresses: [...last.ingresses.filter((r) => !inScope(r.namespace)), ...part.ingresses.filter((r) => inScope(r.namespace))],
    problems: [...last.problems.filter((p) => !inScope(p.object.namespace)), ...part.problems.filter((p) => inScope(p.object.namespace))],
    tls: spliceTls(last.tls, part.tls, hosts, inScope),
  };
}

/** TLS: per host from the part within `hosts`, per Ingress by namespace; the global parts (settings, default, DH) are the part's. */
function spliceTls(last: TlsModel, part: TlsModel, hosts: ReadonlySet<string>, inScope: (ns: string) => boolean): TlsModel {
  const tlsHosts = merged(
    last.hosts.filter((h) => !hosts.has(h.host)),
    part.hosts.filter((h) => hosts.has(h.host)),
    byString((h) => h.host),
  );
  const used = new Set<string>();
  for (const h of tlsHosts) if (h.certificate !== undefined) used.add(h.certificate);
  if (part.defaultCertificate !== undefined) used.add(part.defaultCertificate);
  const certificates = new Map(last.certificates.map((c) => [c.id, c]));
  for (const c of part.certificates) certificates.set(c.id, c);
  const ingresses = merged(
    Object.entries(last.ingresses).filter(([k]) => !inScope(k.slice(0, k.indexOf('/')))),
    Object.entries(part.ingresses).filter(([k]) => inScope(k.slice(0, k.indexOf('/')))),
    byString(([k]) => k),
  );
  return {
    settings: part.settings,
    certificates: [...certificates.values()].filter((c) => used.has(c.id)).sort(byString((c) => c.id)),
    hosts: tlsHosts,
    defaultCertificate: part.defaultCertificate,
    servers: merged(
      last.servers.filter((s) => !hosts.has(s.host)),
      part.servers.filter((s) => hosts.has(s.host)),
      byString((s) => s.host),
    ),
    ingresses: Object.fromEntries(ingresses),
    ...(part.dhParam ? { dhParam: part.dhParam } : {}),
  };
}
