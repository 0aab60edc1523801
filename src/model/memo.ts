// Work kept between builds: owned by the caller (the build worker, the controller) and passed in through
// ModelOptions, so model functions stay pure (the same input gives the same model with or without a memo). Keys are
// the store's frozen objects: an object that changes is a new object, so an entry never goes stale.
import type { Endpoint, Problem } from './types.js';

/** One EndpointSlice's endpoints for one Service port name, and the target policy's refusals among them. */
export interface SliceEndpoints {
  readonly ready: readonly Endpoint[];
  readonly terminating: readonly Endpoint[];
  /** Refused endpoints: the key that dedupes their Problem, and the Problem. */
  readonly refused: readonly (readonly [string, Problem])[];
  /** What a Service with this slice alone serves: ready, else terminating, deduplicated and sorted. */
  readonly chosen: readonly Endpoint[];
}

/** One slice's endpoints for the one `service|port name` it was read for (nearly always the only one). */
export interface SliceEntry {
  readonly key: string;
  readonly value: SliceEndpoints;
}

export interface ModelMemo {
  /**
   * By EndpointSlice: its endpoints for the `service|port name` it was read for, or a map by that key when it was read
   * for more. A map and a key naming the target policy for each of 100,000 slices were about 30 MiB of the build
   * worker's heap (docs/adr/0060): the policy is the memo's own, and a read under another empties it.
   */
  slices: WeakMap<object, SliceEntry | Map<string, SliceEndpoints>>;
  /** The target policy (its JSON) the entries were read under; absent until the first read. */
  policy?: string;
}

export function modelMemo(): ModelMemo {
  return { slices: new WeakMap() };
}
