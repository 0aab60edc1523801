// One value per object, worked out on first use and kept as long as the object lives. Model objects are never changed
// once built, and a sync keeps the unchanged ones (the build worker's wire, docs/adr/0045), so what the main thread
// derives from a server is worked out once per server, not once per sync.

/** `compute` memoized by its argument's identity. */
export function perObject<K extends object, V>(compute: (k: K) => V): (k: K) => V {
  const kept = new WeakMap<K, V>();
  return (k) => {
    if (kept.has(k)) return kept.get(k) as V;
    const v = compute(k);
    kept.set(k, v);
    return v;
  };
}
