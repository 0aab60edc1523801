// The build worker's work after a whole build (offload-worker.ts): its collection and the incremental path's warm-up,
// held until the main thread has applied the result.

/**
 * Holds what follows a whole build until the main thread's word that it applied the result ('synced'), then runs it
 * `afterWord` ms later, or `atMost` ms after the build without that word (a sync that failed); a build that comes
 * first drops it (its own reply holds its own). Run right after the reply, the collection and the warm-up took a core
 * from the main thread taking the model and from nginx's pushes and reload, and the startup head's compaction ran
 * before the whole build that followed it: at 10,000 Ingresses the whole first sync's line came at 3.50-3.67 s from
 * the spawn instead of 3.97 s (docs/adr/0059).
 */
export class AfterWhole {
  private held: { readonly first: boolean } | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** The work: `first` when the build was the worker's first (its collection compacts). */
    private readonly run: (first: boolean) => void,
    private readonly afterWord: number,
    private readonly atMost: number,
  ) {}

  /** A whole build's reply went out. */
  hold(first: boolean): void {
    this.held = { first };
    this.schedule(this.atMost);
  }

  /** The main thread applied the result. */
  synced(): void {
    this.schedule(this.afterWord);
  }

  /** A build came: what the last one held is not run. */
  drop(): void {
    this.held = undefined;
    clearTimeout(this.timer);
  }

  private schedule(ms: number): void {
    clearTimeout(this.timer);
    if (this.held === undefined) return;
    this.timer = setTimeout(() => {
      const held = this.held;
      this.drop();
      if (held !== undefined) this.run(held.first);
    }, ms);
    this.timer.unref();
  }
}
