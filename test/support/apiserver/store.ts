// The double's etcd: objects per kind, one global resourceVersion, a bounded event history, write conventions.
import { randomBytes, randomUUID } from 'node:crypto';
import { apiVersionOf, kindKey, type KindInfo } from './kinds.js';
import { clone, deepFreeze, isPlainObject, jsonEqual, omit, type KubeObject } from './object.js';
import { alreadyExists, badRequest, conflict, expired, invalid, notFound, type Subject } from './status.js';
import { validate } from './validate.js';

/** A change, as watches see it. Objects are frozen. */
export interface StoreEvent {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly rv: number;
  readonly info: KindInfo;
  readonly object: KubeObject;
  /** The object before a MODIFIED or DELETED, so a selector watch can tell "left the selection". */
  readonly prev?: KubeObject;
}

/** Which part of the object a write may change: the main resource, the status subresource, or both (seeding). */
export type WriteScope = 'main' | 'status' | 'all';

/** Preconditions of an update or delete (metadata.resourceVersion / uid in the body or DeleteOptions). */
export interface Preconditions {
  readonly resourceVersion?: string;
  readonly uid?: string;
}

const CONFLICT = 'the object has been modified; please apply your changes to the latest version and try again';

function nsName(ns: string, name: string): string {
  return `${ns}/${name}`;
}

/** Everything but metadata and status: what a generation bump is measured on. */
function specOf(obj: KubeObject): Record<string, unknown> {
  return omit(obj, ['metadata', 'status', 'apiVersion', 'kind']);
}

export class Store {
  private rv = 1;
  /** Highest resourceVersion no longer covered by the history: a watch from below it is 410 Gone. */
  private floor = 1;
  private history: StoreEvent[] = [];
  private readonly objects = new Map<string, Map<string, KubeObject>>();
  private readonly listeners = new Set<(e: StoreEvent) => void>();

  constructor(
    private readonly historyLimit: number,
    private readonly now: () => Date,
  ) {}

  get resourceVersion(): string {
    return String(this.rv);
  }

  /** Call fn with every change from now on; returns the unsubscribe function. */
  subscribe(fn: (e: StoreEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  get(info: KindInfo, ns: string, name: string): KubeObject | undefined {
    return this.bucket(info).get(nsName(info.namespaced ? ns : '', name));
  }

  /** Objects of a kind, in one namespace or all (ns undefined), in key order as etcd returns them. */
  list(info: KindInfo, ns: string | undefined): KubeObject[] {
    return this.listAt(info, ns, this.rv);
  }

  /** The events after resourceVersion `since`, or 410 Gone if the history no longer reaches back that far. */
  eventsSince(since: number): StoreEvent[] {
    if (since < this.floor) {
      throw expired(`too old resource version: ${since} (${this.floor})`);
    }
    return this.history.filter((e) => e.rv > since);
  }

  /** The objects of a kind as they were at resourceVersion rv, rebuilt by undoing the later events in the history. */
  listAt(info: KindInfo, ns: string | undefined, rv: number): KubeObject[] {
    if (rv < this.floor) throw expired(`too old resource version: ${rv} (${this.floor})`);
    const state = new Map(this.bucket(info));
    for (let i = this.history.length - 1; i >= 0; i--) {
      const e = this.history[i]!;
      if (e.rv <= rv) break;
      if (e.info !== info) continue;
      const key = nsName(e.object.metadata.namespace ?? '', e.object.metadata.name ?? '');
      if (e.type === 'ADDED' || e.prev === undefined) state.delete(key);
      else state.set(key, e.prev);
    }
    const prefix = ns === undefined ? '' : `${ns}/`;
    return [...state.entries()]
      .filter(([key]) => key.startsWith(prefix))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, obj]) => obj);
  }

  /** True if a list or continue token at this resourceVersion can no longer be served. */
  isExpired(rv: number): boolean {
    return rv < this.floor;
  }

  /** Forget the history. With bump, also advance the resourceVersion so every version handed out so far expires. */
  compact(bump: boolean): void {
    if (bump) this.rv++;
    this.floor = this.rv;
    this.history = [];
  }

  /** Empty the store and start resourceVersions again (a fresh etcd). */
  wipe(): void {
    this.objects.clear();
    this.history = [];
    this.rv = 1;
    this.floor = 1;
  }

  create(info: KindInfo, ns: string, body: KubeObject, scope: WriteScope): KubeObject {
    const obj = this.normalize(info, ns, clone(body));
    const meta = obj.metadata;
    if ((meta.name ?? '') === '' && (meta.generateName ?? '') !== '') {
      meta.name = `${meta.generateName ?? ''}${randomBytes(4).toString('hex').slice(0, 5)}`;
    }
    this.check(info, obj);
    const key = nsName(meta.namespace ?? '', meta.name ?? '');
    if (this.bucket(info).has(key)) throw alreadyExists(subject(info, meta.name));
    meta.uid = randomUUID();
    meta.creationTimestamp = this.now()
      .toISOString()
      .replace(/\.\d+Z$/, 'Z');
    delete meta.deletionTimestamp;
    if (info.generation) meta.generation = 1;
    else delete meta.generation;
    if (info.status && scope === 'main') delete obj.status;
    defaults(info, obj);
    return this.commit('ADDED', info, key, obj, undefined);
  }

  update(info: KindInfo, ns: string, name: string, body: KubeObject, scope: WriteScope): KubeObject {
    const old = this.get(info, ns, name);
    if (old === undefined) throw notFound(subject(info, name));
    const incoming = this.normalize(info, ns, clone(body));
    if ((incoming.metadata.name ?? '') !== name) {
      throw badRequest(`the name of the object (${incoming.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    }
    this.precondition(info, old, { resourceVersion: incoming.metadata.resourceVersion, uid: incoming.metadata.uid });
    let next: KubeObject;
    if (scope === 'status') {
      next = clone(old);
      if (incoming.status === undefined) delete next.status;
      else next.status = incoming.status;
    } else {
      next = incoming;
      const keep = old.metadata;
      next.metadata = { ...next.metadata, uid: keep.uid, creationTimestamp: keep.creationTimestamp, namespace: keep.namespace, generation: keep.generation };
      if (keep.namespace === undefined) delete next.metadata.namespace;
      if (keep.generation === undefined) delete next.metadata.generation;
      if (info.status && scope === 'main') {
        if (old.status === undefined) delete next.status;
        else next.status = clone(old.status);
      }
      this.check(info, next);
      if (info.generation && !jsonEqual(specOf(old), specOf(next))) next.metadata.generation = (keep.generation ?? 0) + 1;
    }
    next.metadata.resourceVersion = old.metadata.resourceVersion;
    if (jsonEqual(next, old)) return old; // a no-op write changes nothing in etcd: same resourceVersion, no event
    return this.commit('MODIFIED', info, nsName(old.metadata.namespace ?? '', name), next, old);
  }

  delete(info: KindInfo, ns: string, name: string, pre: Preconditions): KubeObject {
    const old = this.get(info, ns, name);
    if (old === undefined) throw notFound(subject(info, name));
    this.precondition(info, old, pre);
    const gone = clone(old);
    return this.commit('DELETED', info, nsName(old.metadata.namespace ?? '', name), gone, old);
  }

  private bucket(info: KindInfo): Map<string, KubeObject> {
    const key = kindKey(info);
    let b = this.objects.get(key);
    if (b === undefined) {
      b = new Map();
      this.objects.set(key, b);
    }
    return b;
  }

  /** Check apiVersion/kind and namespace of a body against the URL, and fill them in. */
  private normalize(info: KindInfo, ns: string, obj: KubeObject): KubeObject {
    const apiVersion = apiVersionOf(info);
    if (obj.apiVersion !== undefined && obj.apiVersion !== apiVersion) {
      throw badRequest(`the API version in the data (${obj.apiVersion}) does not match the expected API version (${apiVersion})`);
    }
    if (obj.kind !== undefined && obj.kind !== info.kind) {
      throw badRequest(`the kind in the data (${obj.kind}) does not match the expected kind (${info.kind})`);
    }
    obj.apiVersion = apiVersion;
    obj.kind = info.kind;
    if (info.namespaced) {
      if ((obj.metadata.namespace ?? '') !== '' && obj.metadata.namespace !== ns) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      obj.metadata.namespace = ns;
    } else {
      delete obj.metadata.namespace;
    }
    if (info.kind === 'Secret') secretStringData(obj);
    return obj;
  }

  private check(info: KindInfo, obj: KubeObject): void {
    const causes = validate(info, obj);
    if (causes.length > 0) throw invalid(subject(info, obj.metadata.name), info.kind, causes);
  }

  private precondition(info: KindInfo, old: KubeObject, pre: Preconditions): void {
    const s = subject(info, old.metadata.name);
    if (pre.uid !== undefined && pre.uid !== '' && pre.uid !== old.metadata.uid) {
      throw conflict(s, `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${old.metadata.uid ?? ''}`);
    }
    if (pre.resourceVersion !== undefined && pre.resourceVersion !== '' && pre.resourceVersion !== old.metadata.resourceVersion) {
      throw conflict(s, CONFLICT);
    }
  }

  private commit(type: StoreEvent['type'], info: KindInfo, key: string, obj: KubeObject, prev: KubeObject | undefined): KubeObject {
    this.rv++;
    obj.metadata.resourceVersion = String(this.rv);
    const frozen = deepFreeze(obj);
    if (type === 'DELETED') this.bucket(info).delete(key);
    else this.bucket(info).set(key, frozen);
    const event: StoreEvent = prev === undefined ? { type, rv: this.rv, info, object: frozen } : { type, rv: this.rv, info, object: frozen, prev };
    this.history.push(event);
    while (this.history.length > this.historyLimit) this.floor = this.history.shift()?.rv ?? this.floor;
    for (const fn of [...this.listeners]) fn(event);
    return frozen;
  }
}

function subject(info: KindInfo, name: string | undefined): Subject {
  return name === undefined ? { group: info.group, plural: info.plural } : { group: info.group, plural: info.plural, name };
}

/** Secret.stringData is write-only: the apiserver folds it into data as base64. */
function secretStringData(obj: KubeObject): void {
  if (!isPlainObject(obj.stringData)) return;
  const data: Record<string, unknown> = isPlainObject(obj.data) ? obj.data : {};
  for (const [key, value] of Object.entries(obj.stringData)) {
    if (typeof value === 'string') data[key] = Buffer.from(value, 'utf8').toString('base64');
  }
  obj.data = data;
  delete obj.stringData;
}

/** Server-side defaults the controller may rely on. */
function defaults(info: KindInfo, obj: KubeObject): void {
  if (info.kind === 'Namespace') {
    if (!isPlainObject(obj.status)) obj.status = { phase: 'Active' };
    if (!isPlainObject(obj.spec)) obj.spec = { finalizers: ['kubernetes'] };
    obj.metadata.labels = { ...obj.metadata.labels, 'kubernetes.io/metadata.name': obj.metadata.name ?? '' };
  }
  if (info.kind === 'Secret' && obj.type === undefined) obj.type = 'Opaque';
}
