// The backends a sync would push, and the id the plan compares instead of their text (5 MB at 10,000 Ingresses).
import type { Model, Upstream } from '../model/types.js';
import { backendEntries, sameEntries } from '../render/lua-payload.js';

/** One upstream's backend JSON by name, and the id of the whole set in DataPlaneState. */
export interface BackendSet {
  readonly entries: Map<string, string>;
  readonly id: string;
}

/** Gives each distinct set of backend entries an id: the same id while every entry is the same as the served one. */
export class BackendIds {
  /** Each upstream's backend JSON: an endpoint refresh keeps the upstreams it did not change, so only the others are serialized. */
  private readonly memo = new WeakMap<Upstream, string>();
  /** The id of the set nginx serves (set by `served`). */
  private id = '';
  private gen = 0;

  /** The entries of `model` and their id, against `served` (the entries nginx holds, if any). */
  of(model: Model, served: ReadonlyMap<string, string> | undefined): BackendSet {
    const entries = backendEntries(model, this.memo);
    const same = served !== undefined && sameEntries(served, entries);
    return { entries, id: same ? this.id : `backends-${String((this.gen += 1))}` };
  }

  /** Records the id of the set nginx now serves. */
  served(set: BackendSet): void {
    this.id = set.id;
  }
}
