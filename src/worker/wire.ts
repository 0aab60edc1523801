// What crosses a worker thread's boundary: plain data clones itself, but a Sensitive (a class whose value is a
// private field) would arrive empty, so it travels tagged and is rebuilt on the other side.
import { Sensitive } from '../model/tls-types.js';

const TAG = '__portico_sensitive__';

type Tagged = { readonly [TAG]: string };

function isTagged(v: object): v is Tagged {
  return typeof (v as Record<string, unknown>)[TAG] === 'string';
}

/**
 * `value` with `leaf` applied to every object in it. Copy on write: only the objects on the way to a swapped leaf are
 * copied, the rest is returned as it is (a 10,000-Ingress model has a handful of Sensitive values and millions of
 * other nodes; copying them all cost a quarter of a second per sync on each side).
 */
function walk(value: unknown, leaf: (v: object) => unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const swapped = leaf(value);
  if (swapped !== value) return swapped;
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    value.forEach((v: unknown, i) => {
      const w = walk(v, leaf);
      if (w !== v) (out ??= [...(value as unknown[])])[i] = w;
    });
    return out ?? value;
  }
  if (value instanceof Map) {
    const entries = [...(value as Map<unknown, unknown>)].map(([k, v]) => [k, v, walk(v, leaf)] as const);
    return entries.some(([, v, w]) => v !== w) ? new Map(entries.map(([k, , w]) => [k, w])) : value;
  }
  if (value instanceof Set || value instanceof Date || ArrayBuffer.isView(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const [k, v] of Object.entries(value)) {
    const w = walk(v, leaf);
    if (w !== v) (out ??= { ...value })[k] = w;
  }
  return out ?? value;
}

/** A copy of `value` safe to post to another thread: every Sensitive becomes a tagged plain object. */
export function pack(value: unknown): unknown {
  return walk(value, (v) => (v instanceof Sensitive ? { [TAG]: v.reveal() } : v));
}

/** The inverse of pack(), on the receiving side. */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names what it receives
export function unpack<T>(value: unknown): T {
  return walk(value, (v) => (isTagged(v) ? new Sensitive(v[TAG]) : v)) as T;
}
