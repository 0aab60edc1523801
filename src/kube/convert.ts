// Turns what client-node hands over (class instances with Date fields, or raw watch JSON) into plain API-shaped objects.
import { KINDS, isKind, type KubeObject } from '../store/kinds.js';
import { SECRET_TYPES } from './resources.js';

const TIMESTAMPS = ['creationTimestamp', 'deletionTimestamp'] as const;

/**
 * The API writes metav1.Time as RFC 3339 in whole seconds (`2026-01-01T00:00:00Z`); a Date serialised by JSON adds
 * milliseconds. The model orders Ingresses by comparing these strings, so both paths must give the same text.
 */
export function apiTime(value: unknown): string | undefined {
  if (typeof value === 'string') return value; // already as the API wrote it
  if (!(value instanceof Date) || Number.isNaN(value.getTime())) return undefined;
  return value.toISOString().replace(/\.000Z$/, 'Z');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * A plain copy in the shape of the API's JSON (the shape manifests have), without managedFields. For kinds whose
 * typed classes rename no field (all of Portico's), a JSON round trip gives the wire names back.
 * Returns undefined for a value that is not an object with metadata.
 */
export function toPlain(kind: string, value: unknown): KubeObject | undefined {
  if (!isRecord(value) || !isRecord(value['metadata'])) return undefined;
  const times = Object.fromEntries(TIMESTAMPS.map((f) => [f, apiTime((value['metadata'] as Record<string, unknown>)[f])]));
  const json = JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  const meta: Record<string, unknown> = { ...(json['metadata'] as Record<string, unknown>) };
  delete meta['managedFields'];
  for (const field of TIMESTAMPS) if (times[field] !== undefined) meta[field] = times[field];
  const obj: Record<string, unknown> = { ...json, metadata: meta };
  // Items of a list carry no kind or apiVersion; manifests and watch events do.
  if (obj['kind'] === undefined) obj['kind'] = kind;
  if (obj['apiVersion'] === undefined && isKind(kind)) obj['apiVersion'] = KINDS[kind].apiVersion;
  if (kind === 'Secret' && !(SECRET_TYPES as readonly unknown[]).includes(obj['type'] ?? 'Opaque')) {
    // Never keep the data of Secrets Portico does not read (service-account tokens, Helm releases...).
    delete obj['data'];
    delete obj['stringData'];
  }
  return obj;
}

/** The namespace of a plain object ('' for cluster-scoped ones). */
export function namespaceOf(obj: KubeObject): string {
  return obj.metadata?.namespace ?? '';
}
