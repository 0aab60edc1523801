// A build's model sent back to the main thread as changes: its lists (servers, upstreams...) element by element, an
// element the main thread holds found by object (an incremental build keeps the objects of what it did not touch) or
// by content (after a whole build), only the ones it does not hold yet travelling whole; of the rest (the TLS model...)
// only the fields that changed. At 10,000 Ingresses the whole model took 0.5-0.8 s to cross (pack, structured clone
// both ways, unpack) for a sync that changed one Ingress; the main thread also keeps the very objects of the last model for what did not
// change, instead of a fresh 30-50 MiB copy per sync.
import { contentKey } from '../model/content-key.js';
import { commonEnds, walkSorted } from '../model/list-fold.js';
import { byUpstreamName } from '../model/keys.js';
import { serverOrder } from '../model/servers.js';
import type { Model } from '../model/types.js';
import type { TlsModel } from '../model/tls-types.js';
import { internReceived } from './model-intern.js';

/**
 * One list against the one the receiver holds (the last one sent): its first `head` and last `tail` elements are the
 * receiver's; for each element between, its index in the receiver's list or -1 when it travels in `values` (in order).
 * Indices in an Int32Array: at 10,000 Ingresses the lists' 20,000 content keys were 1.4 MiB a sync.
 */
interface ListDelta<T> {
  readonly head: number;
  readonly tail: number;
  readonly from: Int32Array;
  readonly values: readonly T[];
}

/** The lists that cross element by element (the Ingress list and the Problems change by a few elements too). */
type ListName = 'servers' | 'upstreams' | 'ingresses' | 'problems';

/**
 * The TLS model's lists cross element by element too: one Secret rotated changed one certificate of 10,000 at 100,000
 * Ingresses, and the whole TLS model (every certificate's PEM) took the build worker 0.25 s to pack and post and the
 * main thread as long to receive (docs/adr/0056). Its other fields are one more field of the rest (`tls`).
 */
type TlsListName = 'certificates' | 'hosts' | 'servers';
type TlsRest = Omit<TlsModel, TlsListName>;
type Rest = Omit<Model, ListName | 'tls'> & { readonly tls: TlsRest };

/** What crosses back: the lists by element; of the rest, the fields that changed whole and the names of those that did not. */
export interface ModelDelta {
  readonly reset: boolean;
  readonly lists: { readonly [K in ListName]: ListDelta<Model[K][number]> };
  readonly tlsLists: { readonly [K in TlsListName]: ListDelta<TlsModel[K][number]> };
  readonly rest: Partial<Rest>;
  readonly kept: readonly (keyof Rest)[];
}

/** What the sender remembers of one list: the elements the receiver holds, in its order; their indices by object and by content once asked for (once per held list). */
interface Held<T> {
  readonly items: readonly T[];
  byObject?: Map<T, number>;
  byContent?: Map<string, number>;
}

/**
 * Elements between the common head and tail are matched to the receiver's by object when there are more than this
 * many (an incremental build keeps the objects of what it did not touch: the 11 servers of one namespace's
 * neighbourhood are spread over the whole sorted list), else, and for one rebuilt in the place of an equal one, by
 * comparing with the held element at that place; and when more than this many are still unmatched, by content
 * against all held ones (a whole build makes every object new).
 */
const LOOK_UP_ABOVE = 64;

/**
 * Elements are matched by content only while the receiver holds at least one for every this many between the ends:
 * the first whole build after the head (docs/adr/0034) has ten times the elements the head had, and the content key
 * of each (its JSON and sha256) took the build worker 0.3 s at 10,000 Ingresses to find the head's 1,000 again
 * (docs/adr/0050); sending those 1,000 costs less.
 */
const CONTENT_AT_MOST = 4;

/** `key` of each element → its index in `items` (the first of equal keys). */
function firstIndex<T, K>(items: readonly T[], key: (t: T) => K): Map<K, number> {
  const index = new Map<K, number>();
  items.forEach((value, i) => {
    const k = key(value);
    if (!index.has(k)) index.set(k, i);
  });
  return index;
}

/**
 * One list's delta against `held`. The common head and tail, and then the elements between, are found by object:
 * at 100,000 Ingresses the content key of every element, and a map of them a list, took the build worker 1.2 s (and a
 * collection) for one new Ingress.
 */
function listDelta<T extends object>(items: readonly T[], held: Held<T> | undefined, order?: (x: T, y: T) => number): ListDelta<T> {
  const prev = held?.items ?? [];
  const { head, tail } = commonEnds(prev, items);
  const end = items.length - tail;
  const from = new Int32Array(end - head).fill(-1);
  const byContent = end - head <= CONTENT_AT_MOST * (prev.length - head - tail);
  const many = held !== undefined && end - head > LOOK_UP_ABOVE;
  const span = { head, end, prevEnd: prev.length - tail, byContent };
  const missed = many && order !== undefined ? walked(prev, items, span, from, order) : matched(prev, items, span, from, many ? held : undefined);
  const keys = held !== undefined && byContent && missed.length > LOOK_UP_ABOVE ? (held.byContent ??= firstIndex(prev, contentKey)) : undefined;
  if (keys) for (const i of missed) from[i - head] = keys.get(contentKey(items[i] as T)) ?? -1;
  const values: T[] = [];
  for (let i = head; i < end; i += 1) if (from[i - head] === -1) values.push(items[i] as T);
  return { head, tail, from, values };
}

/** Where the elements between a list's common ends are, and whether they may be matched by content. */
interface Span {
  readonly head: number;
  readonly end: number;
  readonly prevEnd: number;
  readonly byContent: boolean;
}

/**
 * A sorted list's elements between the ends matched to the held ones by walking both in order (without a map of
 * 100,000 objects a sync); one rebuilt in the place of an equal one by content. The indices not matched.
 */
function walked<T extends object>(prev: readonly T[], items: readonly T[], { head, end, prevEnd, byContent }: Span, from: Int32Array, order: (x: T, y: T) => number): number[] {
  const missed: number[] = [];
  const a = prev.slice(head, prevEnd);
  const b = items.slice(head, end);
  walkSorted(a, b, order, {
    same: (i, j) => {
      from[j] = head + i;
    },
    gone: () => undefined,
    came: (j) => missed.push(head + j),
    replaced: (i, j) => {
      if (byContent && contentKey(a[i] as T) === contentKey(b[j] as T)) from[j] = head + i;
      else missed.push(head + j);
    },
  });
  return missed;
}

/**
 * The elements between the ends matched by object through `held`'s index (when given: many of them), else to the
 * held element after the last one matched, by object or by content. The indices not matched.
 */
function matched<T extends object>(prev: readonly T[], items: readonly T[], { head, end, byContent }: Span, from: Int32Array, held: Held<T> | undefined): number[] {
  const missed: number[] = [];
  const objects = held === undefined ? undefined : (held.byObject ??= firstIndex(prev, (t) => t));
  // `next`: the held element after the last one matched, where a rebuilt element equal to the one it replaces sits
  for (let i = head, next = head; i < end; i += 1) {
    const item = items[i] as T;
    const at = prev[next];
    let j = objects?.get(item);
    if (j === undefined && at !== undefined && (at === item || (byContent && contentKey(at) === contentKey(item)))) j = next;
    if (j === undefined) {
      missed.push(i);
      continue;
    }
    from[i - head] = j;
    next = j + 1;
  }
  return missed;
}

/** A plain object or array (not a class instance such as a Sensitive, whose content Object.keys does not show). */
const plain = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && (Array.isArray(v) || Object.getPrototypeOf(v) === Object.prototype);

/**
 * Whether the main thread's `held` value of a model field and `value` have equal content (their JSON, Sensitive
 * values by digest), by walking both and stopping at the same objects: an incremental build's TLS model is a new
 * object made of the last one's entries (worker/splice.ts), and the content key of the whole cost 0.1 s of each
 * change at 100,000 Ingresses. Keys in another order, or a key set to undefined, count as a change (the value crosses).
 */
function sameValue(held: unknown, value: unknown): boolean {
  if (held === value) return true;
  if (Array.isArray(held) || Array.isArray(value)) {
    if (!Array.isArray(held) || !Array.isArray(value) || held.length !== value.length) return false;
    for (let i = 0; i < held.length; i += 1) if (!sameValue(held[i], value[i])) return false;
    return true;
  }
  if (plain(held) && plain(value)) {
    const kh = Object.keys(held);
    const kv = Object.keys(value);
    if (kh.length !== kv.length) return false;
    for (let i = 0; i < kh.length; i += 1) {
      const k = kh[i] as string;
      if (k !== kv[i] || !sameValue(held[k], value[k])) return false;
    }
    return true;
  }
  if (typeof held === 'object' && held !== null && typeof value === 'object' && value !== null && !plain(held) && !plain(value)) return contentKey(held) === contentKey(value);
  return false;
}

/** The worker's side: remembers what the main thread holds (the last delta's lists, and its rest's values). */
export class ModelSender {
  private held = new Map<string, Held<object>>();
  private restValues = new Map<string, unknown>();
  private reset = true;

  /** The receiver may have lost what was sent (a reply that did not go out): the next delta carries everything. */
  forget(): void {
    this.held = new Map();
    this.restValues = new Map();
    this.reset = true;
  }

  delta(model: Model): ModelDelta {
    const { servers, upstreams, ingresses, problems, tls, ...others } = model;
    const held = new Map<string, Held<object>>();
    const list = <T extends object>(name: string, items: readonly T[], order?: (x: T, y: T) => number): ListDelta<T> => {
      held.set(name, { items });
      return listDelta<T>(items, this.held.get(name) as Held<T> | undefined, order);
    };
    const lists = {
      servers: list('servers', servers, serverOrder),
      upstreams: list('upstreams', upstreams, byUpstreamName),
      ingresses: list('ingresses', ingresses),
      problems: list('problems', problems),
    };
    const { certificates, hosts, servers: tlsServers, ...tlsRest } = tls;
    const tlsLists = { certificates: list('tls.certificates', certificates), hosts: list('tls.hosts', hosts), servers: list('tls.servers', tlsServers) };
    const rest: Rest = { ...others, tls: tlsRest };
    const changed: Record<string, unknown> = {};
    const kept: (keyof Rest)[] = [];
    const restValues = new Map<string, unknown>();
    for (const [field, value] of Object.entries(rest) as [keyof Rest, unknown][]) {
      if (value === undefined) continue;
      restValues.set(field, value);
      if (this.restValues.has(field) && sameValue(this.restValues.get(field), value)) kept.push(field);
      else changed[field] = value;
    }
    const d: ModelDelta = { reset: this.reset, lists, tlsLists, rest: changed, kept };
    this.held = held;
    this.restValues = restValues;
    this.reset = false;
    return d;
  }
}

/** Whether a list's delta leaves `held` as it is: every element the held one at its place, none sent. */
function none<T>(l: ListDelta<T>, held: readonly T[]): boolean {
  if (l.values.length > 0 || l.head + l.from.length + l.tail !== held.length) return false;
  for (let i = 0; i < l.from.length; i += 1) if (l.from[i] !== l.head + i) return false;
  return true;
}

/** The main thread's side: the model of each delta, from what it carries and the objects of the last one. */
export class ModelReceiver {
  private last: Model | undefined;
  /** What crossed in deltas whose strings are not shared yet (intern). */
  private crossed: (() => void)[] = [];

  /**
   * Shares the strings of what crossed since the last call (22 ms at 10,000 Ingresses, more on the first whole): called
   * once the sync that waited for the model has been applied (Offload.synced). Run at the next turn after the delta,
   * it fell between the first sync's pushes to nginx, and the route table's push waited for it.
   */
  intern(): void {
    const crossed = this.crossed;
    this.crossed = [];
    for (const share of crossed) share();
  }

  apply(d: ModelDelta): Model {
    this.intern(); // a sync that was not applied: its strings now
    const last = d.reset ? undefined : this.last;
    const list = <T>(l: ListDelta<T>, held: readonly T[] = [], what: string): T[] => {
      if (l.head + l.tail > held.length) throw new Error(`model delta: ${String(l.head + l.tail)} ${what}s kept, ${String(held.length)} were ever sent: the rest were never sent`);
      const middle: T[] = [];
      let next = 0;
      for (const j of l.from) {
        const value = j < 0 ? l.values[next++] : held[j];
        if (value === undefined) throw new Error(`model delta: ${what} ${String(j)} was never sent`);
        middle.push(value);
      }
      // the ends as slices, not pushed one by one (50,000 a list at 100,000 Ingresses)
      return held.slice(0, l.head).concat(middle, held.slice(held.length - l.tail));
    };
    const rest: Record<string, unknown> = { ...d.rest };
    for (const field of d.kept) {
      const held = field === 'tls' ? last?.tls : last?.[field];
      if (held === undefined) throw new Error(`model delta: its ${field} was never sent`);
      rest[field] = held;
    }
    const l = d.lists;
    const t = d.tlsLists;
    const lastTls = last?.tls;
    // the TLS model the main thread holds, while nothing of it changed: its certificates payload is then reused (tls/sync.ts)
    const unchanged = lastTls !== undefined && d.kept.includes('tls') && none(t.certificates, lastTls.certificates) && none(t.hosts, lastTls.hosts) && none(t.servers, lastTls.servers);
    const tls: TlsModel = unchanged
      ? lastTls
      : {
          ...(rest.tls as TlsRest),
          certificates: list(t.certificates, lastTls?.certificates, 'certificate'),
          hosts: list(t.hosts, lastTls?.hosts, 'TLS host'),
          servers: list(t.servers, lastTls?.servers, 'TLS server'),
        };
    const model: Model = {
      ...(rest as Omit<Rest, 'tls'>),
      tls,
      servers: list(l.servers, last?.servers, 'server'),
      upstreams: list(l.upstreams, last?.upstreams, 'upstream'),
      ingresses: list(l.ingresses, last?.ingresses, 'Ingress'),
      problems: list(l.problems, last?.problems, 'problem'),
    };
    this.last = model;
    // The strings of what crossed, shared once the sync that waits for this model has been applied (intern).
    if (l.servers.values.length + l.upstreams.values.length + l.ingresses.values.length > 0) {
      this.crossed.push(() => {
        internReceived(l.servers.values, l.upstreams.values, l.ingresses.values);
      });
    }
    return model;
  }
}
