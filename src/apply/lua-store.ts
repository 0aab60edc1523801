// What Lua holds of one kind of payload, and the one delta protocol of lua/portico/store.lua: `POST <kind>?id=ID` posts
// the whole payload, `POST <kind>?from=OLD&id=ID` only the entries that changed since payload OLD, which Lua refuses
// with 409 unless it holds OLD (then the whole payload follows). Deltas are bounded in count and bytes: each stays in
// nginx's shared dict until the next whole payload, and a worker started by a reload applies them all.
import { errorMessage, PushRejectedError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Nginx, Rejected } from '../nginx/process.js';
import { backendsDelta } from '../render/lua-payload.js';
import { routesDelta } from '../render/route-push.js';
import { entryChanges } from '../render/entry-changes.js';
import { certificatesDelta, REST_KEY } from '../render/cert-entries.js';

/** A delta body and what it names: the keys whose entry changed or is new, and the keys gone. */
interface Delta {
  readonly body: string;
  readonly changed: readonly string[];
  readonly removed: readonly string[];
}

type Said = readonly [Record<string, unknown>, string];

/** One kind of payload: its path, its delta body, its bounds and its log lines. */
export interface StoreKind {
  readonly path: string;
  /** The delta body that takes Lua from `held` to `now` (key → entry JSON); undefined when nothing differs. */
  readonly delta: (held: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>) => Delta | undefined;
  /** Deltas in a row, and their bytes, before the whole payload is posted again. */
  readonly maxDeltas: number;
  readonly maxDeltaBytes: number;
  /** Whether a delta of `d` saves enough over the whole payload of `size` entries. */
  readonly worth: (d: Delta, size: number) => boolean;
  readonly said: {
    readonly delta: (d: Delta, id: string) => Said;
    readonly whole: (size: number | undefined, id: string) => Said;
    readonly refused: (from: string) => Said;
    readonly added: (d: Delta, id: string) => Said;
  };
}

const MiB = 1024 * 1024;

/** A delta of more than a quarter of the keys (and more than 16) saves little over the whole payload. */
const aQuarterAtMost = (d: Delta, size: number): boolean => d.changed.length + d.removed.length <= Math.max(16, size / 4);

/** The backends (docs/adr/0001): an endpoint change is one backend, whatever the number of others. */
export const BACKENDS: StoreKind = {
  path: 'backends',
  delta: (held, now) => {
    const d = backendsDelta(held, now);
    return d && { body: d.body, changed: d.set, removed: d.remove };
  },
  maxDeltas: 1000,
  maxDeltaBytes: 8 * MiB,
  // a delta of more than half the backends saves little over the full list
  worth: (d, size) => d.changed.length + d.removed.length <= size / 2,
  said: {
    delta: (d) => [{ set: d.changed.length, removed: d.removed.length }, 'backends: pushed the ones that changed'],
    whole: (size) => [{ backends: size }, 'backends: pushed all'],
    refused: () => [{}, 'nginx does not hold the backends list the delta starts from; pushing all of them'],
    added: (d) => [{ set: d.changed.length }, 'backends: the ones the reload brings pushed before it'],
  },
};

/** The route table (docs/adr/0014): a new Ingress is one host's entry to decode and compile per worker. */
export const ROUTES: StoreKind = {
  path: 'routes',
  delta: routesDelta,
  // Lua refuses past 512
  maxDeltas: 256,
  maxDeltaBytes: 8 * MiB,
  worth: aQuarterAtMost,
  said: {
    delta: (d, id) => [{ hosts: d.changed.length + d.removed.length, id }, 'route table: pushed the hosts that changed'],
    whole: (size, id) => [{ hosts: size, id }, 'route table: pushed whole'],
    refused: (from) => [{ from }, 'nginx does not hold the route table the delta starts from; pushing the whole table'],
    added: (d, id) => [{ hosts: d.changed.length, id }, 'route table: hosts new to it added before the reload'],
  },
};

/** The certificates (docs/adr/0056): a Secret rotated is the PEM of the hosts it serves, not every host's. */
export const CERTIFICATES: StoreKind = {
  path: 'certificates',
  delta: certificatesDelta,
  maxDeltas: 256,
  maxDeltaBytes: 8 * MiB,
  worth: aQuarterAtMost,
  said: {
    delta: (d, id) => [{ hosts: d.changed.filter((h) => h !== REST_KEY).length, removed: d.removed.length, others: d.changed.includes(REST_KEY), id }, 'certificates: pushed the hosts that changed'],
    whole: (size, id) => [{ hosts: size === undefined ? undefined : size - 1, id }, 'certificates: pushed whole'],
    refused: (from) => [{ from }, 'nginx does not hold the certificates the delta starts from; pushing them whole'],
    added: (d, id) => [{ hosts: d.changed.length, id }, 'certificates: added before the reload'],
  },
};

/** A payload Lua takes whole only (the Gateway API route table: no entries by key). */
export function wholeOnly(path: string): StoreKind {
  const none = (): Said => [{}, `${path}: pushed whole`];
  return { path, delta: () => undefined, maxDeltas: 0, maxDeltaBytes: 0, worth: () => false, said: { delta: none, whole: none, refused: none, added: none } };
}

/** Payload ids: this process's, then a count (Lua refuses a delta whose `from` is not the payload it holds). */
const idPrefix = `${process.pid.toString(36)}-${Date.now().toString(36)}`;
let pushes = 0;
const nextId = (): string => `${idPrefix}-${(pushes += 1).toString(36)}`;

interface Held {
  readonly id: string;
  readonly entries: ReadonlyMap<string, string>;
  readonly deltas: number;
  readonly bytes: number;
}

/** What Lua holds of one kind, when known, and the pushes that keep it in step. */
export class LuaStore {
  /** What Lua dropped from the payload it holds (reported as Problems; empty while TypeScript and Lua agree). */
  dropped: Rejected[] = [];
  private held: Held | undefined;
  /** Counts forget(): a push that was under way when nginx restarted tells nothing of what the new nginx holds. */
  private forgotten = 0;

  constructor(
    private readonly nginx: Pick<Nginx, 'pushRaw'>,
    private readonly kind: StoreKind,
    private readonly log: Logger,
  ) {}

  /** The entries Lua holds, when known. */
  get entries(): ReadonlyMap<string, string> | undefined {
    return this.held?.entries;
  }

  /** Lua's store is empty or unknown (nginx restarted, a push failed): the next push is whole. */
  forget(): void {
    this.held = undefined;
    this.forgotten += 1;
  }

  /** What Lua holds once a push made while `forgotten` was `at` has answered, unless forget() came meanwhile. */
  private answered(at: number, held: Held): void {
    if (at === this.forgotten) this.held = held;
  }

  /**
   * Brings Lua to `whole`, whose entries (key → JSON) are `entries` (undefined: not known by entry, so whole only): a
   * delta when Lua's payload is known, `opts.delta` (default true) allows it, it saves enough and the bounds hold; else
   * (or when Lua refuses the delta) the whole payload. Nothing is posted when Lua holds these entries already.
   * `opts.via`: the entries a delta takes Lua to instead of `entries` (the route table keeps, after a reload, the
   * hosts that just left it for the old workers).
   */
  async push(whole: () => string, entries: ReadonlyMap<string, string> | undefined, opts: { readonly delta?: boolean; readonly via?: ReadonlyMap<string, string> } = {}): Promise<void> {
    const known = opts.delta !== false && this.held !== undefined && this.held.deltas < this.kind.maxDeltas ? this.held : undefined;
    const target = opts.via ?? entries;
    const fits = known !== undefined && target !== undefined && this.fits(known, target);
    const d = fits ? this.kind.delta(known.entries, target) : undefined;
    if (fits && !d) {
      this.held = { ...known, entries: target }; // Lua holds these already
      return;
    }
    this.held = undefined; // unknown until the push answers
    const at = this.forgotten;
    if (known && target && d && this.kind.worth(d, target.size) && known.bytes + d.body.length <= this.kind.maxDeltaBytes) {
      const id = nextId();
      const rejected = await this.postDelta(known.id, id, d.body);
      if (rejected) {
        const touched = new Set([...d.changed, ...d.removed]);
        this.dropped = [...this.dropped.filter((r) => !touched.has(r.name)), ...rejected];
        this.answered(at, { id, entries: target, deltas: known.deltas + 1, bytes: known.bytes + d.body.length });
        this.say('debug', this.kind.said.delta(d, id));
        return;
      }
      this.say('info', this.kind.said.refused(known.id));
    }
    const id = nextId();
    this.dropped = await this.nginx.pushRaw(`${this.kind.path}?id=${id}`, whole());
    if (entries) this.answered(at, { id, entries, deltas: 0, bytes: 0 });
    this.say('debug', this.kind.said.whole(entries?.size, id));
  }

  /**
   * Adds `entries` to what Lua holds, removing nothing (before a reload: what the new workers need from their first
   * request). Best effort and only as a delta within the bounds: any failure leaves it to the push after the reload.
   */
  async add(entries: ReadonlyMap<string, string>): Promise<void> {
    const known = this.held;
    if (known === undefined || known.deltas >= this.kind.maxDeltas) return;
    if (!this.fits(known, entries)) return;
    const union = new Map([...known.entries, ...entries]);
    const d = this.kind.delta(known.entries, union);
    if (!d || known.bytes + d.body.length > this.kind.maxDeltaBytes) return;
    const id = nextId();
    this.held = undefined; // unknown until the push answers
    const at = this.forgotten;
    try {
      const rejected = await this.postDelta(known.id, id, d.body);
      if (rejected === undefined) return;
      this.answered(at, { id, entries: union, deltas: known.deltas + 1, bytes: known.bytes + d.body.length });
      this.say('debug', this.kind.said.added(d, id));
    } catch (err) {
      this.log.debug({ err: errorMessage(err), what: this.kind.path }, 'the push before the reload failed; the whole payload follows the reload');
    }
  }

  /**
   * Adds `entries` to what Lua holds as one whole payload (the union of both, `body` its text), removing nothing:
   * where a delta would carry nearly all of them (the whole cluster after the startup head), the whole payload is the
   * one Lua decodes once and every worker reads as it reads any whole list. Best effort: a failure leaves Lua's
   * payload unknown, and the next push is whole.
   */
  async addWhole(entries: ReadonlyMap<string, string>, body: (union: ReadonlyMap<string, string>) => string): Promise<void> {
    const known = this.held;
    if (known === undefined) return;
    const union = new Map(entries);
    for (const [key, text] of known.entries) if (!union.has(key)) union.set(key, text);
    if (entryChanges(known.entries, union).changed.length === 0) return;
    // Lua holds exactly `entries` when the union adds none: held as that very map, the sync's push of it compares nothing
    const held = union.size === entries.size ? entries : union;
    const id = nextId();
    this.held = undefined; // unknown until the push answers
    const at = this.forgotten;
    try {
      this.dropped = await this.nginx.pushRaw(`${this.kind.path}?id=${id}`, body(held));
      this.answered(at, { id, entries: held, deltas: 0, bytes: 0 });
      this.log.debug({ [this.kind.path]: held.size, added: held.size - known.entries.size, id }, `${this.kind.path}: pushed whole ahead of the sync, none removed`);
    } catch (err) {
      this.log.debug({ err: errorMessage(err), what: this.kind.path }, 'the push ahead of the sync failed; the sync pushes the whole payload');
    }
  }

  /**
   * Whether the entries of `now` that differ from `known` could fit the delta bytes left, judged from their own
   * lengths before any body is built: at a first sync of 100,000 Ingresses the delta of 99,000 backends (about 50 MiB)
   * was built only to be dropped for its size, twice, on the main thread. The changed keys come from entryChanges,
   * which answers a map noted as made from the held one without walking either (a change at 100,000).
   */
  private fits(known: Held, now: ReadonlyMap<string, string>): boolean {
    let bytes = known.bytes;
    for (const key of entryChanges(known.entries, now).changed) {
      bytes += now.get(key)?.length ?? 0;
      if (bytes > this.kind.maxDeltaBytes) return false;
    }
    return true;
  }

  private say(level: 'debug' | 'info', [fields, message]: Said): void {
    this.log[level](fields, message);
  }

  /** A delta's POST: what Lua dropped, or undefined when it does not hold what the delta starts from (409). */
  private async postDelta(from: string, id: string, body: string): Promise<Rejected[] | undefined> {
    try {
      return await this.nginx.pushRaw(`${this.kind.path}?from=${from}&id=${id}`, body);
    } catch (err) {
      if (err instanceof PushRejectedError && err.status === 409) return undefined;
      throw err;
    }
  }
}
