// A full garbage collection on demand, for the two threads a sync runs on. At 10,000 Ingresses each build leaves
// hundreds of MiB of garbage in the build worker and a whole model (30-50 MiB) on the main thread, which V8 collects
// late; bench/README.md "Controller memory at 10,000" measures what collecting it right after a sync saves.
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type: 'major'; execution: 'async' } | { type: 'minor' }) => Promise<void> | undefined;

/** V8's gc(), taken from a context made while --expose-gc was set; undefined where the flag cannot be set. */
const gc = ((): Gc | undefined => {
  try {
    setFlagsFromString('--expose-gc');
    const fn = runInNewContext('gc') as unknown;
    // flags are the process's: contexts made later (vm, tests) stay as they were
    setFlagsFromString('--no-expose-gc');
    return typeof fn === 'function' ? (fn as Gc) : undefined;
  } catch {
    return undefined;
  }
})();

/**
 * A full collection of this thread's heap, in a task of its own (V8's 'async' gc: the collection itself is a pause of
 * the thread, 0.1-0.3 s at 10,000 Ingresses, no longer than the result's deserialization already blocks the main
 * thread). Not compacting: a compacting one took the build worker 0.3-0.95 s, time a following build or an admission
 * review would have waited. The build worker calls it after each build, the main thread once a sync's previous model
 * is garbage.
 */
export function collect(): Promise<void> {
  return gc?.({ type: 'major', execution: 'async' }) ?? Promise.resolve();
}

/**
 * A full, compacting collection now, so that the freed pages go back to the system: for the build worker after its
 * first (cold) build, whose garbage is the largest and which no build waits behind (the first sync then spends
 * seconds applying). Flags are the process's: compaction is set for this one collection only.
 */
export function collectCompacting(): void {
  if (!gc) return;
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    void gc();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/**
 * A scavenge of this thread's young generation, after which V8 shrinks the young generation to what its live objects
 * need if the thread allocated under 1 KB/ms since its last collection (V8's Heap::ReduceNewSpaceSize measures the last
 * 5 s or more). A sync grows it to 16 MiB a semi-space, 32 MiB a thread, at 10,000 Ingresses; neither a forced full
 * collection nor a compacting one shrinks it, and V8 runs no collection of its own at rest unless a full one started
 * its memory reducer. It stayed committed and resident with 1-4 MiB used: 24 MB of the controller's RSS at rest
 * (docs/adr/0058). See settle(); a pause of a millisecond or two, and the next sync grows the generation again as it needs.
 */
function shrinkYoung(): void {
  void gc?.({ type: 'minor' });
}

/** Longer than the 5 s over which V8 measures a thread's allocation rate (shrinkYoung). */
const SHRINK_YOUNG_AFTER_MS = 6_000;

/**
 * What a thread does once idle after a sync: the young generation shrunk now (which works when this thread was quiet
 * since its last collection) and again SHRINK_YOUNG_AFTER_MS later (the first scavenge starts a quiet window V8 can
 * measure), with a compacting collection between when `compact`. Returns the later timer, for the caller to clear when
 * work comes.
 */
export function settle(compact: boolean): NodeJS.Timeout {
  shrinkYoung();
  if (compact) collectCompacting();
  return setTimeout(shrinkYoung, SHRINK_YOUNG_AFTER_MS).unref();
}

/**
 * Above this much live heap a full collection is a pause of a second or more (1-1.5 s at 100,000 Ingresses, 1-1.5 GiB
 * a thread): one that would fall where the next change of a rollout comes is left to V8's own collections, which mark
 * concurrently with short pauses.
 */
const LONG_PAUSE_ABOVE = 512 * 1024 * 1024;

/**
 * Whether this thread's heap holds at least a quarter more (and 32 MiB more) than it uses: what a compaction would
 * give back. At 10,000 Ingresses a compaction of the main thread is a 0.25 s pause, not worth paying for a few MiB.
 */
export function heapIsSparse(): boolean {
  const h = getHeapStatistics();
  const spare = h.total_heap_size - h.used_heap_size;
  return spare >= 32 * 1024 * 1024 && spare >= h.used_heap_size / 4;
}

/**
 * A thread compacts its heap once no sync or build came for this long after one (the build worker: offload-worker.ts,
 * docs/adr/0045; the main thread: Offload.synced, docs/adr/0054).
 */
export const COMPACT_WHEN_IDLE_MS = 10_000;

/** Whether this thread's live heap is above LONG_PAUSE_ABOVE. */
export function heapIsLarge(): boolean {
  return getHeapStatistics().used_heap_size > LONG_PAUSE_ABOVE;
}
