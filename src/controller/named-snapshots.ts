// The store's snapshot with the answers for its ExternalName Services' names (docs/adr/0019), for the sync.
import type { Logger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import { externalNamesOf } from '../model/external-names.js';
import { ExternalNameResolver } from '../sources/external-names.js';
import type { Store } from '../store/store.js';

/** ExternalName Services' names are resolved again this often (docs/adr/0019). */
const EXTERNAL_NAME_REFRESH_MS = 30_000;
/** A sync waits at most this long for the names of Services it sees first; later answers ask for another sync. */
const EXTERNAL_NAME_WAIT_MS = 2_000;

/** Snapshots of `store` carrying the resolver's answers; with --disable-svc-external-name, the store's own. */
export class NamedSnapshots {
  /** Undefined with --disable-svc-external-name. */
  private readonly names: ExternalNameResolver | undefined;
  /** The resolver's version the last snapshot carried, and that snapshot (the same object while neither changes). */
  private taken = -1;
  private merged: { readonly from: Snapshot; readonly names: Snapshot['externalNames']; readonly snap: Snapshot } | undefined;

  /** `changed` is called when the resolver has new answers (the sync loop marks a sync). */
  constructor(
    private readonly store: Store<Snapshot>,
    disabled: boolean,
    log: Logger,
    changed: () => void,
  ) {
    this.names = disabled ? undefined : new ExternalNameResolver({ refreshMs: EXTERNAL_NAME_REFRESH_MS, log, changed });
  }

  /** The store's snapshot with the ExternalName answers the resolver holds. */
  current(): Snapshot {
    const from = this.store.snapshot();
    if (!this.names) return from;
    const names = this.names.current();
    this.taken = this.names.version;
    if (this.merged?.from !== from || this.merged.names !== names) this.merged = { from, names, snap: Object.freeze({ ...from, externalNames: names }) };
    return this.merged.snap;
  }

  /**
   * Asks the resolver for the names of the ExternalName Services the store holds and waits a little for new ones.
   * False when the sync was asked for by answers an earlier sync already took: nothing to do.
   */
  async resolve(causes: ReadonlyMap<string, number>): Promise<boolean> {
    if (!this.names) return true;
    if (causes.size === 1 && causes.has('ExternalName') && this.names.version === this.taken) return false;
    this.names.want(externalNamesOf(this.store.snapshot().services));
    await this.names.settled(EXTERNAL_NAME_WAIT_MS);
    return true;
  }

  /** Stops the resolver's timers. */
  stop(): void {
    this.names?.stop();
  }
}
