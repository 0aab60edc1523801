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
/**
 * Annotations (any prefix) under which an Ingress's host keeps a server block with dynamic routes (model/dynamic.ts,
 * render/dynamic-profiles.ts): a body size limit, snippets, regex paths, auth-url, a default backend, a mirror, client
 * certificates, ciphers, tracing. The head takes their namespaces first, so that the whole's nginx.conf is the head's
 * and the whole is a push, not a reload (docs/adr/0061). A guess from the keys alone: a wrong one costs a reload or a
 * larger head, never an answer (test/unit/startup-head.test.ts checks that each one keeps its host rendered).
 */
export const RENDERING = [
  '/proxy-body-size',
  '/configuration-snippet',
  '/server-snippet',
  '/use-regex',
  '/rewrite-target',
  '/auth-url',
  '/default-backend',
  '/mirror-target',
  '/auth-tls-secret',
  '/ssl-ciphers',
  '/enable-opentelemetry',
];

const CLAIMING_NAMES: ReadonlySet<string> = new Set(CLAIMING);
const RENDERING_NAMES: ReadonlySet<string> = new Set(RENDERING);

/** Whether `i` has an annotation whose name, from its last `/` on, is in `set` (any prefix). */
function names(i: Ingress, set: ReadonlySet<string>): boolean {
  const annotations = i.metadata?.annotations;
  if (annotations === undefined) return false;
  for (const k in annotations) if (set.has(k.slice(k.lastIndexOf('/')))) return true;
  return false;
}

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
  if (names(i, CLAIMING_NAMES)) return false;
  return hosts.every((h) => !h.startsWith('*') && claims.get(h) === 1);
}

/**
 * The namespaces in the order the head takes them, and how many it must take whatever its size: first the `must`
 * namespaces whose Ingresses keep server blocks (RENDERING), when all of them stand alone and hold no more than a
 * quarter of the cluster (else a reload after the head cannot be saved, or the head would lose its point), then the
 * others; each group in the order namespaces first appear.
 */
function headOrder(snap: Snapshot, byNs: ReadonlyMap<string, Ingress[]>, claims: ReadonlyMap<string, number>): { order: [string, Ingress[]][]; must: number } {
  const all = [...byNs];
  const firstNs = new Set<string>();
  for (const i of snap.ingresses) {
    const rendering = names(i, RENDERING_NAMES);
    // one that keeps a server block (an alias or www twin always does) and cannot be in the head: the whole reloads
    if ((rendering || names(i, CLAIMING_NAMES)) && !standsAlone(i, claims)) return { order: all, must: 0 };
    if (rendering) firstNs.add(nsOf(i));
  }
  const first = all.filter(([ns]) => firstNs.has(ns));
  const size = first.reduce((n, [, list]) => n + list.length, 0);
  if (first.length === 0 || size > Math.max(HEAD_INGRESSES, snap.ingresses.length / 4)) return { order: all, must: 0 };
  return { order: [...first, ...all.filter(([ns]) => !firstNs.has(ns))], must: first.length };
}

/**
 * The head of `snap`, or undefined when the whole should be built at once (a small cluster, Gateway API objects,
 * stream services). The head holds whole namespaces' Ingresses that stand alone, in headOrder's order (the namespaces
 * of Ingresses that keep server blocks, then the others, each in the order they first appear), until HEAD_INGRESSES;
 * the Services and EndpointSlices of those namespaces (and of the default backend's); every Secret, ConfigMap and
 * IngressClass (few, and read across namespaces: client CAs, the ConfigMap).
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
  const { order, must } = headOrder(snap, byNs, claims);
  const chosen = new Set<string>();
  const ingresses: Ingress[] = [];
  for (const [k, [ns, list]] of order.entries()) {
    if (k >= must && ingresses.length >= HEAD_INGRESSES) break;
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
