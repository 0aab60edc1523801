// Writes the status of Portico's Gateway API objects: GatewayClass Accepted; Gateway Accepted, Programmed, addresses
// and listeners; HTTPRoute and GRPCRoute per-parent Accepted/ResolvedRefs; BackendTLSPolicy per-ancestor Accepted/ResolvedRefs.
// Leader only, only when it differs.
//
// The desired conditions come from model/gateway/status.ts (pure); here they get their lastTransitionTime (kept
// while a condition's status stays, else the time of the write) and are merged with other controllers' entries.
import { Passes } from './passes.js';
import { readBundleVersions } from './gateway-crds.js';
import { CustomObjectsApi, PatchStrategy, setHeaderOptions, type KubeConfig } from '@kubernetes/client-node';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import { GATEWAY_GROUP, type Condition } from '../model/gateway/api.js';
import type { L4Flags } from '../model/gateway/l4.js';
import { desiredGatewayStatus, gatewayAddresses, type DesiredGatewayStatus, type GatewayAddress, type GatewayStatus, type ListenerStatus, type RouteParentStatus } from '../status/gateway.js';
import type { StatusAddress } from '../status/address.js';
import type { BundleReading } from '../status/gateway-version.js';
import type { PolicyAncestorStatus } from '../status/backend-tls.js';
import type { ListenerPortPolicy } from '../model/gateway/listener-ports.js';
import { listenerSetPass } from './listenerset-status.js';

export interface GatewayStatusOptions {
  readonly kc: KubeConfig;
  readonly log: Logger;
  readonly isLeader: () => boolean;
  /** --gateway-controller-name. */
  readonly controllerName: string;
  /** --gateway-api-experimental-features: experimental-channel CRDs are supported (status/gateway-version.ts). */
  readonly experimental?: boolean;
  /** The clock for lastTransitionTime (tests pass a fixed one). */
  readonly now?: () => Date;
  /** The Gateways' addresses, as Ingress status computes them (kube/status-inputs.ts); undefined: unknown, left as they are. */
  readonly addresses?: (snapshot: Snapshot) => readonly StatusAddress[] | undefined;
  /** --gateway-static-addresses: what spec.addresses may claim besides those (status/gateway-addresses.ts). */
  readonly staticAddresses?: readonly string[];
  /** Where TCP and UDP listener ports are served and which ports they may not take (model/gateway/l4.ts). */
  readonly l4?: L4Flags;
  /** Where listeners are served and which local ports they may not take (model/gateway/listener-ports.ts); unset: the defaults. */
  readonly ports?: ListenerPortPolicy;
}

interface Target {
  readonly plural: string;
  readonly namespace: string | undefined;
  readonly name: string;
  readonly rv: string | undefined;
}
type Status = {
  readonly conditions?: readonly Condition[];
  readonly parents?: readonly RouteParentStatus[];
  readonly ancestors?: readonly PolicyAncestorStatus[];
  readonly addresses?: readonly GatewayAddress[];
  readonly listeners?: readonly ListenerStatus[];
  readonly attachedListenerSets?: number;
};

/** A condition as compared: lastTransitionTime left out. */
const bare = (c: Condition): Condition => ({
  type: c.type,
  status: c.status,
  reason: c.reason,
  message: c.message,
  ...(c.observedGeneration !== undefined ? { observedGeneration: c.observedGeneration } : {}),
});
const same = (a: readonly Condition[], b: readonly Condition[]): boolean => JSON.stringify(a.map(bare)) === JSON.stringify(b.map(bare));

/** The desired conditions, each keeping the old lastTransitionTime while its status is unchanged. */
function stamped(desired: readonly Condition[], old: readonly Condition[] | undefined, now: string): Condition[] {
  return desired.map((c) => {
    const was = old?.find((o) => o.type === c.type);
    return { ...c, lastTransitionTime: was?.status === c.status && was.lastTransitionTime ? was.lastTransitionTime : now };
  });
}

/** A Gateway status as compared: listeners without lastTransitionTime, addresses only when known. */
function gatewayShape(s: Status | GatewayStatus, withAddresses: boolean): string {
  return JSON.stringify([
    (s.conditions ?? []).map(bare),
    (s.listeners ?? []).map((l) => [l.name, l.supportedKinds, l.attachedRoutes, l.conditions.map(bare)]),
    withAddresses ? (s.addresses ?? []).map((a) => [a.type, a.value]) : null,
    s.attachedListenerSets ?? 0,
  ]);
}

/** Our conditions stamped, then the old ones of types we do not own (the specification: never remove others'). */
function mergedConditions(want: readonly Condition[], old: readonly Condition[] | undefined, now: string): Condition[] {
  return [...stamped(want, old, now), ...(old ?? []).filter((o) => !want.some((c) => c.type === o.type))];
}

/** No route of a kind: what a status of an older build lacks. */
const NO_PARENTS: ReadonlyMap<string, readonly RouteParentStatus[]> = new Map();

const parentKey = (p: RouteParentStatus): string =>
  JSON.stringify([p.parentRef.kind ?? 'Gateway', p.parentRef.namespace ?? '', p.parentRef.name, p.parentRef.sectionName ?? '', p.parentRef.port ?? 0]);

export class GatewayStatusWriter {
  private readonly custom: CustomObjectsApi;
  private snapshot: Snapshot | undefined;
  private partial: ReadonlyMap<string, string> = new Map();
  /** Our writes the store has not seen yet: key → resourceVersion before the write, and what we wrote. */
  private readonly written = new Map<string, { rvBefore: string | undefined; status: Status }>();
  private readonly passes = new Passes(() => this.pass());
  private timer: NodeJS.Timeout | undefined;
  /** The CRDs' bundle versions, once read (kube/gateway-crds.ts). */
  private bundle: BundleReading | undefined;
  /** Number of status writes, for logs and tests. */
  writes = 0;

  constructor(private readonly opts: GatewayStatusOptions) {
    this.custom = opts.kc.makeApiClient(CustomObjectsApi);
  }

  /** After each sync: the store's snapshot. */
  /** `partial`: routes served only in part, with why (model/gateway/status.ts desiredGatewayStatus). */
  update(snapshot: Snapshot, partial: ReadonlyMap<string, string> = new Map()): void {
    this.snapshot = snapshot;
    this.partial = partial;
    this.kick();
  }

  leadershipChanged(leading: boolean): void {
    if (leading) this.kick();
  }

  async idle(): Promise<void> {
    await this.passes.idle();
  }

  /**
   * Reads the CRDs' bundle versions (GatewayClass SupportedVersion), then checks again every `everyMs` (default 60 s,
   * the Ingress status period): the node addresses are re-read on that period without a sync, and a Gateway's
   * addresses must follow them; the CRDs are read again then too.
   */
  async start(everyMs = 60_000): Promise<void> {
    await this.readBundle();
    let reading = false;
    this.timer = setInterval(() => {
      if (reading) return; // a slow API server: one read at a time, never a pile of them
      reading = true;
      void this.readBundle().then(() => {
        reading = false;
        this.kick();
      });
    }, everyMs);
    this.timer.unref();
  }

  /** The CRDs' bundle versions; on an API error (no `get` on customresourcedefinitions) the last ones are kept. */
  private async readBundle(): Promise<void> {
    try {
      this.bundle = { crds: await readBundleVersions(this.opts.kc), experimental: this.opts.experimental ?? false };
    } catch (err) {
      this.opts.log.warn({ err: errorMessage(err) }, 'cannot read the Gateway API CRDs: GatewayClass SupportedVersion is not written until they can be read');
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.passes.stop();
  }

  private kick(): void {
    this.passes.kick();
  }

  /** The status as the store shows it, unless it has not seen our last write yet. */
  private current(key: string, rv: string | undefined, status: Status | undefined): Status {
    const w = this.written.get(key);
    if (w && w.rvBefore === rv) return w.status;
    this.written.delete(key);
    return status ?? {};
  }

  private async pass(): Promise<void> {
    const snapshot = this.snapshot;
    if (!snapshot || !this.opts.isLeader()) return;
    const now = (this.opts.now ?? (() => new Date()))()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
    const desired = desiredGatewayStatus(snapshot, this.opts.controllerName, gatewayAddresses(this.opts.addresses?.(snapshot)), this.bundle, {
      partial: this.partial,
      ...(this.opts.ports ? { ports: this.opts.ports } : {}),
      ...(this.opts.l4 ? { l4Flags: this.opts.l4 } : {}),
      staticAddresses: this.opts.staticAddresses ?? [],
    });
    for (const c of snapshot.gatewayClasses ?? []) {
      const name = c.metadata?.name ?? '';
      const want = desired.classes.get(name);
      if (!want) continue;
      const key = `GatewayClass/${name}`;
      const cur = this.current(key, c.metadata?.resourceVersion, c.status);
      if (same(cur.conditions ?? [], want)) continue;
      await this.write(key, { plural: 'gatewayclasses', namespace: undefined, name, rv: c.metadata?.resourceVersion }, { conditions: stamped(want, cur.conditions, now) });
    }
    await this.gatewayPass(snapshot, desired, now);
    await this.routePass(snapshot, desired, now);
    await this.policyPass(snapshot, desired, now);
  }

  private async gatewayPass(snapshot: Snapshot, desired: DesiredGatewayStatus, now: string): Promise<void> {
    for (const g of snapshot.gateways ?? []) {
      const namespace = g.metadata?.namespace ?? 'default';
      const name = g.metadata?.name ?? '';
      const want = desired.gateways.get(`${namespace}/${name}`);
      if (!want) continue; // another controller's Gateway
      const key = `Gateway/${namespace}/${name}`;
      const cur = this.current(key, g.metadata?.resourceVersion, g.status as Status | undefined);
      const mine = { ...cur, conditions: (cur.conditions ?? []).filter((c) => want.conditions.some((w) => w.type === c.type)) };
      if (gatewayShape(mine, want.addresses !== undefined) === gatewayShape(want, want.addresses !== undefined)) continue;
      const oldListeners = new Map((cur.listeners ?? []).map((l) => [l.name, l.conditions]));
      const status: Status = {
        ...(want.addresses !== undefined ? { addresses: want.addresses } : {}),
        conditions: mergedConditions(want.conditions, cur.conditions, now),
        listeners: want.listeners.map((l) => ({ ...l, conditions: stamped(l.conditions, oldListeners.get(l.name), now) })),
        // ListenerSets (status/listenerset.ts): 0 written only where there was a count to replace
        ...(want.attachedListenerSets !== undefined || cur.attachedListenerSets !== undefined ? { attachedListenerSets: want.attachedListenerSets ?? 0 } : {}),
      };
      await this.write(key, { plural: 'gateways', namespace, name, rv: g.metadata?.resourceVersion }, status);
    }
    await listenerSetPass(snapshot, desired, now, { current: (key, rv, s) => this.current(key, rv, s as Status | undefined), write: (key, t, s) => this.write(key, t, s), stamped });
  }

  private async routePass(snapshot: Snapshot, desired: DesiredGatewayStatus, now: string): Promise<void> {
    const kinds = [
      { kind: 'HTTPRoute', plural: 'httproutes', list: snapshot.httpRoutes ?? [], want: desired.routes },
      { kind: 'GRPCRoute', plural: 'grpcroutes', list: snapshot.grpcRoutes ?? [], want: desired.grpcRoutes },
      { kind: 'TLSRoute', plural: 'tlsroutes', list: snapshot.tlsRoutes ?? [], want: desired.tlsRoutes },
      { kind: 'TCPRoute', plural: 'tcproutes', list: snapshot.tcpRoutes ?? [], want: desired.tcpRoutes ?? NO_PARENTS },
      { kind: 'UDPRoute', plural: 'udproutes', list: snapshot.udpRoutes ?? [], want: desired.udpRoutes ?? NO_PARENTS },
    ] as const;
    for (const { kind, plural, list, want: wanted } of kinds) {
      for (const r of list) {
        const namespace = r.metadata?.namespace ?? 'default';
        const name = r.metadata?.name ?? '';
        const want = wanted.get(`${namespace}/${name}`) ?? [];
        const key = `${kind}/${namespace}/${name}`;
        const cur = this.current(key, r.metadata?.resourceVersion, r.status as Status | undefined);
        const mine = (cur.parents ?? []).filter((p) => p.controllerName === this.opts.controllerName);
        const flat = (ps: readonly RouteParentStatus[]): string => JSON.stringify(ps.map((p) => [parentKey(p), p.conditions.map(bare)]));
        if (flat(mine) === flat(want)) continue;
        const old = new Map(mine.map((p) => [parentKey(p), p.conditions]));
        const parents = [
          ...(cur.parents ?? []).filter((p) => p.controllerName !== this.opts.controllerName),
          ...want.map((p) => ({ ...p, conditions: stamped(p.conditions, old.get(parentKey(p)), now) })),
        ];
        await this.write(key, { plural, namespace, name, rv: r.metadata?.resourceVersion }, { parents });
      }
    }
  }

  /** BackendTLSPolicy status.ancestors: Portico's entries replaced, other controllers' kept. */
  private async policyPass(snapshot: Snapshot, desired: DesiredGatewayStatus, now: string): Promise<void> {
    const mineOf = (a: PolicyAncestorStatus): boolean => a.controllerName === this.opts.controllerName;
    const keyOf = (a: PolicyAncestorStatus): string => `${a.ancestorRef.namespace ?? ''}/${a.ancestorRef.name}`;
    for (const p of snapshot.backendTLSPolicies ?? []) {
      const namespace = p.metadata?.namespace ?? 'default';
      const name = p.metadata?.name ?? '';
      const want = desired.backendTlsPolicies.get(`${namespace}/${name}`) ?? [];
      const key = `BackendTLSPolicy/${namespace}/${name}`;
      const cur = this.current(key, p.metadata?.resourceVersion, p.status as Status | undefined);
      const mine = (cur.ancestors ?? []).filter(mineOf);
      const flat = (as: readonly PolicyAncestorStatus[]): string => JSON.stringify(as.map((a) => [keyOf(a), a.conditions.map(bare)]));
      if (flat(mine) === flat(want)) continue;
      const old = new Map(mine.map((a) => [keyOf(a), a.conditions]));
      const ancestors = [...(cur.ancestors ?? []).filter((a) => !mineOf(a)), ...want.map((a) => ({ ...a, conditions: stamped(a.conditions, old.get(keyOf(a)), now) }))];
      await this.write(key, { plural: 'backendtlspolicies', namespace, name, rv: p.metadata?.resourceVersion }, { ancestors });
    }
  }

  private async write(key: string, t: Target, status: Status): Promise<void> {
    if (!this.opts.isLeader() || this.passes.stopped) return; // lost the Lease mid-pass: stop writing at once
    const base = { group: GATEWAY_GROUP, version: 'v1', plural: t.plural, name: t.name, body: { status } };
    const merge = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
    try {
      if (t.namespace === undefined) await this.custom.patchClusterCustomObjectStatus(base, merge);
      else await this.custom.patchNamespacedCustomObjectStatus({ ...base, namespace: t.namespace }, merge);
      this.writes += 1;
      this.written.set(key, { rvBefore: t.rv, status });
      this.opts.log.info({ object: key }, 'Gateway API status updated');
    } catch (err) {
      this.opts.log.warn({ object: key, err: errorMessage(err) }, 'Gateway API status not updated; retried on the next pass');
    }
  }
}
