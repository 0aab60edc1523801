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

export interface ModelMemo {
  /** By EndpointSlice, then by `service|port name|policy`. */
  readonly slices: WeakMap<object, Map<string, SliceEndpoints>>;
}

export function modelMemo(): ModelMemo {
  return { slices: new WeakMap() };
}
