// The incremental sync's splice (docs/adr/0039): the last model with the rebuilt part's hosts, upstreams, problems
// and TLS entries put in place of the old ones. Pure; equal to the whole build (test/unit/incremental-sync.test.ts).
import type { Model, Server } from '../model/types.js';
import type { TlsModel } from '../model/tls-types.js';
import type { Scope } from './incremental-scope.js';
import { byUpstreamName } from '../model/keys.js';

const byString =
  <T>(key: (t: T) => string) =>
  (a: T, b: T): number =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * Lists merged() made (or found in order): in the order of their cmp, once the elements their callers filter out (the
 * catch-all server) are left aside. A list filtered from one of them is in order without a pass to check it.
 */
const inOrder = new WeakSet<readonly object[]>();

/**
 * `kept` and `added` in the order sorting their concatenation by `cmp` gives (stable: `kept` first on a tie). `kept`
 * is a subsequence of `from`; when `from` is a list merged() made, or `kept` is found in order, each added element is
 * put in its place by a binary search: sorting the 10,000 servers and upstreams again was a tenth of a one-Ingress
 * sync, and at 100,000 the one-pass merge's comparisons (two per element, a collator's for upstreams) 0.1 s.
 */
function merged<T extends object>(kept: readonly T[], added: readonly T[], cmp: (a: T, b: T) => number, from?: readonly T[]): T[] {
  if (from === undefined || !inOrder.has(from)) {
    for (let i = 1; i < kept.length; i += 1) if (cmp(kept[i - 1] as T, kept[i] as T) > 0) return [...kept, ...added].sort(cmp);
  }
  const more = [...added].sort(cmp);
  const out: T[] = [];
  let next = 0;
  for (const y of more) {
    // after every kept element not above y
    let lo = next;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(kept[mid] as T, y) > 0) hi = mid;
      else lo = mid + 1;
    }
    for (; next < lo; next += 1) out.push(kept[next] as T);
    out.push(y);
  }
  for (; next < kept.length; next += 1) out.push(kept[next] as T);
  inOrder.add(out);
  return out;
}

/** The namespaces of the Ingresses whose paths `s` serves (per server object: model objects are never changed). */
const servedOf = new WeakMap<Server, readonly string[]>();
function servedNamespaces(s: Server): readonly string[] {
  let out = servedOf.get(s);
  if (out === undefined) {
    const ns = new Set<string>();
    for (const l of s.locations) if (l.target.kind === 'upstream' && l.target.ingress.kind === 'Ingress') ns.add(l.target.ingress.namespace);
    out = [...ns];
    servedOf.set(s, out);
  }
  return out;
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
    else if (!hosts.has(s.host)) {
      // A kept host never serves a rebuilt namespace's Ingress: the scope is closed under names and namespaces.
      const ns = servedNamespaces(s).find(inScope);
      if (ns !== undefined) return `${s.host} is outside the part but serves ${ns}`;
      kept.push(s);
    }
  }
  if (!catchAll) return 'no catch-all server';
  const servers = merged(
    kept,
    part.servers.filter((s) => s.host !== '_'),
    byString((s) => s.host),
    last.servers,
  );
  servers.push(catchAll);
  const upstreams = merged(
    last.upstreams.filter((u) => !inScope(u.service.namespace)),
    part.upstreams.filter((u) => inScope(u.service.namespace)),
    byUpstreamName,
    last.upstreams,
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
    last.hosts,
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
      last.servers,
    ),
    ingresses: Object.fromEntries(ingresses),
    ...(part.dhParam ? { dhParam: part.dhParam } : {}),
  };
}
