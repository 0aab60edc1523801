// Where each TLSRoute attaches: TLS Passthrough listeners that admit the kind, hostnames intersected as for HTTPRoutes.
import type { Snapshot } from '../input.js';
import type { TLSRoute } from './api.js';
import { attach, type ServedListener } from './attach.js';

/** One TLSRoute with where it attached (model/gateway/attach.ts attach) or why not. */
export interface AttachedTlsRoute {
  readonly route: TLSRoute;
  readonly kind: 'TLSRoute';
  readonly attached: ReturnType<typeof attach>;
}

export function attachTlsRoutes(snapshot: Snapshot, served: readonly ServedListener[]): AttachedTlsRoute[] {
  return (snapshot.tlsRoutes ?? []).map((route) => ({ route, kind: 'TLSRoute' as const, attached: attach(route, served, 'TLSRoute') }));
}
