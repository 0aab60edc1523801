// A full garbage collection on demand, for the two threads a sync runs on. At 10,000 Ingresses each build leaves
// hundreds of MiB of garbage in the build worker and a whole model (30-50 MiB) on the main thread, which V8 collects
// late; bench/README.md "Controller memory at 10,000" measures what collecting it right after a sync saves.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type Gc = (options?: { type: 'major'; execution: 'async' }) => Promise<void> | undefined;

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
 * A full collection of this thread's heap, compacting (so the freed pages go back to the system), now: the build
 * worker calls it between requests, where a pause blocks nobody. Flags are the process's: compaction is set for this
 * one collection only.
 */
export function collectNow(): void {
  if (!gc) return;
  setFlagsFromString('--compact-on-every-full-gc');
  try {
    void gc();
  } finally {
    setFlagsFromString('--no-compact-on-every-full-gc');
  }
}

/**
 * A full collection of this thread's heap, marked concurrently and incrementally as V8 does its own (no long pause of
 * the event loop): the main thread calls it once a sync's previous model is garbage.
 */
export function collectSoon(): Promise<void> {
  return gc?.({ type: 'major', execution: 'async' }) ?? Promise.resolve();
}
