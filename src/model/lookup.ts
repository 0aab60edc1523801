// Finding an object of a snapshot by namespace and name in O(1): an index built once per (frozen) list.
import { nsKey, refKey } from './keys.js';
interface Named {
  readonly metadata?: { readonly namespace?: string; readonly name?: string };
}

/** One index per list: snapshot lists are frozen and replaced, never changed, so a list's index never goes stale. */
const indexes = new WeakMap<readonly Named[], ReadonlyMap<string, Named>>();

/**
 * The object of `list` named `namespace`/`name` (the first one, as a scan would find it). Memoised per list, so
 * thousands of lookups in one sync cost one pass over the list instead of one pass each.
 */
export function byName<T extends Named>(list: readonly T[], namespace: string | undefined, name: string | undefined): T | undefined {
  let index = indexes.get(list);
  if (!index) {
    const m = new Map<string, Named>();
    for (const o of list) {
      const key = nsKey(o);
      if (!m.has(key)) m.set(key, o);
    }
    indexes.set(list, m);
    index = m;
  }
  return index.get(refKey(namespace, name)) as T | undefined;
}
