// The main thread's collections after a sync (Offload.synced): the build that comes next cancels a pending one.
import { collect, COMPACT_WHEN_IDLE_MS, heapIsLarge, heapIsSparse, settle } from './collect.js';

/**
 * The main thread collects once no sync came for COLLECT_IDLE_MS after one, or right after a sync when the last
 * collection is COLLECT_OVERDUE_MS old (under churn). Its pause is 0.1-0.3 s at 10,000 Ingresses: a timer from the
 * build (3 s) fell due when the next change came 2-3 s later, a collection right after every sync when the next came
 * at once; either way on top of that change's sync. Without these collections the main thread's RSS stays ~150 MiB
 * higher at 10,000 (bench/controller-memory: 547 against 391 MiB).
 */
const COLLECT_IDLE_MS = 1000;
const COLLECT_OVERDUE_MS = 10_000;
/*
 * And a compacting collection once no sync came for COMPACT_WHEN_IDLE_MS (collect.ts, the build worker's too) after
 * one, when the heap holds much more than it uses and is not large: the collections above do not compact, and left
 * the main thread's heap 120-220 MiB committed for 110 MiB live at 10,000 Ingresses 30 s after a first sync (the
 * controller's RSS 329-459 MiB from run to run). Its pause is 0.25 s there; a build that comes meanwhile cancels it.
 * With it, or alone with a large heap, the young generation's shrink (collect.ts settle, docs/adr/0058).
 */

/** The main thread's collections after each sync, and the compaction once idle; the next build cancels them. */
export class AfterSyncCollections {
  private collecting: NodeJS.Timeout | undefined;
  /** When the last collection of schedule() ran (ms since the epoch; 0: none yet, so the first sync's is overdue). */
  private collected = 0;

  /** Nothing pending: a build is under way (its sync schedules again), or the worker closes. */
  cancel(): void {
    clearTimeout(this.collecting);
    this.collecting = undefined;
  }

  /**
   * A sync applied a build's result and let the previous model go: one full collection once nothing follows for a
   * second, or now when the last one is overdue, then the idle compaction or the young generation's shrink.
   */
  schedule(): void {
    clearTimeout(this.collecting);
    // with a large heap only when idle: right after a sync it was a second's pause the next change waited for
    const overdue = Date.now() - this.collected >= COLLECT_OVERDUE_MS && !heapIsLarge();
    this.collecting = setTimeout(
      () => {
        this.collected = Date.now();
        void collect();
        // a large heap is not compacted (a pause of a second or more), but its young generation is given back too
        const large = heapIsLarge();
        this.collecting = setTimeout(
          () => {
            this.collecting = settle(!large && heapIsSparse());
          },
          COMPACT_WHEN_IDLE_MS - (overdue ? 0 : COLLECT_IDLE_MS),
        );
        this.collecting.unref();
      },
      overdue ? 0 : COLLECT_IDLE_MS,
    );
    this.collecting.unref();
  }
}
