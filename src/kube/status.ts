// Writes status.loadBalancer.ingress of the Ingresses Portico serves: leader only, only when it differs.
//
// Every replica tracks which Ingresses it serves (the model says), so whichever replica leads knows which ones
// stopped being ours and must have their address removed. Ingresses that never were ours are never written.
import { Passes } from './passes.js';
import { NetworkingV1Api, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Ingress, Snapshot } from '../model/input.js';
import type { ObjectRef } from '../model/types.js';
import { normalize, sameAddresses, type StatusAddress } from '../status/address.js';
import { AddressInputs, type AddressConfig } from './status-inputs.js';

export interface StatusOptions extends AddressConfig {
  readonly kc: KubeConfig;
  readonly log: Logger;
  readonly isLeader: () => boolean;
  /** How often the addresses are re-read from the API and every Ingress checked again. Default 60 s. */
  readonly refreshMs?: number;
}

const keyOf = (namespace: string, name: string): string => `${namespace}/${name}`;

function currentOf(ing: Ingress): StatusAddress[] {
  return normalize((ing.status?.loadBalancer?.ingress ?? []).flatMap((a): StatusAddress[] => (a.ip ? [{ ip: a.ip }] : a.hostname ? [{ hostname: a.hostname }] : [])));
}

export class StatusUpdater {
  private readonly net: NetworkingV1Api;
  readonly inputs: AddressInputs;
  /** Ingresses the last model served, and those that stopped being ours and still carry an address. */
  private served = new Set<string>();
  private readonly leaving = new Set<string>();
  private snapshot: Snapshot | undefined;
  /** Our writes the store has not seen yet: resourceVersion before the write → what we wrote. */
  private readonly written = new Map<string, { rvBefore: string | undefined; addresses: StatusAddress[] }>();
  private timer: NodeJS.Timeout | undefined;
  private readonly passes = new Passes(() => this.pass());
  /** Number of status writes, for logs and tests. */
  writes = 0;

  constructor(private readonly opts: StatusOptions) {
    this.net = opts.kc.makeApiClient(NetworkingV1Api);
    this.inputs = new AddressInputs(opts.kc, opts);
  }

  /** Reads the address inputs, then re-checks everything every refresh period. */
  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => {
      void this.refresh().then(() => {
        this.kick();
      });
    }, this.opts.refreshMs ?? 60_000);
    this.timer.unref();
  }

  private async refresh(): Promise<void> {
    try {
      await this.inputs.refresh();
    } catch (err) {
      this.opts.log.warn({ err: errorMessage(err) }, 'status: could not read the address inputs; keeping the last ones');
    }
  }

  /** After each sync: the store's snapshot and the Ingresses the model serves. */
  update(snapshot: Snapshot, served: readonly ObjectRef[]): void {
    const next = new Set(served.map((r) => keyOf(r.namespace, r.name)));
    for (const key of this.served) if (!next.has(key)) this.leaving.add(key);
    for (const key of next) this.leaving.delete(key);
    this.served = next;
    this.snapshot = snapshot;
    this.kick();
  }

  /** Leadership gained: read the inputs afresh and write what differs. */
  leadershipChanged(leading: boolean): void {
    if (leading)
      void this.refresh().then(() => {
        this.kick();
      });
  }

  /** Resolves when no pass is running or queued. */
  async idle(): Promise<void> {
    await this.passes.idle();
  }

  /** Runs one pass after the current one; passes never overlap and a burst of kicks gives one more pass. */
  private kick(): void {
    this.passes.kick();
  }

  private async pass(): Promise<void> {
    const snapshot = this.snapshot;
    if (!snapshot || !this.opts.isLeader()) return;
    const addresses = this.inputs.addresses(snapshot);
    if (!addresses) return; // the publish Service is missing: leave status as it is
    for (const ing of snapshot.ingresses) {
      const key = keyOf(ing.metadata?.namespace ?? 'default', ing.metadata?.name ?? '');
      const ours = this.served.has(key);
      if (!ours && !this.leaving.has(key)) continue; // never touch another class's Ingress
      const desired = ours ? addresses : [];
      if (sameAddresses(this.current(key, ing), desired)) {
        if (!ours) this.leaving.delete(key);
        continue;
      }
      if (!this.opts.isLeader() || this.passes.stopped) return; // lost the Lease mid-pass: stop writing at once
      await this.write(ing, desired);
    }
    for (const key of this.leaving) if (!snapshot.ingresses.some((i) => keyOf(i.metadata?.namespace ?? '', i.metadata?.name ?? '') === key)) this.leaving.delete(key);
  }

  /** The status as the store shows it, unless it has not seen our last write yet. */
  private current(key: string, ing: Ingress): StatusAddress[] {
    const w = this.written.get(key);
    if (w && w.rvBefore === ing.metadata?.resourceVersion) return w.addresses;
    this.written.delete(key);
    return currentOf(ing);
  }

  private async write(ing: Ingress, addresses: readonly StatusAddress[]): Promise<void> {
    const namespace = ing.metadata?.namespace ?? 'default';
    const name = ing.metadata?.name ?? '';
    try {
      await this.net.patchNamespacedIngressStatus({ name, namespace, body: { status: { loadBalancer: { ingress: addresses } } } }, setHeaderOptions('Content-Type', PatchStrategy.MergePatch));
      this.writes += 1;
      this.written.set(keyOf(namespace, name), { rvBefore: ing.metadata?.resourceVersion, addresses: [...addresses] });
      this.opts.log.info({ ingress: keyOf(namespace, name), addresses }, 'Ingress status updated');
    } catch (err) {
      this.opts.log.warn({ ingress: keyOf(namespace, name), err: errorMessage(err) }, 'Ingress status not updated; retried on the next pass');
    }
  }

  /**
   * Stops. With `clear` (--update-status-on-shutdown), the leader removes the address from the Ingresses it serves
   * when no other replica of this controller is left to serve them; it must still hold the Lease to do so.
   */
  async stop(clear: boolean): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.passes.stop();
    if (!clear || !this.opts.isLeader() || !this.snapshot) return;
    let others: number;
    try {
      const self = this.inputs.ownPod?.metadata?.name;
      if (!self) {
        this.opts.log.info('status kept on shutdown: this pod is unknown (POD_NAME/POD_NAMESPACE), so other replicas may run');
        return;
      }
      others = (await this.inputs.replicas()).filter((p) => p.metadata?.name !== self && p.metadata?.deletionTimestamp === undefined).length;
    } catch (err) {
      this.opts.log.warn({ err: errorMessage(err) }, 'status kept on shutdown: could not list the other replicas');
      return;
    }
    if (others > 0) {
      this.opts.log.info({ others }, 'status kept on shutdown: other replicas keep serving');
      return;
    }
    for (const ing of this.snapshot.ingresses) {
      const key = keyOf(ing.metadata?.namespace ?? 'default', ing.metadata?.name ?? '');
      if (this.served.has(key) && this.current(key, ing).length > 0) await this.write(ing, []);
    }
  }
}
