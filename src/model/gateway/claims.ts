// Gateway API claims on host names for host ownership (model/hosts.ts): served listeners' hostnames and attached HTTPRoutes' hostnames.
import type { Snapshot } from '../input.js';
import type { HostClaim } from '../hosts.js';
import type { ObjectRef } from '../types.js';
import { attach, ourGateways, refOf, servedListeners } from './attach.js';

/**
 * Each served listener with a hostname claims it at its Gateway's age; each HTTPRoute attached to a served listener
 * claims the hostnames it serves there at its own age. A listener or route without hostnames claims no name.
 */
export function gatewayClaims(snapshot: Snapshot, controllerName: string): HostClaim[] {
  const { served } = servedListeners(snapshot, controllerName);
  const created = new Map(ourGateways(snapshot, controllerName).map((g) => [`${g.metadata?.namespace ?? 'default'}/${g.metadata?.name ?? ''}`, g.metadata?.creationTimestamp]));
  const ageOf = (g: ObjectRef): string | undefined => created.get(`${g.namespace}/${g.name}`);
  const out: HostClaim[] = [];
  for (const s of served) {
    const host = s.listener.hostname?.toLowerCase();
    if (host) out.push({ ref: s.gateway, created: ageOf(s.gateway), hosts: [host] });
  }
  for (const route of snapshot.httpRoutes ?? []) {
    const a = attach(route, served);
    if ('reason' in a) continue;
    out.push({ ref: refOf('HTTPRoute', route), created: route.metadata?.creationTimestamp, hosts: a.hosts.filter((h) => h !== '') });
  }
  return out;
}
