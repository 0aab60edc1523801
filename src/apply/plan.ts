// The reload-or-dynamic decision: a pure function of the running state and the new one.

/** What nginx runs now, or is about to. */
export interface DataPlaneState {
  /** Hash of the rendered nginx.conf. */
  readonly confHash: string;
  /** The backends payload, serialized, or an id that changes whenever it does (the controller's: not 5 MB to compare at 10,000). */
  readonly backends: string;
  /** Digest of the certificates payload (the payload holds keys, so only its digest is kept). */
  readonly certificates: string;
  /** Digest of the client-certificate CA files nginx.conf names (they change only with a reload). */
  readonly clientFiles: string;
  /** The dynamic route table (docs/adr/0014), serialized; '' or absent without one. */
  readonly routes?: string;
  /** The Gateway API route table (docs/adr/0011), serialized; '' or absent without one. */
  readonly gateway?: string;
}

export type Plan = 'noop' | 'dynamic' | 'reload';

/** `noop` when equal; `dynamic` when only what Lua holds (backends, certificates, routes, gateway routes) changed; `reload` when nginx.conf changed. */
export function planApply(running: DataPlaneState | undefined, next: DataPlaneState): Plan {
  if (!running || running.confHash !== next.confHash) return 'reload';
  const same = running.backends === next.backends && running.certificates === next.certificates && (running.routes ?? '') === (next.routes ?? '') && (running.gateway ?? '') === (next.gateway ?? '');
  return same ? 'noop' : 'dynamic';
}

/** True when a reload is (also) caused by a change of client-certificate CA files: counted apart (docs/adr/0003). */
export function clientFilesChanged(running: DataPlaneState | undefined, next: DataPlaneState): boolean {
  return running !== undefined && running.clientFiles !== next.clientFiles;
}
