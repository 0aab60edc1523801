// The backends a sync would push, and the id the plan compares instead of their text (5 MB at 10,000 Ingresses).
import type { Model, Upstream } from '../model/types.js';
import { commonEnds, walkSorted } from '../model/list-fold.js';
import { byUpstreamName } from '../model/keys.js';
import { backendText, sameEntries } from '../render/lua-payload.js';
import { OverlayMap } from '../render/overlay-map.js';

/** One upstream's backend JSON by name, and the id of the whole set in DataPlaneState. */
export interface BackendSet {
  readonly entries: ReadonlyMap<string, string>;
  readonly id: string;
}

/**
 * The entries of `upstreams` made from `last`'s: the model keeps the objects of the upstreams a sync did not touch, in
 * its sorted order, so only those the two lists do not share can differ; the part between the common ends is walked
 * in that order, and only an upstream not shared is serialized and looked up. At 100,000 Ingresses, building every
 * entry's map again and comparing it with the last cost 0.3 s of each change (render/overlay-map.ts); and after endpoint
 * changes (refreshed on this thread) the next build's upstreams differ from the held ones in scattered places, whose
 * common ends left the whole list between them: 0.45 s of a Secret's change (docs/adr/0056).
 */
function entriesFrom(last: LastSet, upstreams: readonly Upstream[], text: (u: Upstream) => string): { entries: ReadonlyMap<string, string>; changed: boolean } {
  const { head, tail } = commonEnds(last.upstreams, upstreams);
  const was = last.upstreams.slice(head, last.upstreams.length - tail);
  const now = upstreams.slice(head, upstreams.length - tail);
  const set: (readonly [string, string])[] = [];
  const named = new Set<string>();
  const goneNames: string[] = [];
  const consider = (u: Upstream): void => {
    named.add(u.name);
    const t = text(u);
    if (last.entries.get(u.name) !== t) set.push([u.name, t]);
  };
  walkSorted(was, now, byUpstreamName, {
    same: () => undefined,
    gone: (i) => goneNames.push((was[i] as Upstream).name),
    came: (j) => {
      consider(now[j] as Upstream);
    },
    replaced: (_i, j) => {
      consider(now[j] as Upstream);
    },
  });
  const removed = [...new Set(goneNames)].filter((name) => !named.has(name));
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

  /**
   * Serializes the backends of `model` ahead of the sync that will ask for them (of()): a whole build's model arrives
   * while the build worker still renders, and the main thread has nothing else to do (30-40 ms at 10,000 Ingresses
   * that were on the way from the build's end to the push, docs/adr/0066).
   */
  warm(model: Model): void {
    for (const u of model.upstreams) backendText(u, this.memo);
  }

  /** Records the id of the set nginx now serves. */
  served(set: BackendSet): void {
    this.id = set.id;
  }
}
