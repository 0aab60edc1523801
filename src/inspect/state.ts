// The inspector's document: what a running Portico serves, as plain JSON for the CLI and the dashboard. Never a secret.
import type { EndpointSlice } from '../model/input.js';
import type { Model, Problem } from '../model/types.js';
import type { SyncRecord } from '../metrics/history.js';

export type EndpointState = 'ready' | 'terminating' | 'not ready';

export interface RouteEndpoint {
  readonly address: string;
  readonly port: number | null;
  readonly state: EndpointState;
  readonly inRotation: boolean;
}
export interface RoutePath {
  readonly path: string;
  readonly match: string;
  readonly ingress: string;
  readonly backend: string;
  readonly service: string;
  readonly endpoints: readonly RouteEndpoint[];
}
export interface CertificateRow {
  readonly host: string;
  readonly ingress: string;
  readonly secret: string | null;
  readonly subject: string;
  readonly issuer: string;
  readonly notAfter: string;
  readonly daysLeft: number;
}
export interface WarningRow {
  readonly object: string;
  readonly field: string;
  readonly reason: string;
  readonly severity: string;
}
export interface TrafficRow {
  readonly namespace: string;
  readonly ingress: string;
  readonly requests: number;
  readonly errors: number;
}

export type ServedBy = 'server block' | 'route table';

export interface State {
  readonly generatedAt: string;
  readonly healthy: boolean;
  readonly stopping: boolean;
  readonly nginx: { readonly restarts: number };
  /** `servedBy`: the host's own server block in nginx.conf, or the Lua route table (docs/adr/0014; no reload on change). */
  readonly routes: readonly { readonly host: string; readonly servedBy: ServedBy; readonly paths: readonly RoutePath[] }[];
  readonly certificates: readonly CertificateRow[];
  readonly syncs: readonly SyncRecord[];
  readonly warnings: readonly WarningRow[];
  /** Ingresses (or parts of them) left out of the configuration, with the reason: dropped problems of kind Ingress. */
  readonly skipped: readonly WarningRow[];
  readonly traffic: readonly TrafficRow[];
}

/** Host rows of /debug/certs (render/tls.ts certificatesDebug); the fields used here only. */
export interface CertDebugHost {
  host: string;
  ingress: string;
  secret: string | null;
  subject?: string;
  issuer?: string;
  notAfter?: string;
}

function endpointStates(slices: readonly EndpointSlice[], namespace: string, service: string): Map<string, EndpointState> {
  const states = new Map<string, EndpointState>();
  for (const s of slices) {
    if (s.metadata?.namespace !== namespace || s.metadata.labels?.['kubernetes.io/service-name'] !== service) continue;
    for (const ep of s.endpoints) {
      const c = ep.conditions ?? {};
      const ready = c.ready ?? true;
      const state: EndpointState = c.terminating === true ? 'terminating' : ready ? 'ready' : 'not ready';
      for (const a of ep.addresses) if (!states.has(a) || state === 'ready') states.set(a, state);
    }
  }
  return states;
}

/**
 * hosts → paths → backends → endpoints: the ones in rotation (model) and the ones the slices hold out of it. `routed`:
 * the hosts of the route table (the rendered configuration's routeHosts), the others have a server block.
 */
export function routesOf(model: Model | undefined, slices: readonly EndpointSlice[], routed: ReadonlySet<string> = new Set()): State['routes'] {
  if (!model) return [];
  const upstreams = new Map(model.upstreams.map((u) => [u.name, u]));
  return model.servers.map((s) => ({
    host: s.host,
    servedBy: routed.has(s.host) ? 'route table' : 'server block',
    paths: s.locations.flatMap((l): RoutePath[] => {
      if (l.target.kind !== 'upstream') return [];
      const u = upstreams.get(l.target.upstream);
      const states = u ? endpointStates(slices, u.service.namespace, u.service.name) : new Map<string, EndpointState>();
      const inRotation = (u?.endpoints ?? []).map((e): RouteEndpoint => ({ address: e.address, port: e.port, state: states.get(e.address) ?? 'ready', inRotation: true }));
      const shown = new Set(inRotation.map((e) => e.address));
      const out = [...states].filter(([a]) => !shown.has(a)).map(([address, state]): RouteEndpoint => ({ address, port: null, state, inRotation: false }));
      return [
        {
          path: l.path,
          match: l.match,
          ingress: `${l.target.ingress.namespace}/${l.target.ingress.name}`,
          backend: l.target.upstream,
          service: u ? `${u.service.namespace}/${u.service.name}:${u.servicePort}` : '(missing Service: 503)',
          endpoints: [...inRotation, ...out],
        },
      ];
    }),
  }));
}

export function certificatesOf(hosts: readonly CertDebugHost[], now: number): CertificateRow[] {
  return hosts.map((h) => {
    const notAfter = h.notAfter ?? '';
    const ms = Date.parse(notAfter);
    return {
      host: h.host,
      ingress: h.ingress,
      secret: h.secret,
      subject: h.subject ?? '(default certificate)',
      issuer: h.issuer ?? '',
      notAfter,
      daysLeft: Number.isFinite(ms) ? Math.floor((ms - now) / 86_400_000) : NaN,
    };
  });
}

export function warningsOf(problems: readonly Problem[]): WarningRow[] {
  return problems.map((p) => ({ object: `${p.object.kind} ${p.object.namespace}/${p.object.name}`, field: p.field, reason: p.reason, severity: p.severity }));
}

export function skippedOf(problems: readonly Problem[]): WarningRow[] {
  return warningsOf(problems.filter((p) => p.object.kind === 'Ingress' && p.severity === 'dropped'));
}
