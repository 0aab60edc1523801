// The head of a large first sync: Ingresses whose translation no other Ingress can change, served before the rest of
// the cluster is translated (docs/adr/0034). The first sync then applies the head, and the next one the whole.
import type { Ingress, Snapshot } from '../model/input.js';

/** Below this many Ingresses the first sync builds everything at once: the head would save little. */
export const HEAD_MIN_INGRESSES = 2000;
/** About this many Ingresses in the head (whole namespaces, so a little more). */
export const HEAD_INGRESSES = 1000;

/** What the head may not be used with: objects that span namespaces or Ingresses in ways the head does not follow. */
export interface HeadLimits {
  /** --tcp-services-configmap / --udp-services-configmap: stream services name Services of any namespace. */
  readonly stream: boolean;
  /** --default-backend-service: its namespace's objects go with the head. */
  readonly defaultBackendNamespace: string | undefined;
}

/** Annotations (any prefix) that make an Ingress claim a host it does not list in its rules. */
const CLAIMING = ['/server-alias', '/from-to-www-redirect'];

const nsOf = (o: { readonly metadata?: { readonly namespace?: string } }): string => o.metadata?.namespace ?? 'default';

/** Every host an Ingress names in its rules and TLS sections, lower-cased; undefined when a rule has no host. */
function hostsOf(i: Ingress): string[] | undefined {
  const hosts: string[] = [];
  for (const r of i.spec?.rules ?? []) {
    if (!r.host) return undefined;
    hosts.push(r.host.toLowerCase());
  }
  for (const t of i.spec?.tls ?? []) for (const h of t.hosts ?? []) hosts.push(h.toLowerCase());
  return hosts;
}

/**
 * Whether the model gives `i` the same servers alone as with every other Ingress: it reaches no server but its own
 * (no rule without a host, no default backend), names no wildcard, claims no host by annotation (server-alias, www
 * twin), and shares no host with any other Ingress (`claims`: how many Ingresses name each host).
 */
function standsAlone(i: Ingress, claims: ReadonlyMap<string, number>): boolean {
  if (i.spec?.defaultBackend !== undefined) return false;
  const hosts = hostsOf(i);
  if (hosts === undefined || hosts.length === 0) return false;
  if (Object.keys(i.metadata?.annotations ?? {}).some((k) => CLAIMING.some((c) => k.endsWith(c)))) return false;
  return hosts.every((h) => !h.startsWith('*') && claims.get(h) === 1);
}

/**
 * The head of `snap`, or undefined when the whole should be built at once (a small cluster, Gateway API objects,
 * stream services). The head holds whole namespaces' Ingresses that stand alone, in the order namespaces first
 * appear, until HEAD_INGRESSES; the Services and EndpointSlices of those namespaces (and of the default backend's);
 * every Secret, ConfigMap and IngressClass (few, and read across namespaces: client CAs, the ConfigMap).
 */
export function startupHead(snap: Snapshot, limits: HeadLimits): Snapshot | undefined {
  if (snap.ingresses.length < HEAD_MIN_INGRESSES || limits.stream) return undefined;
  const gatewayKinds = [snap.gatewayClasses, snap.gateways, snap.httpRoutes, snap.grpcRoutes, snap.tlsRoutes, snap.tcpRoutes, snap.udpRoutes];
  if (gatewayKinds.some((l) => (l?.length ?? 0) > 0)) return undefined;
  const claims = new Map<string, number>();
  for (const i of snap.ingresses) for (const h of new Set(hostsOf(i) ?? [])) claims.set(h, (claims.get(h) ?? 0) + 1);
  const byNs = new Map<string, Ingress[]>();
  for (const i of snap.ingresses) {
    const list = byNs.get(nsOf(i));
    if (list) list.push(i);
    else byNs.set(nsOf(i), [i]);
  }
  const chosen = new Set<string>();
  const ingresses: Ingress[] = [];
  for (const [ns, list] of byNs) {
    if (ingresses.length >= HEAD_INGRESSES) break;
    const alone = list.filter((i) => standsAlone(i, claims));
    if (alone.length === 0) continue;
    chosen.add(ns);
    ingresses.push(...alone);
  }
  if (ingresses.length === 0) return undefined;
  const spaces = new Set(chosen);
  if (limits.defaultBackendNamespace !== undefined) spaces.add(limits.defaultBackendNamespace);
  const inSpaces = <T extends { readonly metadata?: { readonly namespace?: string } }>(list: readonly T[]): T[] => list.filter((o) => spaces.has(nsOf(o)));
  return Object.freeze({ ...snap, ingresses, services: inSpaces(snap.services), endpointSlices: inSpaces(snap.endpointSlices) });
}
