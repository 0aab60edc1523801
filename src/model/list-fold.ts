// A map gathered from every item of a list, kept from one list to the next by the ends they share. The main thread
// gathered some small maps (htpasswd files, CA files, Ingresses of other classes) by walking every server or Ingress
// of each sync: 50-100 ms a sync at 100,000 for a change of one (docs/adr/0050). A sync's lists keep their unchanged
// objects in place (the build worker's wire), so only the middle between the shared ends is walked.

/**
 * Folds `entriesOf(item)` of every item of a list into one map. `entriesOf` must be pure (the same item gives the same
 * entries: an item leaving the list takes back what it gave), and items that give the same key give the same value (a
 * file named by its content's digest; a group named by what would serve it): which of them gave it does not matter.
 */
export class ListFold<T extends object, V> {
  private list: readonly T[] = [];
  /** How many items of the list give each key. */
  private readonly counts = new Map<string, number>();
  private readonly values = new Map<string, V>();

  constructor(private readonly entriesOf: (item: T) => readonly (readonly [string, V])[]) {}

  /** The map of `list`'s entries. Valid until the next call: the caller reads it, and keeps a copy if it must. */
  of(list: readonly T[]): ReadonlyMap<string, V> {
    if (list === this.list) return this.values;
    const { head, tail } = commonEnds(this.list, list);
    for (const item of this.list.slice(head, this.list.length - tail)) this.take(item);
    for (const item of list.slice(head, list.length - tail)) this.give(item);
    this.list = list;
    return this.values;
  }

  /** How many items of the last list gave `key` (0: none). */
  count(key: string): number {
    return this.counts.get(key) ?? 0;
  }

  private give(item: T): void {
    for (const [key, value] of this.entriesOf(item)) {
      this.counts.set(key, (this.counts.get(key) ?? 0) + 1);
      this.values.set(key, value);
    }
  }

  private take(item: T): void {
    for (const [key] of this.entriesOf(item)) {
      const n = (this.counts.get(key) ?? 0) - 1;
      if (n > 0) this.counts.set(key, n);
      else {
        this.counts.delete(key);
        this.values.delete(key);
      }
    }
  }
}

/** How many leading and trailing elements `a` and `b` share (the same objects at the same places), not overlapping. */
export function commonEnds(a: readonly object[], b: readonly object[]): { head: number; tail: number } {
  const max = Math.min(a.length, b.length);
  let head = 0;
  while (head < max && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < max - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  return { head, tail };
}

/** What walkSorted reports: an element at both sides (the same object), of `a` only, of `b` only, by index. */
export interface SortedVisit {
  same(i: number, j: number): void;
  gone(i: number): void;
  came(j: number): void;
  /** An element of `a` and one of `b` in the same place of the order (equal by `cmp`), not the same object; else gone and came. */
  replaced?(i: number, j: number): void;
}

/**
 * Walks two lists sorted by `cmp` side by side, telling `visit` which elements they share (the same object where the
 * walk meets it) and which are on one side only: one pass of identity checks, `cmp` only where they differ. Changes
 * anywhere in the lists cost their own number (commonEnds gives everything between the first and the last). Any two
 * lists give a true answer (a pair is always the same object); lists not in `cmp`'s order give more gone and came.
 */
export function walkSorted<T extends object>(a: readonly T[], b: readonly T[], cmp: (x: T, y: T) => number, visit: SortedVisit): void {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as T;
    const y = b[j] as T;
    if (x === y) visit.same(i++, j++);
    else {
      const c = cmp(x, y);
      if (c === 0 && visit.replaced) visit.replaced(i++, j++);
      else {
        if (c <= 0) visit.gone(i++);
        if (c >= 0) visit.came(j++);
      }
    }
  }
  for (; i < a.length; i += 1) visit.gone(i);
  for (; j < b.length; j += 1) visit.came(j);
}

/**
 * The objects of `b` not in `a` (came) and of `a` not in `b` (gone), for lists of distinct objects: the shared ends are
 * skipped by position and only the part between them is compared as sets. A list changed in place, by one object added
 * or one taken out, costs that part.
 */
export function middleChanges<T extends object>(a: readonly T[], b: readonly T[]): { readonly came: T[]; readonly gone: T[] } {
  if (a === b) return { came: [], gone: [] };
  const { head, tail } = commonEnds(a, b);
  const midA = a.slice(head, a.length - tail);
  const midB = b.slice(head, b.length - tail);
  const inA = new Set(midA);
  const inB = new Set(midB);
  return { came: midB.filter((x) => !inA.has(x)), gone: midA.filter((x) => !inB.has(x)) };
}
