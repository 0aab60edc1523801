// Snapshots sent to the build worker as changes: the objects the worker does not hold yet, and where each changed
// list differs from the one it holds. A sync at 10,000 Ingresses then clones one changed object instead of the whole
// cluster (about 2 s), and the worker keeps the very objects it already had, so its caches keyed by object (a TLS
// Secret's parse, a slice's endpoints) hold from one sync to the next.
// Objects cross as JSON text, parsed by the receiver: V8's structured clone of the cluster at 10,000 Ingresses took
// 58 MiB of the worker's heap, the JSON.parse of the same objects 32 MiB (docs/adr/0044).
// A list crosses as its common head and tail with the held one (the store keeps each list sorted, so one change
// leaves both nearly whole) and the ids between: at 100,000 Ingresses, naming every object of the three lists one
// change touches, and rebuilding the receiver's index of them, took 0.1 s of the main thread and 0.2 s of the worker.
import type { Snapshot } from '../model/input.js';
import { commonEnds } from '../model/list-fold.js';
import { forgetWireText, packSlice, parseStored, peekWireText, wireText } from '../store/kinds.js';

type Field = keyof Snapshot;

/**
 * One list against the one the receiver holds: its first `head` and last `tail` objects are the receiver's, `ids`
 * are those between; `added` are the ones of `ids` the receiver lacks, as JSON text. `absent`: the list is undefined.
 */
interface ListDelta {
  readonly absent?: true;
  /** The length of the list the sender counts the receiver as holding (a check: the ends are taken from it). */
  readonly had: number;
  readonly head: number;
  readonly tail: number;
  readonly ids: readonly number[];
  /** Without its text: the receiver was sent it ahead (preload) and has parsed it. */
  readonly added: readonly (readonly [number, string] | readonly [number])[];
}

/**
 * Objects sent ahead of the next delta (SnapshotSender.preload): their ids, and their JSON texts in the same order
 * joined by a line break, which JSON.stringify never writes (it escapes one inside a string). One string a batch: as
 * 512 pairs of id and text, the structured clone of a 10,000-Ingress folder's objects was 0.1 s of the main thread's
 * first read (docs/adr/0066).
 */
export interface Preload {
  readonly ids: readonly number[];
  readonly texts: string;
}

const NO_PRELOAD: Preload = { ids: [], texts: '' };

/** JSON texts as one string (Preload, split-read.ts ReadBatch): joined by the line break JSON.stringify never writes. */
export const joinTexts = (texts: readonly string[]): string => texts.join('\n');

/** joinTexts() undone for `count` texts; undefined when the string holds another number of them. */
export function splitTexts(joined: string, count: number): string[] | undefined {
  const texts = count === 0 ? [] : joined.split('\n');
  return texts.length === count ? texts : undefined;
}

/**
 * What crosses to the worker: the lists that changed since the last delta; `reset` starts from nothing; `dropEarly`:
 * the receiver drops the objects sent ahead (preload) that no delta named, once this one is applied.
 */
export interface SnapshotDelta {
  readonly reset: boolean;
  readonly dropEarly?: true;
  readonly lists: Readonly<Partial<Record<Field, ListDelta>>>;
}

/** Ids of objects as the sending side knows them (objects are frozen: an id names one content for good). */
const ids = new WeakMap<object, number>();
let nextId = 1;

/**
 * Where the ids of objects the build worker read itself begin (a folder's first read, split-read.ts): the sender adopts
 * them for its own copies, and its own ids never get there.
 */
export const WORKER_IDS_FROM = 2 ** 40;

function idOf(o: object): number {
  let id = ids.get(o);
  if (id === undefined) {
    id = nextId++;
    ids.set(o, id);
  }
  return id;
}

const ABSENT: ListDelta = { absent: true, had: 0, head: 0, tail: 0, ids: [], added: [] };

/** How a refused delta's error starts: the sender then sends everything again (worker/offload.ts). */
export const SNAPSHOT_REFUSED = 'snapshot delta:';

/** The sending side: remembers what the receiver holds (the lists of the last delta). */
export class SnapshotSender {
  private held = new Map<Field, readonly object[] | undefined>();
  private reset = true;
  /** Ids the receiver was sent ahead (preload) and no delta named yet: a delta names them without their text. */
  private preloaded = new Set<number>();
  /** Deltas since the last preload, and whether the next one tells the receiver to drop what was sent ahead. */
  private sincePreload = 0;
  private dropNext = false;

  /** The receiver lost everything (a new worker): the next delta carries every object. */
  forget(): void {
    this.held = new Map();
    this.reset = true;
    this.preloaded = new Set();
    this.dropNext = true;
  }

  /**
   * The objects of `objects` that still hold the text the store keeps for them (store/kinds.ts), as id and text, to be
   * parsed by the receiver before the next delta names them (the first read of a folder, while the rest is read).
   * Their text is forgotten once taken: the store's trim() knows them as compact without it (docs/adr/0066).
   */
  preload(objects: readonly object[]): Preload {
    const ids: number[] = [];
    const texts: string[] = [];
    this.sincePreload = 0;
    for (const o of objects) {
      const text = peekWireText(o);
      if (text === undefined) continue;
      const id = idOf(o);
      if (this.preloaded.has(id)) continue;
      this.preloaded.add(id);
      forgetWireText(o); // the receiver holds it from now on: a delta that must carry it again stringifies it
      ids.push(id);
      texts.push(text);
    }
    return ids.length === 0 ? NO_PRELOAD : { ids, texts: joinTexts(texts) };
  }

  /**
   * `o` is this side's copy of an object the receiver read and holds under `id` (a folder's first read, split-read.ts):
   * the next deltas name it by id alone, as if it had been sent ahead.
   */
  adopt(o: object, id: number): void {
    ids.set(o, id);
    this.preloaded.add(id);
    this.sincePreload = 0;
  }

  delta(snap: Snapshot): SnapshotDelta {
    const lists: Partial<Record<Field, ListDelta>> = {};
    const fields = new Set([...this.held.keys(), ...(Object.keys(snap) as Field[])]);
    for (const field of fields) {
      const list: readonly object[] | undefined = snap[field];
      const known = !this.reset && this.held.has(field);
      const before = known ? this.held.get(field) : undefined;
      this.held.set(field, list);
      if (list === undefined) {
        if (!known || before !== undefined) lists[field] = ABSENT;
        continue;
      }
      if (before === list) continue;
      const { head, tail } = before === undefined ? { head: 0, tail: 0 } : commonEnds(before, list);
      if (before !== undefined && head === list.length && head === before.length) continue;
      // the receiver holds the objects between the old list's head and tail; the others of the new middle cross
      const had = new Set((before ?? []).slice(head, (before?.length ?? 0) - tail).map(idOf));
      const middle = list.slice(head, list.length - tail);
      const mids = middle.map(idOf);
      const added = middle.flatMap((o, i): (readonly [number, string] | readonly [number])[] => {
        const id = mids[i] ?? 0;
        if (had.has(id)) return [];
        if (!this.preloaded.delete(id)) return [[id, wireText(o)]];
        forgetWireText(o);
        return [[id]];
      });
      lists[field] = { had: before?.length ?? 0, head, tail, ids: mids, added };
    }
    // What was sent ahead and is still not named after two deltas (the startup head's, then the whole's) never will
    // be: an object defined again in a later file, or out of the namespace selector's scope. Both sides drop it.
    this.sincePreload += 1;
    const drop = this.dropNext || (this.preloaded.size > 0 && this.sincePreload >= 2);
    if (drop) this.preloaded = new Set();
    this.dropNext = false;
    const d: SnapshotDelta = { reset: this.reset, lists, ...(drop ? { dropEarly: true } : {}) };
    this.reset = false;
    return d;
  }
}

/** One list as the receiver holds it: its objects, their ids in the same order, and each object by id. */
interface Held {
  readonly list: readonly unknown[];
  readonly ids: readonly number[];
  readonly byId: Map<number, unknown>;
}

/** The receiving side: rebuilds the snapshot from deltas, keeping the objects it already holds. */
export class SnapshotReceiver {
  private held = new Map<Field, Held>();
  /** Objects sent ahead of the next delta (preload), parsed, by id. */
  private early = new Map<number, unknown>();

  /**
   * Objects the next delta will name without their text: parsed now, while the sender still reads, and an
   * EndpointSlice packed now too (at 10,000 Ingresses 0.1 s that apply() spent after the read, docs/adr/0066). A batch
   * whose texts do not match its ids (never, from the sender) is not taken: the delta that names them is refused, and
   * the sender sends everything.
   */
  preload(items: Preload): void {
    const texts = splitTexts(items.texts, items.ids.length);
    if (texts === undefined) return;
    for (const [i, id] of items.ids.entries()) {
      try {
        this.early.set(id, parseStored(texts[i] ?? ''));
      } catch {
        /* not JSON (never, from the store): the delta that names it is refused, and the sender sends everything */
      }
    }
  }

  /** An object this side read itself (split-read.ts), held under `id` until a delta names it, as one sent ahead. */
  hold(id: number, o: unknown): void {
    this.early.set(id, o);
  }

  apply(d: SnapshotDelta): Snapshot {
    if (d.reset) this.held = new Map();
    // every list is checked before any is changed: a delta refused leaves the receiver as it was
    const next: [Field, ListDelta, Held, Map<number, unknown>][] = [];
    for (const [field, l] of Object.entries(d.lists) as [Field, ListDelta][]) {
      const old = this.held.get(field) ?? { list: [], ids: [], byId: new Map<number, unknown>() };
      if (l.absent) {
        next.push([field, l, old, new Map<number, unknown>()]);
        continue;
      }
      if (l.had !== old.ids.length || l.head + l.tail > l.had)
        throw new Error(`${SNAPSHOT_REFUSED} ${String(l.had)} objects of ${field} counted as held where ${String(old.ids.length)} are: the rest was never sent`);
      const parsed = new Map<number, unknown>();
      for (const [id, text] of l.added) {
        const o: unknown = text === undefined ? this.early.get(id) : JSON.parse(text);
        if (o === undefined) throw new Error(`${SNAPSHOT_REFUSED} object ${String(id)} of ${field} was named as sent ahead, and was not`);
        if (field === 'endpointSlices') packSlice(o); // packed as the store keeps them (store/kinds.ts)
        parsed.set(id, o);
      }
      for (const id of l.ids) if (!parsed.has(id) && !old.byId.has(id)) throw new Error(`${SNAPSHOT_REFUSED} object ${String(id)} of ${field} was never sent`);
      next.push([field, l, old, parsed]);
    }
    for (const [field, l, old, parsed] of next) {
      if (l.absent) {
        this.held.delete(field);
        continue;
      }
      const end = old.ids.length - l.tail;
      if (end > l.head) {
        const now = new Set(l.ids);
        for (const id of old.ids.slice(l.head, end)) if (!now.has(id)) old.byId.delete(id);
      }
      for (const [id, o] of parsed) {
        old.byId.set(id, o);
        this.early.delete(id); // taken: held from now on
      }
      const middle = l.ids.map((id) => old.byId.get(id));
      const list = Object.freeze(old.list.slice(0, l.head).concat(middle, old.list.slice(end)));
      this.held.set(field, { list, ids: old.ids.slice(0, l.head).concat(l.ids, old.ids.slice(end)), byId: old.byId });
    }
    if (d.dropEarly === true) this.early = new Map();
    const snap = Object.fromEntries([...this.held].map(([field, h]) => [field, h.list]));
    // The sender only sends Snapshot lists, so the receiver's lists are those of a Snapshot.
    return Object.freeze(snap) as unknown as Snapshot;
  }
}
