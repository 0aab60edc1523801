// The backends a sync would push, and the id the plan compares instead of their text (5 MB at 10,000 Ingresses).
import type { Model, Upstream } from '../model/types.js';
import { commonEnds, noteChanges } from '../render/entry-changes.js';
import { backendEntries, sameEntries } from '../render/lua-payload.js';

/** One upstream's backend JSON by name, and the id of the whole set in DataPlaneState. */
export interface BackendSet {
  readonly entries: Map<string, string>;
  readonly id: string;
}

/**
 * The names whose entry differs between `last` and `entries` (made of `upstreams`), and the names gone. The model
 * keeps the objects of the upstreams a sync did not touch, in its sorted order, so only those between the lists'
 * common ends can differ: at 100,000 Ingresses, comparing every entry cost 0.1-0.2 s of each change.
 */
function changesFrom(
  last: { readonly upstreams: readonly Upstream[]; readonly entries: ReadonlyMap<string, string> },
  upstreams: readonly Upstream[],
  entries: ReadonlyMap<string, string>,
): { set: string[]; removed: string[] } {
  const { head, tail } = commonEnds(last.upstreams, upstreams);
  const now = upstreams.slice(head, upstreams.length - tail).map((u) => u.name);
  const names = new Set(now);
  const set = [...names].filter((name) => entries.get(name) !== last.entries.get(name));
  const removed = [...new Set(last.upstreams.slice(head, last.upstreams.length - tail).map((u) => u.name))].filter((name) => !names.has(name) && !entries.has(name));
  return { set, removed };
}

/** Gives each distinct set of backend entries an id: the same id while every entry is the same as the served one. */
export class BackendIds {
  /** Each upstream's backend JSON: an endpoint refresh keeps the upstreams it did not change, so only the others are serialized. */
  private readonly memo = new WeakMap<Upstream, string>();
  /** The id of the set nginx serves (set by `served`). */
  private id = '';
  private gen = 0;
  /** The upstreams and entries of the last call: the next entries are noted as changes from these (entry-changes.ts). */
  private last: { readonly upstreams: readonly Upstream[]; readonly entries: Map<string, string> } | undefined;

  /** The entries of `model` and their id, against `served` (the entries nginx holds, if any). */
  of(model: Model, served: ReadonlyMap<string, string> | undefined): BackendSet {
    const entries = backendEntries(model, this.memo);
    const last = this.last;
    let same: boolean;
    if (last !== undefined) {
      const { set, removed } = changesFrom(last, model.upstreams, entries);
      noteChanges(entries, last.entries, set, removed);
      same = served === last.entries ? set.length === 0 && removed.length === 0 : served !== undefined && sameEntries(served, entries);
    } else same = served !== undefined && sameEntries(served, entries);
    this.last = { upstreams: model.upstreams, entries };
    return { entries, id: same ? this.id : `backends-${String((this.gen += 1))}` };
  }

  /** Records the id of the set nginx now serves. */
  served(set: BackendSet): void {
    this.id = set.id;
  }
}
