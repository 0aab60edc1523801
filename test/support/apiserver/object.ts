// The loose object shape the double stores, and the deep-copy / deep-freeze / deep-equal helpers it needs.

/** Object metadata fields the double reads or sets; everything else passes through untouched. */
export interface ObjectMeta {
  name?: string;
  generateName?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  [field: string]: unknown;
}

/** Any Kubernetes object as JSON: apiVersion, kind, metadata, and whatever else the kind carries. */
export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
  [field: string]: unknown;
}

/** JSON values, for patches. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A deep copy through JSON: stored objects are JSON by construction. */
export function clone<T>(v: T): T {
  return JSON.parse(JSON.stringify(v)) as T;
}

/** Freeze an object and everything in it, so no caller can change what the store holds. */
export function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const child of Object.values(v)) deepFreeze(child);
  }
  return v;
}

/** A shallow copy of obj without the given keys. */
export function omit<T extends object>(obj: T, keys: readonly string[]): Partial<T> {
  const out = { ...obj } as Record<string, unknown>;
  for (const key of keys) Reflect.deleteProperty(out, key);
  return out as Partial<T>;
}

/** Structural equality of two JSON values (key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((x, i) => jsonEqual(x, b[i]));
  }
  if (!isPlainObject(a) || !isPlainObject(b)) return false;
  const ka = Object.keys(a).filter((key) => a[key] !== undefined);
  const kb = Object.keys(b).filter((key) => b[key] !== undefined);
  return ka.length === kb.length && ka.every((key) => jsonEqual(a[key], b[key]));
}

/** Parse a request body as a JSON object, or say why not. */
export function parseObject(text: string): KubeObject | string {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    return `invalid JSON: ${(e as Error).message}`;
  }
  if (!isPlainObject(v)) return 'the body must be a JSON object';
  if (v.metadata === undefined) v.metadata = {};
  if (!isPlainObject(v.metadata)) return 'metadata must be an object';
  return v as KubeObject;
}
