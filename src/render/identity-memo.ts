// Values kept per model object between renders, found by the object itself: model objects are never changed once
// built (model/content-key.ts), and an incremental sync (docs/adr/0039) keeps every object outside its part, so a
// kept server's block, route entry and scan facts are found without serializing or hashing anything (docs/adr/0043).
// A value is reused only when the render context is the same string and every object it was made from (its `deps`:
// the host's TLS entry, its Ingresses' TLS policy, the upstreams it read) is the same object; otherwise the caller
// falls back to its content-keyed memo (render/memo.ts), so a whole build's new objects still hit by content.

interface Kept<V> {
  readonly deps: readonly unknown[];
  readonly value: V;
}

const same = (a: readonly unknown[], b: readonly unknown[]): boolean => a.length === b.length && a.every((x, i) => x === b[i]);

export class IdentityMemo<K extends object, V> {
  private context: string | undefined;
  private kept = new WeakMap<K, Kept<V>>();
  /** Values found by identity and made (or found by content) in the last render (bench/scale-profile reports them). */
  stats = { same: 0, other: 0 };

  /** Starts a render in `context`; a different context forgets every value. */
  begin(context: string): void {
    if (context !== this.context) this.kept = new WeakMap();
    this.context = context;
    this.stats = { same: 0, other: 0 };
  }

  /**
   * The value kept for `key` when `deps` of it are the same objects, in the same order, as they were when it was made
   * (`deps` may read the value: a server block depends on the upstreams it read); else the one `make` gives.
   * `reused` is told of a value found by identity.
   */
  get(key: K, deps: (value: V) => readonly unknown[], make: () => V, reused?: (value: V) => void, unchanged?: (deps: readonly unknown[], value: V) => boolean): V {
    const old = this.kept.get(key);
    // `unchanged`, when given, answers same(old.deps, deps(old.value)) without making the array
    if (old !== undefined && (unchanged ? unchanged(old.deps, old.value) : same(old.deps, deps(old.value)))) {
      this.stats.same += 1;
      reused?.(old.value);
      return old.value;
    }
    this.stats.other += 1;
    const value = make();
    this.kept.set(key, { deps: deps(value), value });
    return value;
  }
}
