// The kinds Portico keeps, their API versions, and how an object is keyed and trimmed before it is stored.
import type { KubeObject } from '../model/input.js';
import { packEndpoints } from '../model/packed-endpoints.js';

export type { KubeObject };

export const KINDS = {
  Ingress: { apiVersion: 'networking.k8s.io/v1', namespaced: true },
  IngressClass: { apiVersion: 'networking.k8s.io/v1', namespaced: false },
  Service: { apiVersion: 'v1', namespaced: true },
  EndpointSlice: { apiVersion: 'discovery.k8s.io/v1', namespaced: true },
  Secret: { apiVersion: 'v1', namespaced: true },
  ConfigMap: { apiVersion: 'v1', namespaced: true },
  // Gateway API, standard channel (docs/gateway-api.md): read only with --enable-gateway-api.
  GatewayClass: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: false },
  Gateway: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  HTTPRoute: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  GRPCRoute: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  TLSRoute: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  // TCPRoute and UDPRoute: served by nginx's stream module (model/gateway/l4.ts, docs/adr/0023).
  TCPRoute: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  UDPRoute: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  // ListenerSet: listeners added to a Gateway that allows them (model/gateway/listenerset.ts).
  ListenerSet: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  ReferenceGrant: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  BackendTLSPolicy: { apiVersion: 'gateway.networking.k8s.io/v1', namespaced: true },
  // Namespaces, for their labels only: Gateway listeners' allowedRoutes.namespaces.from Selector (model/gateway/attach.ts).
  Namespace: { apiVersion: 'v1', namespaced: false },
} as const;

/**
 * Other API versions a manifest of a kind may carry, the same schema served at both: ReferenceGrant is served at v1
 * by Gateway API v1.5 and later, at v1beta1 by every release (deploy/gateway-api/ ships v1beta1 only).
 */
export const OTHER_API_VERSIONS: Readonly<Partial<Record<Kind, readonly string[]>>> = Object.freeze({ ReferenceGrant: ['gateway.networking.k8s.io/v1beta1'] });

export type Kind = keyof typeof KINDS;

export function isKind(kind: unknown): kind is Kind {
  return typeof kind === 'string' && Object.hasOwn(KINDS, kind);
}

/** `namespace/name` (or `name` for cluster-scoped kinds). */
export function keyOf(kind: Kind, obj: KubeObject): string {
  const name = obj.metadata?.name ?? '';
  return KINDS[kind].namespaced ? `${obj.metadata?.namespace ?? 'default'}/${name}` : name;
}

const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const DROPPED_METADATA = ['managedFields', 'ownerReferences'];

/** A copy of `o` without `keys`, its properties added in order (never `delete`d: see trim). */
function omit<T extends object>(o: T, keys: readonly string[]): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (!keys.includes(k)) out[k] = v;
  // the same object less some optional fields
  return out as T;
}

/**
 * Deep-freezes a value in place and returns it. Arrays by index and objects by for-in (stored objects are JSON data:
 * no inherited enumerable keys), not by Object.values, which made an array per object: the first read of 10,000
 * Ingresses took 719-735 ms instead of 729-764 ms (docs/adr/0059).
 */
function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value;
  Object.freeze(value);
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) deepFreeze(value[i] as unknown);
  } else {
    const o = value as Record<string, unknown>;
    for (const k in o) deepFreeze(o[k]);
  }
  return value;
}

/**
 * An EndpointSlice endpoint as stored: what the model and the inspector read (addresses, conditions). A real cluster's
 * endpoints also carry targetRef (kind, name, namespace, uid), nodeName, zone and hints, which nothing reads and which
 * made up most of a slice; at 10,000 Services they were held twice (the store and the build worker's copy).
 */
const ENDPOINT_FIELDS = ['addresses', 'conditions'] as const;

/**
 * One frozen object per distinct endpoint `conditions` (ready, serving, terminating: a handful of combinations), shared
 * by every endpoint that has it: a cluster has one per pod, and each was an object of its own in the store and again
 * in the build worker's copy (a snapshot delta clones a shared object once).
 */
const CONDITIONS = new Map<string, object>();

function sharedConditions(c: unknown): unknown {
  if (c === null || typeof c !== 'object' || Array.isArray(c)) return c;
  const entries = Object.entries(c as Record<string, unknown>);
  if (entries.length > 3 || entries.some(([, v]) => typeof v !== 'boolean')) return c;
  const key = JSON.stringify(entries.sort(([a], [b]) => (a < b ? -1 : 1)));
  let shared = CONDITIONS.get(key);
  if (shared === undefined) {
    shared = Object.freeze(Object.fromEntries(entries));
    // bounded: three known keys with boolean values; anything else is kept as it came
    if (CONDITIONS.size < 64) CONDITIONS.set(key, shared);
  }
  return shared;
}

function trimSlice(obj: object): object {
  const list: unknown = (obj as { endpoints?: unknown }).endpoints;
  if (!Array.isArray(list)) return obj;
  const endpoints = (list as unknown[]).map((e) => {
    if (e === null || typeof e !== 'object') return e;
    const ep = e as Record<string, unknown>;
    return Object.fromEntries(ENDPOINT_FIELDS.filter((k) => ep[k] !== undefined).map((k) => [k, ep[k]]));
  });
  return { ...obj, endpoints };
}

/**
 * `slice` (an object just parsed, not frozen yet) as the store and the build worker keep it: its endpoints packed
 * (model/packed-endpoints.ts, docs/adr/0060), or, when they cannot be packed exactly, each endpoint's conditions the
 * shared object (sharedConditions).
 */
export function packSlice(slice: unknown): void {
  if (slice === null || typeof slice !== 'object' || Object.isFrozen(slice)) return;
  const s = slice as { endpoints?: unknown };
  const list = s.endpoints;
  if (!Array.isArray(list)) return;
  const packed = packEndpoints(list as unknown[]);
  if (packed !== undefined) {
    s.endpoints = packed;
    return;
  }
  for (const e of list as unknown[]) {
    if (e !== null && typeof e === 'object' && !Object.isFrozen(e) && 'conditions' in e) e.conditions = sharedConditions(e.conditions);
  }
}

/**
 * Each stored object's JSON text, from trim() until the build worker is sent it (wireText): the text the stored object
 * was parsed from, so a first sync stringifies each object once.
 */
const texts = new WeakMap<object, string>();

/**
 * Objects made by compact() or compactText(): trimmed already and as JSON.parse builds them, so trim() freezes them as
 * they are. Apart from their text, which can be forgotten before they reach the store (a first read's objects sent
 * ahead to the build worker): kept until then, the texts of a 10,000-Ingress folder were 18 MB that every collection
 * of the read copied (docs/adr/0066).
 */
const madeCompact = new WeakSet<object>();

/** `obj`'s JSON text while the store has not sent it, without taking it (trim() still finds it). */
export function peekWireText(obj: object): string | undefined {
  return texts.get(obj);
}

/** `obj`'s JSON text forgotten: its receiver holds it already (snapshot-wire.ts preload). */
export function forgetWireText(obj: object): void {
  texts.delete(obj);
}

/** The JSON text `obj` crosses to a worker as (snapshot-wire.ts), forgotten once taken. */
export function wireText(obj: object): string {
  const text = texts.get(obj);
  if (text === undefined) return JSON.stringify(obj);
  texts.delete(obj);
  return text;
}

/**
 * A fresh copy of `obj` as JSON.parse builds it: at 10,000 Ingresses the trimmed copies (spread, fromEntries) took
 * 42 MiB of heap, their JSON.parse 32 MiB (docs/adr/0044). Store objects are JSON data (the API's, or a manifest's).
 */
function compact<T extends object>(obj: T, kind: Kind | undefined): T {
  const text = JSON.stringify(obj);
  const parsed = JSON.parse(text) as T; // the JSON of a T is a T
  if (kind === 'EndpointSlice') packSlice(parsed);
  texts.set(parsed, text);
  madeCompact.add(parsed);
  return parsed;
}

/**
 * Drops what the model never reads (managedFields, last-applied annotation, ownerReferences; an EndpointSlice's
 * per-endpoint targetRef, nodeName, zone, hints) and freezes the copy; `compacted`: re-made by JSON (compact above).
 */
export function trim<T extends KubeObject>(obj: T, kind?: Kind, compacted: boolean | 'one-shot' = true): T {
  if (compacted === 'one-shot') return trimOneShot(obj, kind);
  // made by compactText (or compact): already trimmed and as JSON.parse builds it
  if (compacted && madeCompact.has(obj)) return deepFreeze(obj);
  const trimmed = trimmedCopy(obj, kind);
  return deepFreeze(compacted ? compact(trimmed, kind) : trimmed);
}

/** A copy of `obj` without what trim() drops, not frozen. */
function trimmedCopy<T extends KubeObject>(obj: T, kind: Kind | undefined): T {
  // Copies made without `delete`: a deleted property turns a V8 object into a dictionary, and every object of a real
  // cluster has managedFields, so each stored metadata (and annotations) was one (docs/adr/0034).
  const kept = omit(obj.metadata ?? {}, DROPPED_METADATA);
  const meta = kept.annotations?.[LAST_APPLIED] === undefined ? kept : { ...kept, annotations: omit(kept.annotations, [LAST_APPLIED]) };
  const copy = { ...obj, metadata: meta };
  // The copy has obj's type with fewer optional fields filled: the cast keeps T for the caller.
  return kind === 'EndpointSlice' ? (trimSlice(copy) as unknown as T) : copy;
}

/** True when `slice`'s endpoints carry nothing but what ENDPOINT_FIELDS keeps. */
function sliceIsTrim(slice: object): boolean {
  const list: unknown = (slice as { endpoints?: unknown }).endpoints;
  if (!Array.isArray(list)) return true;
  for (const e of list as unknown[]) {
    if (e === null || typeof e !== 'object') continue;
    for (const k in e) if (k !== 'addresses' && k !== 'conditions') return false;
  }
  return true;
}

/** True when trim() would drop nothing of `obj`: no managedFields, ownerReferences, last-applied annotation or endpoint extras. */
export function nothingToDrop(obj: KubeObject, kind: Kind | undefined): boolean {
  const meta = obj.metadata;
  const drops = meta !== undefined && (meta.managedFields !== undefined || meta.ownerReferences !== undefined || meta.annotations?.[LAST_APPLIED] !== undefined);
  return !drops && (kind !== 'EndpointSlice' || sliceIsTrim(obj));
}

/**
 * The object `text` (the JSON of an object with nothingToDrop) holds, as the store keeps it: what compact() would make
 * of that object, made from a text the caller had already (the manifest source's content stamp), so a first read
 * stringifies each object once, not twice (docs/adr/0057).
 */
export function compactText(text: string, kind: Kind): KubeObject {
  const parsed = parseStored(text, kind);
  texts.set(parsed, text);
  madeCompact.add(parsed); // and trim() stores it as it is (frozen), without another stringify and parse
  return parsed;
}

/**
 * The object `text` holds, as the store keeps it, when the build worker already holds it (split-read.ts): compactText()
 * without the text kept for the wire, which the worker does not need.
 */
export function compactReceived(text: string): KubeObject {
  const parsed = parseStored(text);
  madeCompact.add(parsed);
  return parsed;
}

/**
 * A stored object's JSON parsed as the store and the build worker hold it: an EndpointSlice's endpoints packed. Its
 * kind is `kind`, else the one the object says (a manifest's always does).
 */
export function parseStored(text: string, kind?: Kind): KubeObject {
  const parsed = JSON.parse(text) as KubeObject; // the JSON of a stored object is one
  if (parsed !== null && typeof parsed === 'object' && (kind ?? parsed.kind) === 'EndpointSlice') packSlice(parsed);
  return parsed;
}

/**
 * trim() for a store read once and built once (`portico render`): an object that carries nothing to drop (a manifest
 * just parsed, not shared with anything that lives on) is stored as it is, not copied and not frozen. Copying and
 * freezing each of 31,000 objects were 0.19 s of a 10,000-Ingress render, most of it collecting the copies.
 */
function trimOneShot<T extends KubeObject>(obj: T, kind: Kind | undefined): T {
  return nothingToDrop(obj, kind) ? obj : trimmedCopy(obj, kind);
}
