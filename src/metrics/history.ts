// The last syncs (plan, causes, duration), counts by plan and the last reload's outcome, kept beside the sync loop.

/** One finished sync, as its observers see it (metrics, the inspector's history): when, why, how long, and a throw. */
export interface SyncRun {
  readonly startedAt: number;
  readonly ms: number;
  readonly causes: ReadonlyMap<string, number>;
  readonly error?: string;
}

export type SyncOutcome = 'noop' | 'dynamic' | 'reload' | 'failed';

export interface SyncRecord {
  /** ISO time the sync started. */
  readonly at: string;
  readonly plan: SyncOutcome;
  readonly ms: number;
  readonly causes: Readonly<Record<string, number>>;
  readonly error?: string;
}

/**
 * Fed by two hooks, never by sync() itself: `applied(plan)` from the controller's applied listeners (a sync nginx
 * now serves) and `finished(run)` from the sync loop's observers. A sync that finished without being applied failed:
 * the last good configuration kept serving.
 */
export class SyncHistory {
  private readonly records: SyncRecord[] = [];
  private appliedPlan: SyncOutcome | undefined;
  readonly byPlan: Record<SyncOutcome, number> = { noop: 0, dynamic: 0, reload: 0, failed: 0 };
  /** The last attempt to change nginx's configuration: whether it worked; when the last one that did (epoch ms). */
  readonly lastReload = { ok: true, at: 0 };
  /** Called with each finished sync (the duration histogram). */
  readonly listeners: ((r: SyncRecord) => void)[] = [];

  constructor(private readonly limit = 50) {}

  applied(plan: 'noop' | 'dynamic' | 'reload'): void {
    this.appliedPlan = plan;
  }

  finished(run: SyncRun): void {
    const plan = this.appliedPlan ?? 'failed';
    this.appliedPlan = undefined;
    this.byPlan[plan] += 1;
    if (plan === 'reload') Object.assign(this.lastReload, { ok: true, at: run.startedAt + run.ms });
    if (plan === 'failed') this.lastReload.ok = false;
    const record: SyncRecord = { at: new Date(run.startedAt).toISOString(), plan, ms: run.ms, causes: Object.fromEntries(run.causes), ...(run.error === undefined ? {} : { error: run.error }) };
    this.records.push(record);
    if (this.records.length > this.limit) this.records.shift();
    for (const l of this.listeners) l(record);
  }

  /** Newest first. */
  recent(n = this.limit): SyncRecord[] {
    return this.records.slice(-n).reverse();
  }
}
