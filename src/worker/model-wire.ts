// A build's model sent back to the main thread as changes: its servers and upstreams by content, only the ones the
// main thread does not hold yet travelling whole, and of the rest (Ingress list, TLS model...) only the fields that
// changed. At 10,000 Ingresses the whole model took 0.5-0.8 s to cross (pack, structured clone both ways, unpack) for a
// sync that changed one Ingress; the main thread also keeps the very objects of the last model for what did not
// change, instead of a fresh 30-50 MiB copy per sync.
import { contentKey } from '../model/content-key.js';
import type { Model } from '../model/types.js';

/**
 * One list: for each element its index in the list the receiver holds (the last one sent), or -1 when it travels in
 * `values` (in order). Indices in an Int32Array: at 10,000 Ingresses the lists' 20,000 content keys were 1.4 MiB a sync.
 */
interface ListDelta<T> {
  readonly from: Int32Array;
  readonly values: readonly T[];
}

/** The lists that cross element by element (the Ingress list and the Problems change by a few elements too). */
type ListName = 'servers' | 'upstreams' | 'ingresses' | 'problems';
type Rest = Omit<Model, ListName>;

/** What crosses back: the lists by element; of the rest, the fields that changed whole and the names of those that did not. */
export interface ModelDelta {
  readonly reset: boolean;
  readonly lists: { readonly [K in ListName]: ListDelta<Model[K][number]> };
  readonly rest: Partial<Rest>;
  readonly kept: readonly (keyof Rest)[];
}

/** One list's delta against `held` (content key → index in the list the receiver holds), and the keys it now holds. */
function listDelta<T extends object>(items: readonly T[], held: ReadonlyMap<string, number> | undefined): [ListDelta<T>, Map<string, number>] {
  const from = new Int32Array(items.length);
  const values: T[] = [];
  const now = new Map<string, number>();
  items.forEach((value, i) => {
    const key = contentKey(value);
    const j = held?.get(key);
    if (j === undefined) values.push(value);
    from[i] = j ?? -1;
    if (!now.has(key)) now.set(key, i);
  });
  return [{ from, values }, now];
}

/** The worker's side: remembers what the main thread holds (the last delta's lists, by content key, and its rest's keys). */
export class ModelSender {
  private held = new Map<ListName, Map<string, number>>();
  private restKeys = new Map<string, string>();
  private reset = true;

  /** The receiver may have lost what was sent (a reply that did not go out): the next delta carries everything. */
  forget(): void {
    this.held = new Map();
    this.restKeys = new Map();
    this.reset = true;
  }

  delta(model: Model): ModelDelta {
    const { servers, upstreams, ingresses, problems, ...rest } = model;
    const held = new Map<ListName, Map<string, number>>();
    const list = <K extends ListName>(name: K, items: Model[K]): ListDelta<Model[K][number]> => {
      const [d, now] = listDelta<Model[K][number]>(items, this.held.get(name));
      held.set(name, now);
      return d;
    };
    const lists = { servers: list('servers', servers), upstreams: list('upstreams', upstreams), ingresses: list('ingresses', ingresses), problems: list('problems', problems) };
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
    const d: ModelDelta = { reset: this.reset, lists, rest: changed, kept };
    this.held = held;
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
    const l = d.lists;
    const model: Model = {
      ...(rest as Rest),
      servers: list(l.servers, last?.servers, 'server'),
      upstreams: list(l.upstreams, last?.upstreams, 'upstream'),
      ingresses: list(l.ingresses, last?.ingresses, 'Ingress'),
      problems: list(l.problems, last?.problems, 'problem'),
    };
    this.last = model;
    return model;
  }
}
