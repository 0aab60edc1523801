// A map made of another one and a few changes, without copying the other. The payloads pushed to Lua by key (the
// backends, the route table) are immutable maps, one per sync; at 100,000 Ingresses building each sync's map whole
// (100,000 inserts, then as much garbage) cost the main thread 0.1-0.2 s a map for a change of one key. An overlay
// answers get/has from its own changes first and then from the map it was made from; it iterates in that map's order
// (a changed key where it was, new keys last). Overlays on overlays are flattened into a plain Map every
// FLATTEN_DEPTH generations, or when the changes are a large share of the map, so a look-up walks a bounded chain.
import { noteChanges } from './entry-changes.js';

const FLATTEN_DEPTH = 16;

export class OverlayMap<V> implements ReadonlyMap<string, V> {
  readonly size: number;

  private constructor(
    private readonly base: ReadonlyMap<string, V>,
    private readonly own: ReadonlyMap<string, V>,
    private readonly gone: ReadonlySet<string>,
    private readonly depth: number,
  ) {
    let added = 0;
    for (const key of own.keys()) if (!base.has(key)) added += 1;
    this.size = base.size - gone.size + added;
  }

  /**
   * `base` with the keys `removed` deleted and then `set` set (each key once in each list), noted as made so
   * (entry-changes.ts noteChanges): the push that follows names the changed keys without a pass over either map.
   */
  static from<V>(base: ReadonlyMap<string, V>, set: readonly (readonly [string, V])[], removed: readonly string[]): ReadonlyMap<string, V> {
    const own = new Map<string, V>(set);
    if (base.size === 0) {
      // nothing under the changes: they are the map (a first push, as noted from nothing)
      noteChanges(own, base, [...own.keys()], []);
      return own;
    }
    const gone = new Set<string>();
    for (const key of removed) if (base.has(key) && !own.has(key)) gone.add(key);
    const depth = base instanceof OverlayMap ? base.depth + 1 : 1;
    const overlay = new OverlayMap(base, own, gone, depth);
    const out = depth > FLATTEN_DEPTH || (own.size + gone.size) * 4 > base.size ? new Map(overlay) : overlay;
    noteChanges(
      out,
      base,
      set.map(([key]) => key),
      [...gone],
    );
    return out;
  }

  get(key: string): V | undefined {
    const mine = this.own.get(key);
    if (mine !== undefined) return mine;
    return this.gone.has(key) ? undefined : this.base.get(key);
  }

  has(key: string): boolean {
    return this.own.has(key) || (!this.gone.has(key) && this.base.has(key));
  }

  *entries(): MapIterator<[string, V]> {
    for (const [key, value] of this.base) {
      if (this.gone.has(key)) continue;
      const mine = this.own.get(key);
      yield [key, mine !== undefined ? mine : value];
    }
    for (const [key, value] of this.own) if (!this.base.has(key)) yield [key, value];
    return undefined;
  }

  *keys(): MapIterator<string> {
    for (const [key] of this.entries()) yield key;
    return undefined;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
    return undefined;
  }

  [Symbol.iterator](): MapIterator<[string, V]> {
    return this.entries();
  }

  forEach(each: (value: V, key: string, map: ReadonlyMap<string, V>) => void): void {
    for (const [key, value] of this.entries()) each(value, key, this);
  }
}
