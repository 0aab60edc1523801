// A build's model sent back to the main thread as changes: its servers and upstreams by content, only the ones the
// main thread does not hold yet travelling whole, and of the rest (Ingress list, TLS model...) only the fields that
// changed. At 10,000 Ingresses the whole model took 0.5-0.8 s to cross (pack, structured clone both ways, unpack) for a
// sync that changed one Ingress; the main thread also keeps the very objects of the last model for what did not
// change, instead of a fresh 30-50 MiB copy per sync.
import { contentKey } from '../model/content-key.js';
import type { Model, Server, Upstream } from '../model/types.js';

/**
 * One list: for each element its index in the list the receiver holds (the last one sent), or -1 when it travels in
 * `values` (in order). Indices in an Int32Array: at 10,000 Ingresses the lists' 20,000 content keys were 1.4 MiB a sync.
 */
interface ListDelta<T> {
  readonly from: Int32Array;
  readonly values: readonly T[];
}

type Rest = Omit<Model, 'servers' | 'upstreams'>;

/** What crosses back: the lists by element; of the rest, the fields that changed whole and the names of those that did not. */
export interface ModelDelta {
  readonly reset: boolean;
  readonly servers: ListDelta<Server>;
  readonly upstreams: ListDelta<Upstream>;
  readonly rest: Partial<Rest>;
  readonly kept: readonly (keyof Rest)[];
}

/** The worker's side: remembers what the main thread holds (the last delta's lists, by content key, and its rest's keys). */
export class ModelSender {
  private servers = new Map<string, number>();
  private upstreams = new Map<string, number>();
  private restKeys = new Map<string, string>();
  private reset = true;

  /** The receiver may have lost what was sent (a reply that did not go out): the next delta carries everything. */
  forget(): void {
    this.servers = new Map();
    this.upstreams = new Map();
    this.restKeys = new Map();
    this.reset = true;
  }

  delta(model: Model): ModelDelta {
    const { servers, upstreams, ...rest } = model;
    const list = <T extends object>(items: readonly T[], held: ReadonlyMap<string, number>): [ListDelta<T>, Map<string, number>] => {
      const from = new Int32Array(items.length);
      const values: T[] = [];
      const now = new Map<string, number>();
      items.forEach((value, i) => {
        const key = contentKey(value);
        const j = held.get(key);
        if (j === undefined) values.push(value);
        from[i] = j ?? -1;
        if (!now.has(key)) now.set(key, i);
      });
      return [{ from, values }, now];
    };
    const [s, sHeld] = list(servers, this.servers);
    const [u, uHeld] = list(upstreams, this.upstreams);
    const changed: Record<string, unknown> = {};
    const kept: (keyof Rest)[] = [];
    const restKeys = new Map<string, string>();
    for (const [field, value] of Object.entries(rest) as [keyof Rest, unknown][]) {
      if (value === undefined) continue;
      const key = typeof value === 'object' && value !== null ? contentKey(value) : JSON.stringify(value);
      restKeys.set(field, key);
      if (this.restKeys.get(field) === key) kept.push(field);
      else changed[field] = value;
    }
    const d: ModelDelta = { reset: this.reset, servers: s, upstreams: u, rest: changed, kept };
    this.servers = sHeld;
    this.upstreams = uHeld;
    this.restKeys = restKeys;
    this.reset = false;
    return d;
  }
}

/** The main thread's side: the model of each delta, from what it carries and the objects of the last one. */
export class ModelReceiver {
  private last: Model | undefined;

  apply(d: ModelDelta): Model {
    const last = d.reset ? undefined : this.last;
    const list = <T>(l: ListDelta<T>, held: readonly T[] | undefined, what: string): T[] => {
      let next = 0;
      return Array.from(l.from, (j) => {
        const value = j < 0 ? l.values[next++] : held?.[j];
        if (value === undefined) throw new Error(`model delta: ${what} ${String(j)} was never sent`);
        return value;
      });
    };
    const rest: Record<string, unknown> = { ...d.rest };
    for (const field of d.kept) {
      if (last === undefined || last[field] === undefined) throw new Error(`model delta: its ${field} was never sent`);
      rest[field] = last[field];
    }
    const model = { ...(rest as Rest), servers: list(d.servers, last?.servers, 'server'), upstreams: list(d.upstreams, last?.upstreams, 'upstream') };
    this.last = model;
    return model;
  }
}
