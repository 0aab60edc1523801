// The backends a sync would push, and the id the plan compares instead of their text (5 MB at 10,000 Ingresses).
import type { Model, Upstream } from '../model/types.js';
import { commonEnds } from '../model/list-fold.js';
import { backendText, sameEntries } from '../render/lua-payload.js';
import { OverlayMap } from '../render/overlay-map.js';

/** One upstream's backend JSON by name, and the id of the whole set in DataPlaneState. */
export interface BackendSet {
  readonly entries: ReadonlyMap<string, string>;
  readonly id: string;
}

/**
 * The entries of `upstreams` made from `last`'s: the model keeps the objects of the upstreams a sync did not touch, in
 * its sorted order, so only those between the two lists' common ends can differ. At 100,000 Ingresses, building every
 * entry's map again and comparing it with the last cost 0.3 s of each change (render/overlay-map.ts).
 */
function entriesFrom(last: LastSet, upstreams: readonly Upstream[], text: (u: Upstream) => string): { entries: ReadonlyMap<string, string>; changed: boolean } {
  const { head, tail } = commonEnds(last.upstreams, upstreams);
  const middle = upstreams.slice(head, upstreams.length - tail);
  const names = new Set(middle.map((u) => u.name));
  const set = middle.map((u) => [u.name, text(u)] as const).filter(([name, t]) => last.entries.get(name) !== t);
  const removed = [...new Set(last.upstreams.slice(head, last.upstreams.length - tail).map((u) => u.name))].filter((name) => !names.has(name));
  const changed = set.length > 0 || removed.length > 0;
  return { entries: changed ? OverlayMap.from(last.entries, set, removed) : last.entries, changed };
}

interface LastSet {
  readonly upstreams: readonly Upstream[];
  readonly entries: ReadonlyMap<string, string>;
}

/** Gives each distinct set of backend entries an id: the same id while every entry is the same as the served one. */
export class BackendIds {
  /** Each upstream's backend JSON: an endpoint refresh keeps the upstreams it did not change, so only the others are serialized. */
  private readonly memo = new WeakMap<Upstream, string>();
  /** The id of the set nginx serves (set by `served`). */
  private id = '';
  private gen = 0;
  /** The upstreams and entries of the last call (at first none): the next entries are made from these. */
  private last: LastSet = { upstreams: [], entries: new Map<string, string>() };

  /** The entries of `model` and their id, against `served` (the entries nginx holds, if any). */
  of(model: Model, served: ReadonlyMap<string, string> | undefined): BackendSet {
    const last = this.last;
    const { entries, changed } = entriesFrom(last, model.upstreams, (u) => backendText(u, this.memo));
    const same = served === last.entries ? !changed : served !== undefined && sameEntries(served, entries);
    this.last = { upstreams: model.upstreams, entries };
    return { entries, id: same ? this.id : `backends-${String((this.gen += 1))}` };
  }

  /** Records the id of the set nginx now serves. */
  served(set: BackendSet): void {
    this.id = set.id;
  }
}
