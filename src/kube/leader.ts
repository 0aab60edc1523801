// Leader election on a coordination.k8s.io/v1 Lease: every replica serves traffic, only the holder writes status.
//
// The algorithm is client-go's leaderelection: read the Lease; take it when it is free or its holder has not renewed
// it for leaseDurationSeconds (timed on the local clock from when this replica saw the renewal, so clock skew between
// nodes does not matter); renew it while leading; a write that loses the race gets 409 Conflict and changes nothing.
// A watch on the Lease wakes followers at once when the leader releases it on SIGTERM.
import { ApiException, CoordinationV1Api, V1Lease, Watch, type KubeConfig } from '@kubernetes/client-node';
import type { Lease } from 'kubernetes-types/coordination/v1.js';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { refKey } from '../model/keys.js';

export interface LeaderOptions {
  readonly kc: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  /** --election-ttl: how long a Lease stays with a holder that stopped renewing it. */
  readonly ttlMs: number;
  readonly log: Logger;
  /** Called on every change of leadership, true when this replica starts leading. */
  readonly onChange?: (leading: boolean) => void;
}

/** Renew and retry periods derived from the TTL, as ingress-nginx derives them (TTL/2 and TTL/4). */
export function electionTimings(ttlMs: number): { leaseMs: number; renewDeadlineMs: number; retryMs: number } {
  return { leaseMs: ttlMs, renewDeadlineMs: Math.floor(ttlMs / 2), retryMs: Math.max(100, Math.floor(ttlMs / 4)) };
}

function statusCode(err: unknown): number | undefined {
  return err instanceof ApiException ? err.code : undefined;
}

/** metav1.MicroTime as the API writes it: RFC 3339 with six fractional digits. */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

/** The Lease as JSON (client-node hands back class instances; MicroTime fields stay strings). */
function plainLease(lease: V1Lease): Lease {
  return JSON.parse(JSON.stringify(lease)) as Lease;
}

/** client-node's serializer reads a body's fields by name, so the API's JSON shape goes out exactly as the class. */
function leaseBody(lease: Lease): V1Lease {
  return Object.assign(new V1Lease(), lease as object);
}

export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private readonly t: ReturnType<typeof electionTimings>;
  private leading = false;
  /** Local time of the last successful acquire or renew. */
  private lastRenew = 0;
  /** The Lease record (holder|renewTime) last seen, and the local time it was first seen. */
  private observed: { key: string; holder: string; at: number; durationMs: number } | undefined;
  private timer: NodeJS.Timeout | undefined;
  private watch: AbortController | undefined;
  private stopped = false;
  private busy: Promise<void> = Promise.resolve();

  constructor(private readonly opts: LeaderOptions) {
    this.api = opts.kc.makeApiClient(CoordinationV1Api);
    this.t = electionTimings(opts.ttlMs);
  }

  get identity(): string {
    return this.opts.identity;
  }

  /** True while this replica holds the Lease and renewed it within the renew deadline (checked at each call). */
  get isLeader(): boolean {
    return this.leading && Date.now() - this.lastRenew < this.t.renewDeadlineMs;
  }

  start(): void {
    this.opts.log.info({ lease: refKey(this.opts.namespace, this.opts.name), identity: this.opts.identity, ...this.t }, 'leader election started');
    this.tick();
    void this.startWatch();
  }

  /** Stops; when leading and `release`, gives the Lease up so a successor takes it without waiting for the TTL. */
  async stop(release: boolean): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.watch?.abort();
    await this.busy;
    const wasLeading = this.leading;
    this.setLeading(false);
    if (release && wasLeading) await this.release();
  }

  private tick(): void {
    if (this.stopped) return;
    this.timer = undefined;
    this.busy = this.attempt().then(() => {
      this.schedule();
    });
  }

  /** Next attempt after the retry period, or exactly when the current holder's Lease runs out if that is sooner. */
  private schedule(): void {
    if (this.stopped || this.timer) return;
    let wait = this.t.retryMs;
    const o = this.observed;
    if (!this.leading && o && o.holder !== '') wait = Math.min(wait, Math.max(0, o.at + o.durationMs - Date.now()) + 10);
    this.timer = setTimeout(() => {
      this.tick();
    }, wait);
  }

  private async attempt(): Promise<void> {
    try {
      await this.tryAcquireOrRenew();
    } catch (err) {
      this.opts.log.warn({ err: errorMessage(err), code: statusCode(err) }, 'leader election: the Lease could not be read or written');
    }
    if (this.leading && !this.isLeader) {
      this.opts.log.warn({ renewDeadlineMs: this.t.renewDeadlineMs }, 'leader election: Lease not renewed in time; no longer leading');
      this.setLeading(false);
    }
  }

  private observe(lease: Lease, now: number): void {
    const holder = lease.spec?.holderIdentity ?? '';
    const key = `${holder}|${lease.spec?.renewTime ?? ''}`;
    const durationMs = (lease.spec?.leaseDurationSeconds ?? Math.ceil(this.t.leaseMs / 1000)) * 1000;
    if (this.observed?.key !== key) this.observed = { key, holder, at: now, durationMs };
  }

  private async tryAcquireOrRenew(): Promise<void> {
    const { namespace, name, identity } = this.opts;
    const now = Date.now();
    let lease: Lease | undefined;
    try {
      lease = plainLease(await this.api.readNamespacedLease({ name, namespace }));
    } catch (err) {
      if (statusCode(err) !== 404) throw err;
    }
    if (this.stopped) return;
    if (!lease) {
      await this.write(() => this.api.createNamespacedLease({ namespace, body: leaseBody(this.record(undefined, now)) }), now);
      return;
    }
    this.observe(lease, now);
    const o = this.observed;
    const holder = lease.spec?.holderIdentity ?? '';
    const expired = o !== undefined && o.at + o.durationMs <= now;
    if (holder !== '' && holder !== identity && !expired) {
      if (this.leading) this.opts.log.warn({ holder }, 'leader election: another replica holds the Lease');
      this.setLeading(false);
      return;
    }
    await this.write(() => this.api.replaceNamespacedLease({ name, namespace, body: leaseBody(this.record(lease, now)) }), now);
  }

  /** The Lease this replica writes: itself as holder, renewed now; a new holder counts one more transition. */
  private record(old: Lease | undefined, now: number): Lease {
    const spec = old?.spec ?? {};
    const taking = spec.holderIdentity !== this.opts.identity;
    return {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { ...(old?.metadata ?? {}), name: this.opts.name, namespace: this.opts.namespace },
      spec: {
        holderIdentity: this.opts.identity,
        leaseDurationSeconds: Math.ceil(this.t.leaseMs / 1000),
        acquireTime: taking ? microTime(now) : spec.acquireTime,
        renewTime: microTime(now),
        leaseTransitions: (spec.leaseTransitions ?? 0) + (taking && old ? 1 : 0),
      },
    };
  }

  /** One create/replace; 409 means another replica wrote first, which is not an error. */
  private async write(send: () => Promise<V1Lease>, now: number): Promise<void> {
    try {
      this.observe(plainLease(await send()), now);
    } catch (err) {
      if (statusCode(err) === 409) return;
      throw err;
    }
    if (this.stopped) return;
    this.lastRenew = now;
    this.setLeading(true);
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.opts.log.info({ identity: this.opts.identity, lease: this.opts.name }, leading ? 'became the leader' : 'stopped leading');
    this.opts.onChange?.(leading);
  }

  /** Empties holderIdentity (client-go's ReleaseOnCancel), unless another replica took the Lease meanwhile. */
  private async release(): Promise<void> {
    const { namespace, name, identity } = this.opts;
    try {
      const lease = plainLease(await this.api.readNamespacedLease({ name, namespace }));
      if (lease.spec?.holderIdentity !== identity) return;
      const now = microTime(Date.now());
      await this.api.replaceNamespacedLease({ name, namespace, body: leaseBody({ ...lease, spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now } }) });
      this.opts.log.info({ lease: name }, 'Lease released');
    } catch (err) {
      this.opts.log.warn({ err: errorMessage(err) }, 'Lease not released; a successor takes over when it expires');
    }
  }

  /** Watches the Lease so a follower tries at once when it is released or changes hands. Restarts when it ends. */
  private async startWatch(): Promise<void> {
    if (this.stopped) return;
    const path = `/apis/coordination.k8s.io/v1/namespaces/${this.opts.namespace}/leases`;
    const restart = (): void => {
      if (!this.stopped)
        setTimeout(() => {
          void this.startWatch();
        }, this.t.retryMs).unref();
    };
    try {
      this.watch = await new Watch(this.opts.kc).watch(
        path,
        { fieldSelector: `metadata.name=${this.opts.name}` },
        (phase, obj: Lease) => {
          if (phase !== 'ADDED' && phase !== 'MODIFIED' && phase !== 'DELETED') return;
          const free = phase === 'DELETED' || (obj.spec?.holderIdentity ?? '') === '';
          if (phase !== 'DELETED') this.observe(obj, Date.now());
          if (free && !this.leading && this.timer) {
            clearTimeout(this.timer);
            this.tick();
          }
        },
        restart,
      );
    } catch {
      restart();
    }
  }
}
