// The reload-or-dynamic decision: a pure function of the running state and the new one.

/** What nginx runs now, or is about to. */
export interface DataPlaneState {
  /** Hash of the rendered nginx.conf. */
  readonly confHash: string;
  /** The backends payload, serialized (compared as text). */
  readonly backends: string;
}

export type Plan = 'noop' | 'dynamic' | 'reload';

/** `noop` when equal; `dynamic` when only what Lua holds changed; `reload` when nginx.conf changed. */
export function planApply(running: DataPlaneState | undefined, next: DataPlaneState): Plan {
  if (!running || running.confHash !== next.confHash) return 'reload';
  return running.backends === next.backends ? 'noop' : 'dynamic';
}
