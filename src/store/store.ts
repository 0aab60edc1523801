// The store: the current objects of every kind, frozen; any change marks it dirty and wakes the sync loop.
import { KINDS, keyOf, trim, type Kind, type KubeObject } from './kinds.js';

export type ChangeListener = (kind: Kind) => void;

/** The snapshot's field for each kind (the shape the model reads; the store does not import the model). */
const FIELDS = {
  ingresses: 'Ingress',
  ingressClasses: 'IngressClass',
  services: 'Service',
  endpointSlices: 'EndpointSlice',
  secrets: 'Secret',
  configMaps: 'ConfigMap',
  gatewayClasses: 'GatewayClass',
  gateways: 'Gateway',
  httpRoutes: 'HTTPRoute',
  grpcRoutes: 'GRPCRoute',
  tlsRoutes: 'TLSRoute',
  tcpRoutes: 'TCPRoute',
  udpRoutes: 'UDPRoute',
  listenerSets: 'ListenerSet',
  referenceGrants: 'ReferenceGrant',
  backendTLSPolicies: 'BackendTLSPolicy',
  namespaces: 'Namespace',
} as const satisfies Record<string, Kind>;

/** What a snapshot may hold: a frozen list per field of FIELDS. */
export type SnapshotShape = { readonly [F in keyof typeof FIELDS]?: readonly unknown[] };

/**
 * Holds the objects the sources deliver. Handlers only store and mark dirty; the sync loop does the work. `S` is the
 * snapshot type its reader names (the controller: the model's Snapshot), so the store depends on no reader.
 */
export class Store<S extends SnapshotShape = SnapshotShape> {
  private readonly objects = new Map<Kind, Map<string, KubeObject>>();
  private readonly listeners: ChangeListener[] = [];
  private cached: S | undefined;

  /**
   * `opts.compact` (default true): each stored object re-made as JSON.parse builds it, and its text kept for the build
   * worker (store/kinds.ts, docs/adr/0044). A one-shot reader (`portico render`) keeps no copy for long and crosses to no
   * worker: without it, 0.3 s less of a 10,000-Ingress render (docs/adr/0047). 'one-shot': objects with nothing to
   * drop are stored as given, neither copied nor frozen (store/kinds.ts trimOneShot): for a reader that builds once and
   * whose objects were just parsed for it alone.
   */
  constructor(private readonly opts: { readonly compact?: boolean | 'one-shot' } = {}) {
    for (const kind of Object.keys(KINDS) as Kind[]) this.objects.set(kind, new Map());
  }

  onChange(listener: ChangeListener): void {
    this.listeners.push(listener);
  }

  private changed(kind: Kind): void {
    this.cached = undefined;
    for (const l of this.listeners) l(kind);
  }

  private table(kind: Kind): Map<string, KubeObject> {
    const t = this.objects.get(kind);
    if (!t) throw new Error(`unknown kind ${kind}`);
    return t;
  }

  /** Adds or replaces an object. An update whose resourceVersion did not change is dropped (returns false). */
  upsert(kind: Kind, obj: KubeObject): boolean {
    const key = keyOf(kind, obj);
    const old = this.table(kind).get(key);
    const rv = obj.metadata?.resourceVersion;
    if (old && rv !== undefined && old.metadata?.resourceVersion === rv) return false;
    this.table(kind).set(key, trim(obj, kind, this.opts.compact));
    this.changed(kind);
    return true;
  }

  /** The stored (trimmed, frozen) object of a kind under `key` (keyOf), if any. */
  get(kind: Kind, key: string): KubeObject | undefined {
    return this.table(kind).get(key);
  }

  /** Removes an object; false when it was not there. */
  remove(kind: Kind, obj: KubeObject): boolean {
    const removed = this.table(kind).delete(keyOf(kind, obj));
    if (removed) this.changed(kind);
    return removed;
  }

  /** Replaces every object of a kind (a relist, or a re-read folder); marks dirty only if anything differs. */
  replaceKind(kind: Kind, objs: readonly KubeObject[]): boolean {
    const next = new Map(objs.map((o) => [keyOf(kind, o), o] as const));
    const table = this.table(kind);
    let dirty = next.size !== table.size;
    for (const [key, obj] of next) {
      const old = table.get(key);
      const rv = obj.metadata?.resourceVersion;
      if (!old || rv === undefined || old.metadata?.resourceVersion !== rv) dirty = true;
    }
    if (!dirty) return false;
    this.objects.set(
      kind,
      new Map(
        [...next].map(([k, o]) => {
          const old = table.get(k);
          const same = old && o.metadata?.resourceVersion !== undefined && old.metadata?.resourceVersion === o.metadata.resourceVersion;
          return [k, same ? old : trim(o, kind, this.opts.compact)] as const;
        }),
      ),
    );
    this.changed(kind);
    return true;
  }

  /** Number of objects of a kind. */
  count(kind: Kind): number {
    return this.table(kind).size;
  }

  /** A frozen snapshot of everything; the same object until the next change. */
  snapshot(): S {
    if (this.cached) return this.cached;
    const snap = Object.freeze(Object.fromEntries(Object.entries(FIELDS).map(([field, kind]) => [field, Object.freeze([...this.table(kind).values()])])));
    // Sources only store objects of the kind they are filed under, and S names those kinds' types: the cast holds.
    this.cached = snap as S;
    return this.cached;
  }
}
