// Snapshots sent to the build worker as changes: the objects the worker does not hold yet, and each changed list's
// order. A sync at 10,000 Ingresses then clones one changed object instead of the whole cluster (about 2 s), and
// the worker keeps the very objects it already had, so its caches keyed by object (a TLS Secret's parse, a slice's
// endpoints) hold from one sync to the next.
// Objects cross as JSON text, parsed by the receiver: V8's structured clone of the cluster at 10,000 Ingresses took
// 58 MiB of the worker's heap, the JSON.parse of the same objects 32 MiB (docs/adr/0044).
import type { Snapshot } from '../model/input.js';
import { shareConditions, wireText } from '../store/kinds.js';

type Field = keyof Snapshot;

/** One list: its objects by id, in order; `added` are the ones the receiver lacks, as JSON text. Absent: the list was undefined. */
interface ListDelta {
  readonly ids: readonly number[] | undefined;
  readonly added: readonly (readonly [number, string])[];
}

/** What crosses to the worker: the lists that changed since the last delta; `reset` starts from nothing. */
export interface SnapshotDelta {
  readonly reset: boolean;
  readonly lists: Readonly<Partial<Record<Field, ListDelta>>>;
}

/** Ids of objects as the sending side knows them (objects are frozen: an id names one content for good). */
const ids = new WeakMap<object, number>();
let nextId = 1;

function idOf(o: object): number {
  let id = ids.get(o);
  if (id === undefined) {
    id = nextId++;
    ids.set(o, id);
  }
  return id;
}

const same = (a: readonly number[] | undefined, b: readonly number[] | undefined): boolean => a === b || (a !== undefined && b !== undefined && a.length === b.length && a.every((x, i) => x === b[i]));

/** The sending side: remembers what the receiver holds (the lists of the last delta). */
export class SnapshotSender {
  private held = new Map<Field, readonly number[] | undefined>();
  private reset = true;

  /** The receiver lost everything (a new worker): the next delta carries every object. */
  forget(): void {
    this.held = new Map();
    this.reset = true;
  }

  delta(snap: Snapshot): SnapshotDelta {
    const lists: Partial<Record<Field, ListDelta>> = {};
    const fields = new Set([...this.held.keys(), ...(Object.keys(snap) as Field[])]);
    for (const field of fields) {
      const list = snap[field];
      const now = list?.map(idOf);
      const before = this.held.get(field);
      if (!this.reset && this.held.has(field) && same(before, now)) continue;
      const had = new Set(this.reset ? [] : (before ?? []));
      lists[field] = { ids: now, added: (list ?? []).flatMap((o: object, i) => (had.has(now?.[i] ?? 0) ? [] : [[now?.[i] ?? 0, wireText(o)] as const])) };
      this.held.set(field, now);
    }
    const d = { reset: this.reset, lists };
    this.reset = false;
    return d;
  }
}

/** The receiving side: rebuilds the snapshot from deltas, keeping the objects it already holds. */
export class SnapshotReceiver {
  private objects = new Map<Field, Map<number, unknown>>();
  private lists: Partial<Record<Field, readonly unknown[] | undefined>> = {};

  apply(d: SnapshotDelta): Snapshot {
    if (d.reset) {
      this.objects = new Map();
      this.lists = {};
    }
    for (const [field, list] of Object.entries(d.lists) as [Field, ListDelta][]) {
      const held = this.objects.get(field) ?? new Map<number, unknown>();
      for (const [id, text] of list.added) {
        const o: unknown = JSON.parse(text);
        if (field === 'endpointSlices') shareConditions(o); // as the store shares them (store/kinds.ts)
        held.set(id, o);
      }
      const keep = new Map<number, unknown>();
      for (const id of list.ids ?? []) {
        if (!held.has(id)) throw new Error(`snapshot delta: object ${id} of ${field} was never sent`);
        keep.set(id, held.get(id));
      }
      this.objects.set(field, keep);
      this.lists[field] = list.ids === undefined ? undefined : Object.freeze(list.ids.map((id) => keep.get(id)));
    }
    const snap = Object.fromEntries(Object.entries(this.lists).filter(([, v]) => v !== undefined));
    // The sender only sends Snapshot lists, so the receiver's lists are those of a Snapshot.
    return Object.freeze(snap) as unknown as Snapshot;
  }
}
