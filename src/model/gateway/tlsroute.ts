// TLSRoutes → the stream section: per served TLS listener port, each SNI hostname's route, its weighted backends and,
// on a Terminate listener, the certificate Portico terminates with (docs/adr/0022, docs/adr/0032). Port 443 goes
// through the ssl_preread front of the HTTPS port; others get their own.
import type { BackendIndex } from '../backends.js';
import type { Snapshot } from '../input.js';
import { byName } from '../lookup.js';
import { byClaimAge, HOST_CONFLICT, type HostOwners } from '../hosts.js';
import { coded } from '../problems.js';
import type { AddProblem, Endpoint, ObjectRef, Reason } from '../types.js';
import type { BackendObjectReference, TLSRoute } from './api.js';
import { refOf } from './attach.js';
import { granted } from './grants.js';
import { localPort, onSniFront, DEFAULT_PORTS, type PortOptions } from './ports.js';
import type { AttachedTlsRoute } from './tlsroute-attach.js';
import { sniName } from './tls-listener.js';
import { terminationOf, type TlsTermination } from './tls-terminate.js';

/** One backendRef of a TLSRoute, resolved: its share of connections is `weight` over the host's total. */
export interface TlsBackend {
  readonly service: ObjectRef;
  readonly servicePort: number;
  readonly weight: number;
  readonly endpoints: readonly Endpoint[];
}

/** One SNI hostname (exact or `*.` wildcard; '' = every SNI) and the route that takes it on a port. */
export interface TlsRouteHost {
  readonly host: string;
  readonly route: ObjectRef;
  readonly backends: readonly TlsBackend[];
  /** The listener is in Terminate mode: Portico terminates TLS and the backends get plain TCP (docs/adr/0032). */
  readonly terminate?: TlsTermination;
}

/** A listener port other than 443: nginx listens on `port` (localPort()) with ssl_preread; an SNI no route takes is closed. */
export interface TlsRoutePort {
  readonly port: number;
  readonly listenerPort: number;
  readonly hosts: readonly TlsRouteHost[];
}

/** `front`: hosts of TLS listeners on port 443, served through the SNI front of --https-port (unless --gateway-port-map maps 443); `ports`: the others. */
export interface TlsRoutes {
  readonly front: readonly TlsRouteHost[];
  readonly ports: readonly TlsRoutePort[];
}

export interface TlsRouteInput {
  readonly snapshot: Snapshot;
  readonly routes: readonly AttachedTlsRoute[];
  readonly index: BackendIndex;
  readonly owners: HostOwners;
  readonly problem: AddProblem;
  readonly ports?: PortOptions;
}

/**
 * On 443 a TLSRoute takes every TLS connection of its hostname, Ingress and HTTPS hosts included, so the hostname's
 * owner (its oldest Ingress or route, docs/security.md 2a) must be of the route's namespace. A Gateway listener's
 * claim does not count here: routes of other namespaces attach to it by allowedRoutes.
 */
function frontRefusal(owners: HostOwners, ref: ObjectRef, host: string): Reason | undefined {
  const first = owners.definedBy(host);
  if (first && first.kind !== 'Gateway' && first.namespace !== ref.namespace) {
    return coded(
      'HostConflict',
      `${HOST_CONFLICT}: a TLSRoute on port 443 takes every TLS connection for ${host}, whose owner is namespace ${first.namespace} (its oldest claimant is ${first.kind} ${first.namespace}/${first.name})`,
    );
  }
  return owners.refusal(ref, host);
}

/** Why a backendRef is not served (kind, port, ReferenceGrant, Service), or undefined. */
function refused(i: TlsRouteInput, ref: ObjectRef, b: BackendObjectReference): string | undefined {
  if ((b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service') return `InvalidKind: ${b.group ?? ''}/${b.kind ?? ''} is not a Service`;
  if (b.port === undefined) return 'a Service backendRef needs a port';
  const ns = b.namespace ?? ref.namespace;
  if (ns !== ref.namespace && !granted(i.snapshot.referenceGrants ?? [], { namespace: ref.namespace, kind: 'TLSRoute' }, ns, 'Service', b.name)) {
    return `RefNotPermitted: no ReferenceGrant in namespace ${ns} lets TLSRoutes of ${ref.namespace} refer to Service ${b.name}`;
  }
  if (!byName(i.snapshot.services, ns, b.name)) return `BackendNotFound: Service ${ns}/${b.name} not found`;
  return undefined;
}

/** The route's backendRefs resolved; an invalid one is a Problem naming it and gets no share. */
function backendsOf(i: TlsRouteInput, route: TLSRoute, ref: ObjectRef): TlsBackend[] {
  const out: TlsBackend[] = [];
  (route.spec?.rules ?? []).forEach((rule, r) => {
    (rule.backendRefs ?? []).forEach((b: BackendObjectReference & { readonly weight?: number }, j) => {
      const field = `spec.rules[${r}].backendRefs[${j}]`;
      const weight = b.weight ?? 1;
      if (weight === 0) return;
      const why = !Number.isInteger(weight) || weight < 0 || weight > 1_000_000 ? 'weight must be an integer 0-1000000' : refused(i, ref, b);
      const res = why === undefined ? i.index.resolve(b.namespace ?? ref.namespace, { serviceName: b.name, portNumber: b.port, portName: undefined }, field) : undefined;
      if (why !== undefined || !res?.ok) {
        i.problem(ref, field, `${why ?? (res && !res.ok ? res.reason : '')}; its share of connections is not served`, 'degraded');
        return;
      }
      if (res.upstream.endpoints.length === 0) i.problem(ref, field, `Service ${res.upstream.service.namespace}/${b.name} has no ready endpoint; its share of connections is not served`, 'degraded');
      out.push({ service: res.upstream.service, servicePort: res.upstream.servicePort, weight, endpoints: res.upstream.endpoints });
    });
  });
  return out;
}

/** Why `host` of a route is not served on a port (a bad name, no name on 443, another namespace's host, an older route), or undefined. */
function hostRefusal(
  i: TlsRouteInput,
  ref: ObjectRef,
  host: string,
  at: { readonly front: boolean; readonly holder: TlsRouteHost | undefined; readonly listenerPort: number },
): Reason | string | undefined {
  const { front, holder, listenerPort } = at;
  if (host !== '' && !sniName(host)) return `${JSON.stringify(host.slice(0, 80))} is not a DNS name or a *. wildcard of one; not served`;
  if (front && host === '') return 'a TLSRoute on port 443 needs a hostname: the HTTPS port serves every other SNI';
  const refused = front ? frontRefusal(i.owners, ref, host) : undefined;
  if (refused) return refused;
  if (holder && (holder.route.namespace !== ref.namespace || holder.route.name !== ref.name)) {
    return `${host || '(every SNI)'} on port ${listenerPort} is taken by the older TLSRoute ${holder.route.namespace}/${holder.route.name}`;
  }
  return undefined;
}

/** Every attached TLSRoute's hostnames per served port, oldest route first: an older route keeps a hostname on a port. */
export function buildTlsRoutes(i: TlsRouteInput): TlsRoutes | undefined {
  const ports = i.ports ?? DEFAULT_PORTS;
  const byPort = new Map<number, { listenerPort: number; hosts: Map<string, TlsRouteHost> }>();
  const FRONT = -1;
  const aged = i.routes.map((r) => ({ ...r, ref: refOf('TLSRoute', r.route), created: r.route.metadata?.creationTimestamp })).sort(byClaimAge);
  for (const { route, attached, ref } of aged) {
    if ('reason' in attached) {
      if (!attached.reason.startsWith('NoMatchingParent')) i.problem(ref, 'spec.parentRefs', attached.reason);
      continue;
    }
    const backends = backendsOf(i, route, ref);
    if (backends.length === 0) i.problem(ref, 'spec.rules', 'no backendRef is served: TLS connections for its hostnames are closed', 'degraded');
    for (const a of attached.via) {
      const listenerPort = a.listener.listener.port;
      const gw = `${a.listener.gateway.namespace}/${a.listener.gateway.name}`;
      // 443 is the HTTPS port's SNI front, unless --gateway-port-map gives TLS listeners on 443 (of every Gateway, or of this one) a local port of their own
      const front = onSniFront(ports, listenerPort, gw);
      const key = front ? FRONT : localPort(ports, 'TLS', listenerPort, gw);
      const slot = byPort.get(key) ?? { listenerPort, hosts: new Map<string, TlsRouteHost>() };
      byPort.set(key, slot);
      const terminate = terminationOf(a.listener, i.snapshot);
      for (const host of a.hosts) {
        const refused = hostRefusal(i, ref, host, { front: key === FRONT, holder: slot.hosts.get(host), listenerPort });
        if (refused !== undefined) {
          i.problem(ref, 'spec.hostnames', refused);
          continue;
        }
        slot.hosts.set(host, { host, route: ref, backends, ...(terminate ? { terminate } : {}) });
      }
    }
  }
  if (byPort.size === 0) return undefined;
  const sorted = (m: Map<string, TlsRouteHost>): TlsRouteHost[] => [...m.values()].sort((x, y) => x.host.localeCompare(y.host));
  return {
    front: sorted(byPort.get(FRONT)?.hosts ?? new Map<string, TlsRouteHost>()),
    ports: [...byPort]
      .filter(([k]) => k !== FRONT)
      .sort(([a], [b]) => a - b)
      .map(([port, s]) => ({ port, listenerPort: s.listenerPort, hosts: sorted(s.hosts) })),
  };
}
