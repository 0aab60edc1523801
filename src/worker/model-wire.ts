// A build's model sent back to the main thread as changes: its servers and upstreams by content, only the ones the
// main thread does not hold yet travelling whole. At 10,000 Ingresses the whole model took 0.5-0.8 s to cross (pack,
// structured clone both ways, unpack) for a sync that changed one Ingress; the main thread also keeps the very
// objects of the last model for what did not change, instead of a fresh 30-50 MiB copy per sync.
import { contentKey } from '../model/content-key.js';
import type { Model, Server, Upstream } from '../model/types.js';

/** One element of a list: its content key, and its value when the receiver lacks that key. */
interface Part<T> {
  readonly key: string;
  readonly value?: T;
}

type Rest = Omit<Model, 'servers' | 'upstreams'>;

/** What crosses back: the lists by part, the rest of the model whole; `reset` starts the receiver from nothing. */
export interface ModelDelta {
  readonly reset: boolean;
  readonly servers: readonly Part<Server>[];
  readonly upstreams: readonly Part<Upstream>[];
  readonly rest: Rest;
}

/** The worker's side: remembers the keys the main thread holds (those of the last delta sent). */
export class ModelSender {
  private held = new Set<string>();
  private reset = true;

  /** The receiver may have lost what was sent (a reply that did not go out): the next delta carries everything. */
  forget(): void {
    this.held = new Set();
    this.reset = true;
  }

  delta(model: Model): ModelDelta {
    const now = new Set<string>();
    const parts = <T extends object>(list: readonly T[]): Part<T>[] =>
      list.map((value) => {
        const key = contentKey(value);
        const part = this.held.has(key) || now.has(key) ? { key } : { key, value };
        now.add(key);
        return part;
      });
    const { servers, upstreams, ...rest } = model;
    const d: ModelDelta = { reset: this.reset, servers: parts(servers), upstreams: parts(upstreams), rest };
    this.held = now;
    this.reset = false;
    return d;
  }
}

/** The main thread's side: the model of each delta, from the parts it carries and the objects of the last one. */
export class ModelReceiver {
  private held = new Map<string, unknown>();

  apply(d: ModelDelta): Model {
    const before = d.reset ? new Map<string, unknown>() : this.held;
    const now = new Map<string, unknown>();
    const list = <T>(parts: readonly Part<T>[], what: string): T[] =>
      parts.map((p) => {
        const value = p.value ?? (now.get(p.key) as T | undefined) ?? (before.get(p.key) as T | undefined);
        if (value === undefined) throw new Error(`model delta: a ${what} with key ${p.key.slice(0, 12)} was never sent`);
        now.set(p.key, value);
        return value;
      });
    const model: Model = { ...d.rest, servers: list(d.servers, 'server'), upstreams: list(d.upstreams, 'upstream') };
    this.held = now;
    return model;
  }
}
