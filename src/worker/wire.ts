// What crosses a worker thread's boundary: plain data clones itself, but a Sensitive (a class whose value is a
// private field) would arrive empty, so it travels as a tagged plain object, and the packed value lists where each
// one is, so that the receiving side rebuilds those without walking the rest (a 10,000-Ingress model has a handful
// of Sensitive values and millions of other nodes: the walk was 0.2 s of the main thread's first sync, docs/adr/0047).
import { Sensitive } from '../model/tls-types.js';

const TAG = '__portico_sensitive__';

type Tagged = { readonly [TAG]: string };

/** One step down a value: a property, an array index, or the n-th entry of a Map (its key may be an object). */
type Step = string | number | { readonly entry: number };

/** A value ready to post, and the path to each Sensitive in it (now a Tagged object). */
export interface Packed {
  readonly value: unknown;
  readonly at: readonly (readonly Step[])[];
}

/**
 * `value` with every Sensitive swapped for a Tagged object, whose paths go to `at`. Copy on write: only the objects
 * on the way to a Sensitive are copied, the rest is returned as it is (copying them all cost a quarter of a second
 * per sync at 10,000 Ingresses). `path` is the way down to `value`, one stack pushed and popped (copied only for a
 * Sensitive found).
 */
function swap(value: unknown, path: Step[], at: Step[][]): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Sensitive) {
    at.push([...path]);
    return { [TAG]: value.reveal() };
  }
  if (Array.isArray(value)) {
    let out: unknown[] | undefined;
    for (let i = 0; i < value.length; i++) {
      const v: unknown = value[i];
      if (v === null || typeof v !== 'object') continue; // most of a model's values: no step taken for them
      path.push(i);
      const w = swap(v, path, at);
      path.pop();
      if (w !== v) (out ??= [...(value as unknown[])])[i] = w;
    }
    return out ?? value;
  }
  if (value instanceof Map) {
    const entries = [...(value as Map<unknown, unknown>)].map(([k, v], i) => {
      path.push({ entry: i });
      const w = swap(v, path, at);
      path.pop();
      return [k, v, w] as const;
    });
    return entries.some(([, v, w]) => v !== w) ? new Map(entries.map(([k, , w]) => [k, w])) : value;
  }
  if (value instanceof Set || value instanceof Date || ArrayBuffer.isView(value)) return value;
  let out: Record<string, unknown> | undefined;
  for (const k in value) {
    if (!Object.hasOwn(value, k)) continue;
    const v = (value as Record<string, unknown>)[k];
    if (v === null || typeof v !== 'object') continue;
    path.push(k);
    const w = swap(v, path, at);
    path.pop();
    if (w !== v) (out ??= { ...value })[k] = w;
  }
  return out ?? value;
}

/** A copy of `value` safe to post to another thread. */
export function pack(value: unknown): Packed {
  const at: Step[][] = [];
  return { value: swap(value, [], at), at };
}

function child(parent: unknown, step: Step): unknown {
  if (typeof step === 'object') return parent instanceof Map ? [...(parent as Map<unknown, unknown>).values()][step.entry] : undefined;
  return parent !== null && typeof parent === 'object' ? (parent as Record<string | number, unknown>)[step] : undefined;
}

function setChild(parent: unknown, step: Step, v: unknown): void {
  if (typeof step === 'object') {
    if (parent instanceof Map) parent.set([...(parent as Map<unknown, unknown>).keys()][step.entry], v);
  } else if (parent !== null && typeof parent === 'object') (parent as Record<string | number, unknown>)[step] = v;
}

/**
 * The inverse of pack(), on the receiving side: each listed Tagged object becomes a Sensitive again, in place. The
 * objects on those paths are pack()'s copies (or their clones), never the sender's own; nothing else is looked at, so
 * an object that merely looks Tagged (a user's annotation named like the tag) stays what it is.
 */
// eslint-disable-next-line @typescript-eslint/no-unnecessary-type-parameters -- the caller names what it receives
export function unpack<T>(packed: Packed): T {
  let value = packed.value;
  for (const path of packed.at) {
    const last = path.at(-1);
    const parent = path.slice(0, -1).reduce(child, value);
    const tagged = last === undefined ? value : child(parent, last);
    const text = (tagged as Partial<Tagged> | undefined)?.[TAG];
    if (typeof text !== 'string') continue;
    if (last === undefined) value = new Sensitive(text);
    else setChild(parent, last, new Sensitive(text));
  }
  // pack() took a T to this value
  return value as T;
}
