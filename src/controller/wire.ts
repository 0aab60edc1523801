// What crosses a worker thread's boundary: plain data clones itself, but a Sensitive (a class whose value is a
// private field) would arrive empty, so it travels tagged and is rebuilt on the other side.
import { Sensitive } from '../model/tls-types.js';

const TAG = '__portico_sensitive__';

type Tagged = { readonly [TAG]: string };

function isTagged(v: object): v is Tagged {
  return typeof (v as Record<string, unknown>)[TAG] === 'string';
}

function walk(value: unknown, leaf: (v: object) => unknown): unknown {
  if (value === null || typeof value !== 'object') return value;
  const swapped = leaf(value);
  if (swapped !== value) return swapped;
  if (Array.isArray(value)) return value.map((v) => walk(v, leaf));
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [k, walk(v, leaf)]));
  if (value instanceof Set || value instanceof Date || ArrayBuffer.isView(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = walk(v, leaf);
  return out;
}

/** A copy of `value` safe to post to another thread: every Sensitive becomes a tagged plain object. */
export function pack(value: unknown): unknown {
  return walk(value, (v) => (v instanceof Sensitive ? { [TAG]: v.reveal() } : v));
}

/** The inverse of pack(), on the receiving side. */
export function unpack<T>(value: unknown): T { // eslint-disable-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names what it receives
  return walk(value, (v) => (isTagged(v) ? new Sensitive(v[TAG]) : v)) as T;
}
