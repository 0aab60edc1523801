// What changed between two pushes of a payload by key (backends, route table), without a pass over the held keys when
// none can be missing: at 100,000 Ingresses that pass and its 100,000-name array were a tenth of a second of each change.
// A map built from another by a few sets and deletes can say so (noteChanges): the question is then answered from
// those keys alone, without a pass over either map (the route table at 100,000 hosts: 30-80 ms a change).

interface Noted {
  /**
   * Held weakly: a map noted from a base noted from its own base... would otherwise keep every generation alive
   * (each the whole route table). The question is only asked with the base in hand, so a base gone is never asked for.
   */
  readonly base: WeakRef<ReadonlyMap<string, unknown>>;
  readonly set: readonly string[];
  readonly removed: readonly string[];
}

/** Maps built as `base` with only the keys noted set or deleted (by the code that built them; nothing else may differ). */
const noted = new WeakMap<ReadonlyMap<string, unknown>, Noted>();

/** Records that `now` was made from `base` by setting the keys `set` and deleting the keys `removed` (each listed once), and nothing else. */
export function noteChanges<V>(now: ReadonlyMap<string, V>, base: ReadonlyMap<string, V>, set: readonly string[], removed: readonly string[]): void {
  noted.set(now, { base: new WeakRef(base), set, removed });
}

/** How many notes back a map is looked for: a build's warm-up makes two maps between the pushes (worker/incremental.ts). */
const NOTES_BACK = 8;

/**
 * Every key noted as set or deleted on the way from `held` to `now`, when `now` was made from `held` through noted maps
 * (at most NOTES_BACK of them); undefined otherwise. No other key can differ between the two.
 */
function notedSince(held: ReadonlyMap<string, unknown>, now: ReadonlyMap<string, unknown>): Set<string> | undefined {
  const keys = new Set<string>();
  let at = now;
  for (let step = 0; step < NOTES_BACK; step += 1) {
    const note = noted.get(at);
    const base = note?.base.deref();
    if (note === undefined || base === undefined) return undefined;
    for (const key of note.set) keys.add(key);
    for (const key of note.removed) keys.add(key);
    if (base === held) return keys;
    at = base;
  }
  return undefined;
}

/**
 * The keys of `now` whose value `held` lacks or has otherwise (in `now`'s order, or the order noted), and the keys of
 * `held` that `now` lacks (but `keep`, never reported gone). The held keys are walked only when some of them was not
 * met in `now`; neither map is walked when `now` was noted as made from `held` (through at most NOTES_BACK noted maps).
 */
export function entryChanges<V>(held: ReadonlyMap<string, V>, now: ReadonlyMap<string, V>, keep?: string): { changed: string[]; removed: string[] } {
  if (held === now) return { changed: [], removed: [] };
  const keys = notedSince(held, now);
  if (keys !== undefined) {
    return { changed: [...keys].filter((key) => now.has(key) && held.get(key) !== now.get(key)), removed: [...keys].filter((key) => key !== keep && held.has(key) && !now.has(key)) };
  }
  const changed: string[] = [];
  let present = 0;
  for (const [key, value] of now) {
    const was = held.get(key);
    if (was !== undefined) present += 1;
    if (was !== value) changed.push(key);
  }
  const removed: string[] = [];
  if (present < held.size) for (const key of held.keys()) if (key !== keep && !now.has(key)) removed.push(key);
  return { changed, removed };
}
