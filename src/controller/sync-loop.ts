// The coalescing worker: events mark work dirty; one sync runs at a time, at most once per interval.
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { SyncRun } from '../metrics/history.js';

export type SyncFn = (causes: ReadonlyMap<string, number>) => Promise<void>;

/**
 * Bursts of marks become one sync; a mark during a sync schedules exactly one more after it, so the last change
 * of a burst is always applied. Syncs start at least `minIntervalMs` apart.
 */
export class SyncLoop {
  private causes = new Map<string, number>();
  private running = false;
  private timer: NodeJS.Timeout | undefined;
  private lastStart = 0;
  private stopped = false;
  private held = false;
  private idleWaiters: (() => void)[] = [];
  syncs = 0;
  /** Called after every sync, failed or not. */
  readonly observers: ((run: SyncRun) => void)[] = [];

  constructor(
    private readonly minIntervalMs: number,
    private readonly fn: SyncFn,
    private readonly log: Logger,
  ) {}

  /** Marks the store dirty because of `cause` (a kind name, 'startup', 'nginx-restart'...). */
  mark(cause: string): void {
    if (this.stopped) return;
    this.causes.set(cause, (this.causes.get(cause) ?? 0) + 1);
    this.schedule();
  }

  /** Marks are counted but no sync starts until release(): a source's first lists land as one sync. */
  hold(): void {
    this.held = true;
  }

  release(): void {
    this.held = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.held || this.running || this.timer || this.causes.size === 0) return;
    const wait = Math.max(0, this.lastStart + this.minIntervalMs - Date.now());
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.runOnce();
    }, wait);
  }

  private async runOnce(): Promise<void> {
    const causes = this.causes;
    this.causes = new Map();
    this.running = true;
    this.lastStart = Date.now();
    this.syncs += 1;
    let error: string | undefined;
    try {
      await this.fn(causes);
    } catch (err) {
      error = errorMessage(err);
      this.log.error({ err: error }, 'sync failed; it will be retried on the next change');
    } finally {
      this.running = false;
    }
    const run = { startedAt: this.lastStart, ms: Date.now() - this.lastStart, causes, ...(error === undefined ? {} : { error }) };
    for (const o of this.observers) o(run);
    if (this.causes.size > 0) this.schedule();
    else for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves when no sync is running or pending. */
  idle(): Promise<void> {
    if (!this.running && !this.timer && (this.held || this.causes.size === 0)) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    for (const w of this.idleWaiters.splice(0)) w();
  }
}
