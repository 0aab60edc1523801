// TCPRoute and UDPRoute (gateway.networking.k8s.io v1 in the standard channel from Gateway API v1.6) as plain API JSON:
// parentRefs and rules of weighted backendRefs, nothing else (no matches: a listener's connections all go to one route).
import type { KubeObject } from '../input.js';
import type { BackendObjectReference, ParentReference } from './api.js';

export type L4Kind = 'TCPRoute' | 'UDPRoute';

export interface L4BackendRef extends BackendObjectReference {
  readonly weight?: number;
}

export interface L4Route extends KubeObject {
  readonly metadata?: KubeObject['metadata'] & { readonly generation?: number };
  readonly spec?: { readonly parentRefs?: readonly ParentReference[]; readonly rules?: readonly { readonly name?: string; readonly backendRefs?: readonly L4BackendRef[] }[] };
  readonly status?: unknown;
}

/** The listener protocol each kind attaches to. */
export const L4_PROTOCOL: Readonly<Record<L4Kind, 'TCP' | 'UDP'>> = { TCPRoute: 'TCP', UDPRoute: 'UDP' };

/** The route kind a listener of this protocol serves, or undefined when it is not a TCP or UDP listener. */
export function l4KindOf(protocol: string): L4Kind | undefined {
  return protocol === 'TCP' ? 'TCPRoute' : protocol === 'UDP' ? 'UDPRoute' : undefined;
}
