// The dynamic split of the last render, kept so that the next one is made from the servers that changed
// (docs/adr/0051). At 100,000 Ingresses the split asked every server for its entry on each render, by identity
// (render/identity-memo.ts): five hash look-ups a server, 0.4-0.6 s of a sync that changed one Ingress. A sync's model
// keeps its unchanged servers, upstreams and TLS entries as the same objects (worker/splice.ts), so the servers a walk
// of the two sorted lists does not find in both, and the kept servers that name a changed upstream, TLS host or Ingress
// TLS policy, are all that can have another entry; the rest keep theirs, and the route table is the last one with
// those hosts changed.
import { walkSorted } from '../model/list-fold.js';
import { serverOrder } from '../model/servers.js';
import { byUpstreamName } from '../model/keys.js';
import { wildcardOf } from '../model/dynamic.js';
import type { Model, Server } from '../model/types.js';
import type { RouteEntry } from './memo.js';
import { OverlayMap } from './overlay-map.js';
import { serverRefs } from './kept-deps.js';

/** What a split leaves for the next render: per server of its model (by index), the entry and whether it is routed. */
export interface SplitState {
  /** The render context the entries were made in. */
  readonly context: string;
  readonly model: Model;
  readonly entries: readonly RouteEntry[];
  readonly routed: readonly boolean[];
  /** Each wildcard host with a server, and whether that server is routed (an exact host under it is routed only then). */
  readonly wildcards: ReadonlyMap<string, boolean>;
  /** Each routed host's entry ('_' the default). */
  readonly routeHosts: ReadonlyMap<string, string>;
  /** The profiles the routed hosts run in: block → its name and how many routed hosts use it. */
  readonly profiles: ReadonlyMap<string, { readonly name: string; readonly n: number }>;
  /** Entries made by splits from a state since the last whole split: the memo's entries they replaced are still kept. */
  readonly made: number;
}

/** The element at `i`, which the caller knows is there. */
const at = <T>(list: readonly T[], i: number): T => list[i] as T;

/** A server whose entry decides for others (the catch-all, a wildcard): a change to it is split whole. */
const decidesForOthers = (s: Server): boolean => s.host === '_' || s.host.startsWith('*.');

/** Whether a host whose own entry is `e` is routed, under the wildcards of `wildcards` (model/dynamic.ts's rule). */
function routedWith(host: string, e: RouteEntry, wildcards: ReadonlyMap<string, boolean>): boolean {
  if (!e.eligible) return false;
  const wild = wildcardOf(host);
  return wild === undefined || wildcards.get(wild) !== false;
}

const byHost = (x: { readonly host: string }, y: { readonly host: string }): number => (x.host < y.host ? -1 : x.host > y.host ? 1 : 0);

/** The keys of the elements on one side only of two sorted lists; undefined when there are more than `most`. */
function changedKeys<T extends object>(a: readonly T[], b: readonly T[], cmp: (x: T, y: T) => number, key: (t: T) => string, most: number): Set<string> | undefined {
  const out = new Set<string>();
  let n = 0;
  walkSorted(a, b, cmp, { same: () => undefined, gone: (i) => (n += 1) <= most && out.add(key(a[i] as T)), came: (j) => (n += 1) <= most && out.add(key(b[j] as T)) });
  return n <= most ? out : undefined;
}

/** What a kept server's entry also depends on (render/kept-deps.ts) that changed: upstream names, TLS hosts, Ingress keys. */
interface Changed {
  readonly upstreams: ReadonlySet<string>;
  readonly hosts: ReadonlySet<string>;
  readonly owners: ReadonlySet<string>;
}

function changedDeps(last: Model, now: Model, most: number): Changed | undefined {
  const upstreams = changedKeys(last.upstreams, now.upstreams, byUpstreamName, (u) => u.name, most);
  const hosts = changedKeys(last.tls.servers, now.tls.servers, byHost, (t) => t.host, most);
  if (upstreams === undefined || hosts === undefined) return undefined;
  const owners = new Set<string>();
  if (last.tls.ingresses !== now.tls.ingresses) {
    // Ingresses with every default are left out of this record: it holds the few with TLS settings of their own
    for (const [k, v] of Object.entries(now.tls.ingresses)) if (last.tls.ingresses[k] !== v) owners.add(k);
    for (const k of Object.keys(last.tls.ingresses)) if (!(k in now.tls.ingresses)) owners.add(k);
  }
  return { upstreams, hosts, owners };
}

function touches(s: Server, c: Changed): boolean {
  if (c.hosts.has(s.host)) return true;
  if (c.upstreams.size === 0 && c.owners.size === 0) return false;
  const r = serverRefs(s);
  return r.targets.some((n) => c.upstreams.has(n)) || r.owners.some((k) => c.owners.has(k));
}

/**
 * The split of `model` from `last` (the same render context), each server that may have another entry asked `entryOf`;
 * undefined when it must be split whole: a catch-all or wildcard server changed, or so much changed that a whole
 * split is as quick (and prunes the memo).
 */
export function splitFrom(last: SplitState, model: Model, entryOf: (s: Server) => RouteEntry): SplitState | undefined {
  const before = last.model.servers;
  const now = model.servers;
  const most = Math.max(64, now.length >> 3);
  if (last.made > most) return undefined;
  // each server of `now`: its index in `before` when it is the same object there (-1: new), its entry, whether routed
  const from = new Int32Array(now.length).fill(-1);
  const entries = new Array<RouteEntry>(now.length);
  const routed = new Array<boolean>(now.length);
  const left: number[] = [];
  const came: number[] = [];
  walkSorted(before, now, serverOrder, {
    same: (i, j) => {
      from[j] = i;
      entries[j] = at(last.entries, i);
      routed[j] = at(last.routed, i);
    },
    gone: (i) => left.push(i),
    came: (j) => came.push(j),
  });
  if (left.length + came.length > most || left.some((i) => decidesForOthers(at(before, i))) || came.some((j) => decidesForOthers(at(now, j)))) return undefined;
  const changed = changedDeps(last.model, model, most);
  if (changed === undefined) return undefined;
  // the routed hosts whose last entry is replaced or gone, and the servers asked for an entry
  const gone = new Map<string, RouteEntry>();
  for (const i of left) if (last.routed[i] === true) gone.set(at(before, i).host, at(last.entries, i));
  const asked = [...came];
  // kept servers whose upstreams or TLS entries changed are asked again; a wildcard or the catch-all: split whole
  if (changed.hosts.size + changed.upstreams.size + changed.owners.size > 0) {
    for (let j = 0; j < now.length; j += 1) {
      const i = from[j] ?? -1;
      const s = at(now, j);
      if (i < 0 || !touches(s, changed)) continue;
      if (decidesForOthers(s)) return undefined;
      if (last.routed[i] === true) gone.set(s.host, at(last.entries, i));
      asked.push(j);
    }
  }
  for (const j of asked) {
    const s = at(now, j);
    entries[j] = entryOf(s);
    routed[j] = routedWith(s.host, entries[j], last.wildcards);
  }
  const profiles = new Map(last.profiles);
  const count = (e: RouteEntry, by: number): void => {
    for (const [body, name] of e.profiles) {
      const n = (profiles.get(body)?.n ?? 0) + by;
      if (n > 0) profiles.set(body, { name, n });
      else profiles.delete(body);
    }
  };
  for (const e of gone.values()) count(e, -1);
  const set: [string, string][] = [];
  for (const j of asked) {
    if (routed[j] !== true) continue;
    set.push([at(now, j).host, at(entries, j).json]);
    count(at(entries, j), 1);
  }
  const stays = new Set(set.map(([host]) => host));
  const removed = [...gone.keys()].filter((h) => !stays.has(h));
  return {
    context: last.context,
    model,
    entries,
    routed,
    wildcards: last.wildcards,
    // nothing asked, nothing gone: the same table (a push then compares it with itself)
    routeHosts: set.length + removed.length === 0 ? last.routeHosts : OverlayMap.from(last.routeHosts, set, removed),
    profiles,
    made: last.made + asked.length,
  };
}

/**
 * The state a whole split leaves: `entryOf` gives each server's entry, `routed` the routed hosts ('_' among them); the
 * route table holds their entries in the model's order.
 */
export function splitState(context: string, model: Model, entryOf: (s: Server) => RouteEntry, routed: ReadonlySet<string>): SplitState {
  const entries = model.servers.map(entryOf);
  const flags = model.servers.map((s) => routed.has(s.host));
  const wildcards = new Map<string, boolean>();
  const profiles = new Map<string, { readonly name: string; readonly n: number }>();
  const routeHosts = new Map<string, string>();
  for (const [i, s] of model.servers.entries()) {
    if (s.host.startsWith('*.')) wildcards.set(s.host, at(flags, i));
    if (!flags[i]) continue;
    routeHosts.set(s.host, at(entries, i).json);
    for (const [body, name] of at(entries, i).profiles) profiles.set(body, { name, n: (profiles.get(body)?.n ?? 0) + 1 });
  }
  return { context, model, entries, routed: flags, wildcards, routeHosts, profiles, made: 0 };
}
