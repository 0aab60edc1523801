// What an incremental sync rebuilds (docs/adr/0039): the changes between the last built snapshot and the new one,
// and the Ingresses whose part of the model they can change, or why the whole must be built instead.
import type { Ingress, ModelOptions, Snapshot } from '../model/input.js';
import { nsKey } from '../model/keys.js';
import { sliceServiceKey } from '../model/backends.js';
import { hostNeighbourhood, inNamespaces, namesOf, reachesAnywhere, indexedIn } from '../webhook/neighbours.js';
import { middleChanges } from '../model/list-fold.js';

/** The lists whose change reaches every host (classes, ConfigMaps, Gateway API, resolved names): the whole is built. */
const CLUSTER_WIDE = [
  'ingressClasses',
  'configMaps',
  'gatewayClasses',
  'gateways',
  'httpRoutes',
  'grpcRoutes',
  'tlsRoutes',
  'tcpRoutes',
  'udpRoutes',
  'referenceGrants',
  'backendTLSPolicies',
  'namespaces',
  'externalNames',
] as const satisfies readonly (keyof Snapshot)[];

/** More rounds of (names, versions, namespaces) than this: the whole is built (each round adds at least one Ingress). */
const MAX_ROUNDS = 64;
/** A neighbourhood larger than this share of all Ingresses is not worth splicing, beyond SMALL Ingresses (where every path is cheap). */
const MAX_SHARE = 0.25;
const SMALL = 200;

/**
 * The rebuilt part: every version (last served, new) of the Ingresses in `namespaces`, which is closed under shared
 * host names; `names` every name those versions give a server (with www twins); `snapshot` the new snapshot cut to
 * them (Services and EndpointSlices of their namespaces, every Secret, every cluster-wide object).
 */
export interface Scope {
  readonly kind: 'part';
  readonly namespaces: ReadonlySet<string>;
  readonly names: ReadonlySet<string>;
  readonly snapshot: Snapshot;
  /** Ingresses (versions) in the part, for logs and benchmarks. */
  readonly size: number;
}

export type ScopeOrWhole = Scope | { readonly kind: 'whole'; readonly why: string };

/** Whether two lists hold the same objects in the same order (the store's objects are frozen: same object, same content). */
function sameObjects(a: readonly object[] = [], b: readonly object[] = []): boolean {
  return a === b || (a.length === b.length && a.every((x, i) => x === b[i]));
}

/** The objects of `b` not in `a`, and of `a` not in `b` (the store's lists keep their order: model/list-fold.ts). */
function changes<T extends object>(a: readonly T[], b: readonly T[]): T[] {
  const { came, gone } = middleChanges(a, b);
  return [...came, ...gone];
}

const nsOf = (o: { readonly metadata?: { readonly namespace?: string } }): string => o.metadata?.namespace || 'default';

/** What the last build left: the raw snapshot it read and the Ingress versions it served (last valid forms included). */
export interface LastBuild {
  readonly raw: Snapshot;
  readonly served: readonly Ingress[];
}

/** Why a change between `last` and `next` needs the whole build whatever changed with it, or undefined. */
function clusterWide(last: LastBuild, next: Snapshot, opts: ModelOptions): string | undefined {
  for (const k of CLUSTER_WIDE) if (!sameObjects(last.raw[k], next[k])) return `${k} changed`;
  if (opts.gateway !== undefined && (next.gateways?.length ?? 0) > 0) return 'Gateways are served';
  const s = opts.stream;
  if (s?.tcp !== undefined || s?.udp !== undefined || s?.passthrough === true) return 'a stream section is configured';
  return undefined;
}

/**
 * Where the rebuild starts: the changed Ingresses (both versions), the namespaces of changed Services, EndpointSlices
 * and Secrets, and the Ingresses whose annotations name a changed Secret; a string when one of them reaches everywhere.
 */
function seedsOf(last: LastBuild, next: Snapshot, union: Union, opts: ModelOptions): { seeds: Set<Ingress>; namespaces: Set<string> } | string {
  const seeds = new Set<Ingress>(changes(last.raw.ingresses, next.ingresses));
  const namespaces = new Set<string>();
  const dbs = opts.defaultBackendService;
  const touched = [...changes(last.raw.services, next.services).map(nsKey), ...changes(last.raw.endpointSlices, next.endpointSlices).map((e) => sliceServiceKey(e) ?? nsKey(e))];
  for (const key of touched) {
    if (dbs && key === `${dbs.namespace}/${dbs.name}`) return 'the default backend Service changed';
    namespaces.add(key.slice(0, key.indexOf('/')));
  }
  const dc = opts.tls?.defaultCertificate;
  const refs = new Set<string>();
  for (const secret of changes(last.raw.secrets, next.secrets)) {
    const ref = nsKey(secret);
    if (dc && `${dc.namespace}/${dc.name}` === ref) return 'the default certificate changed';
    namespaces.add(nsOf(secret));
    refs.add(ref);
  }
  // Annotations may name a Secret of another namespace (auth-tls-secret, proxy-ssl-secret): their Ingresses too. One
  // pass for all changed Secrets: a pass per Secret was 9,000,000 steps when the whole followed the head (docs/adr/0059).
  if (refs.size > 0) for (const ing of [...union.main, ...union.extra]) if (Object.values(ing.metadata?.annotations ?? {}).some((v) => refs.has(v))) seeds.add(ing);
  return { seeds, namespaces };
}

/** The part of `next` to rebuild after `last`, or why the whole must be built. */
export function scopeOf(last: LastBuild, next: Snapshot, opts: ModelOptions): ScopeOrWhole {
  const wide = clusterWide(last, next, opts);
  if (wide !== undefined) return { kind: 'whole', why: wide };
  const union = unionOf(last, next);
  const start = seedsOf(last, next, union, opts);
  if (typeof start === 'string') return { kind: 'whole', why: start };
  const { seeds, namespaces } = start;
  if (seeds.size === 0 && namespaces.size === 0) return { kind: 'whole', why: 'nothing the part covers changed' };
  const size = union.main.length + union.extra.length;
  // The neighbourhood only grows from its seeds: too many seeds (the whole after the startup head) is too large at once.
  const limit = size > SMALL ? size * MAX_SHARE : Infinity;
  const tooLarge = { kind: 'whole', why: 'the neighbourhood is too large' } as const;
  if (seeds.size > limit) return tooLarge;
  if (reachesAnywhere(union.main, union.extra)) return { kind: 'whole', why: 'an Ingress without host or with a default backend' };
  const members = closure(union, seeds, namespaces, limit);
  if (members === undefined) return tooLarge;
  const names = new Set<string>();
  for (const ing of members) for (const n of namesOf(ing)) for (const v of [n, `www.${n}`, n.startsWith('www.') ? n.slice(4) : n]) names.add(v);
  const dbs = opts.defaultBackendService;
  const spaces = dbs ? new Set([...namespaces, dbs.namespace]) : namespaces;
  const snapshot: Snapshot = {
    ...next,
    ingresses: next.ingresses.filter((i) => namespaces.has(nsOf(i))),
    services: inNamespaces(next.services, spaces),
    endpointSlices: inNamespaces(next.endpointSlices, spaces),
  };
  return { kind: 'part', namespaces, names, snapshot, size: members.size };
}

/** The new Ingresses (`main`, the store's list) and the last served versions not among them (`extra`). */
interface Union {
  readonly main: readonly Ingress[];
  readonly extra: readonly Ingress[];
}

/** The Union of a change: the new list, and the last served versions not in it (older last valid forms, removed Ingresses). */
function unionOf(last: LastBuild, next: Snapshot): Union {
  const now = new Set(next.ingresses);
  const gone = last.served.filter((i) => !now.has(i));
  const removed = changes(next.ingresses, last.raw.ingresses).filter((i) => !now.has(i));
  return { main: next.ingresses, extra: [...new Set([...gone, ...removed])] };
}

/**
 * The seeds' neighbourhood closed under three steps until none adds an Ingress: shared host names (neighbours.ts),
 * every version of a member, every Ingress of a member's namespace (a namespace's Services, Secrets and Problems are
 * rebuilt whole). `namespaces` is filled in. Undefined when it does not settle within MAX_ROUNDS, or grows past
 * `limit` Ingresses (it only grows: the whole would be built anyway).
 */
function closure(union: Union, seeds: Set<Ingress>, namespaces: Set<string>, limit: number): Set<Ingress> | undefined {
  let members = seeds;
  for (let round = 0; round < MAX_ROUNDS; round += 1) {
    const before = members.size;
    members = hostNeighbourhood(members, union.main, union.extra);
    if (members.size > limit) return undefined;
    for (const ing of members) namespaces.add(nsOf(ing));
    for (const ing of indexedIn(union.main, union.extra, namespaces)) members.add(ing);
    if (members.size > limit) return undefined;
    if (members.size === before && round > 0) return members;
  }
  return undefined;
}
