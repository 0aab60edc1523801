// The inspector's document: what a running Portico serves, as plain JSON for the CLI and the dashboard. Never a secret.
import type { EndpointSlice } from '../model/input.js';
import { endpointList } from '../model/packed-endpoints.js';
import type { Model, Problem, Upstream } from '../model/types.js';
import type { CanaryPolicy } from '../model/settings-traffic.js';
import { skippedProblems } from '../model/verdicts.js';
import type { SyncRecord } from '../metrics/history.js';
import { refKey } from '../model/keys.js';

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
  /** A canary's row (after its main path's): when it takes requests, e.g. `weight 10/100, header X-Canary`. */
  readonly canary?: string;
}
/** One TCP or UDP port of the stream section (tcp/udp-services-configmap). */
export interface StreamRow {
  readonly protocol: 'tcp' | 'udp';
  readonly port: number;
  readonly service: string;
  readonly source: string;
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
  /** TCP/UDP ports (tcp/udp-services-configmap); absent from instances that predate it. */
  readonly stream?: readonly StreamRow[];
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
    for (const ep of endpointList(s)) {
      const c = ep.conditions ?? {};
      const ready = c.ready ?? true;
      const state: EndpointState = c.terminating === true ? 'terminating' : ready ? 'ready' : 'not ready';
      for (const a of ep.addresses) if (!states.has(a) || state === 'ready') states.set(a, state);
    }
  }
  return states;
}

/** The endpoints of `u` in rotation (model), then the ones its slices hold out of rotation. */
function endpointRows(u: Upstream | undefined, slices: readonly EndpointSlice[]): RouteEndpoint[] {
  const states = u ? endpointStates(slices, u.service.namespace, u.service.name) : new Map<string, EndpointState>();
  const inRotation = (u?.endpoints ?? []).map((e): RouteEndpoint => ({ address: e.address, port: e.port, state: states.get(e.address) ?? 'ready', inRotation: true }));
  const shown = new Set(inRotation.map((e) => e.address));
  const out = [...states].filter(([a]) => !shown.has(a)).map(([address, state]): RouteEndpoint => ({ address, port: null, state, inRotation: false }));
  return [...inRotation, ...out];
}

const serviceOf = (u: Upstream | undefined): string => (u ? `${u.service.namespace}/${u.service.name}:${u.servicePort}` : '(missing Service: 503)');

/** When a canary takes requests, in the annotations' words. */
function canaryWhen(p: CanaryPolicy): string {
  const by = [p.header && `header ${p.header}${p.headerValue ? `=${p.headerValue}` : p.headerPattern ? ` ~ ${p.headerPattern}` : ''}`, p.cookie && `cookie ${p.cookie}`].filter((x) => x !== '');
  return [`weight ${p.weight}/${p.weightTotal}`, ...by].join(', ');
}

/**
 * hosts → paths → backends → endpoints: the ones in rotation (model) and the ones the slices hold out of it; a path's
 * canary follows it as a row of its own. `routed`: the hosts of the route table (the rendered configuration's
 * routeHosts), the others have a server block.
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
      const main: RoutePath = {
        path: l.path,
        match: l.match,
        ingress: refKey(l.target.ingress.namespace, l.target.ingress.name),
        backend: l.target.upstream,
        service: serviceOf(u),
        endpoints: endpointRows(u, slices),
      };
      const policy = l.target.canary !== undefined ? u?.canary?.[l.target.canary] : undefined;
      if (!policy) return [main];
      const c = upstreams.get(policy.backend);
      const ingress = policy.ingress ? refKey(policy.ingress.namespace, policy.ingress.name) : '';
      return [main, { ...main, ingress, backend: policy.backend, service: serviceOf(c), endpoints: endpointRows(c, slices), canary: canaryWhen(policy) }];
    }),
  }));
}

/** The TCP/UDP ports of the stream section with their endpoints. */
export function streamOf(model: Model | undefined, slices: readonly EndpointSlice[]): StreamRow[] {
  return (model?.stream?.services ?? []).map((s) => {
    const states = endpointStates(slices, s.service.namespace, s.service.name);
    return {
      protocol: s.protocol,
      port: s.port,
      service: `${s.service.namespace}/${s.service.name}:${s.servicePort}`,
      source: `${s.source.configMap}[${s.source.key}]`,
      endpoints: s.endpoints.map((e) => ({ address: e.address, port: e.port, state: states.get(e.address) ?? 'ready', inRotation: true })),
    };
  });
}

/** `default` of /debug/certs: where the certificate for hosts without their own comes from. */
export interface CertDebugDefault {
  source: string;
  subject?: string;
  issuer?: string;
  notAfter?: string;
}

/** The hosts' certificates, then the default one (host `*`), which serves every other TLS connection. */
export function certificatesOf(hosts: readonly CertDebugHost[], now: number, fallback?: CertDebugDefault): CertificateRow[] {
  const secret = fallback?.source.startsWith('Secret ') === true ? fallback.source.slice('Secret '.length) : null;
  const rows = fallback ? [...hosts, { host: '*', ingress: '', secret, subject: fallback.subject, issuer: fallback.issuer, notAfter: fallback.notAfter }] : hosts;
  return rows.map((h) => {
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

/** The Ingresses the model does not serve at all, with why (model/verdicts.ts: migrate-check's rule too). */
export function skippedOf(model: Model | undefined, problems: readonly Problem[]): WarningRow[] {
  return warningsOf(skippedProblems(model, problems));
}
