// HTTPRoutes and GRPCRoutes → the model: attached routes, each match an entry of the route table (model/gateway/table.ts), path-only ones also path rules beside the Ingress ones.
import { DEFAULT_PORTS, type PortOptions } from './ports.js';
import { listenSockets, portScopes } from './port-scope.js';
import type { ListenerPortPolicy } from './listener-ports.js';
import type { IngressBackend } from 'kubernetes-types/networking/v1.js';
import type { Snapshot } from '../input.js';
import type { PathRule } from '../routes.js';
import type { ObjectRef, Target } from '../types.js';
import type { BackendObjectReference, GRPCRoute, HTTPBackendRef, HTTPRoute, HTTPRouteRule, ReferenceGrant } from './api.js';
import { viewOf, type RouteView } from './route-view.js';
import { backendFilters, ruleFilters } from './filters.js';
import { byName } from '../lookup.js';
import { pathOnly, plainAction, type GatewayAction, type GatewayEntry, type WeightedBackend } from './route-types.js';
import { refOf, type Attachment, type ServedListener } from './attach.js';
import { byClaimAge } from '../hosts.js';
import type { GatewayAttachments } from './claims.js';
import { granted } from './grants.js';
import { gatewayDefaultTls, gatewayTlsHosts, type GatewayDefaultTls, type GatewayTlsHost } from './tls.js';
import { nsKey } from '../keys.js';
import { BackendTlsIndex, ruleTls } from './backend-tls.js';
import { h2cUnserved, ruleProtocol } from './app-protocol.js';
import type { AddProblem, Reason } from '../types.js';
import { isolationOf } from './isolation.js';
import { clientHosts, frontendCas, unverifiable, type GatewayClientHost } from './client-hosts.js';
import { withClientCertificate } from './backend-client-cert.js';

/** What translation writes into: the model builder's path tables (model/build.ts), its backend resolution and its Problems. */
export interface GatewaySink {
  readonly rules: Map<string, Map<string, PathRule>>;
  problem: AddProblem;
  /** A Service backend resolved in `namespace` (target policy included), or undefined with a Problem on `ref`. */
  target(ref: ObjectRef, backend: IngressBackend, field: string, up?: undefined, namespace?: string): Target | undefined;
  refusal(ref: ObjectRef, host: string): Reason | undefined;
}

export interface GatewayOptions {
  /** --gateway-controller-name. */
  readonly controllerName: string;
  /** Where each listener port is served (model/gateway/ports.ts); unset: DEFAULT_PORTS. */
  readonly ports?: PortOptions;
  /** The ports a listener may not be served on besides the traffic ports (model/gateway/listener-ports.ts); unset: the defaults. */
  readonly reserved?: Pick<ListenerPortPolicy, 'own' | 'stream'>;
}

/** Oldest first, then namespace/name: the specification's tie-break between routes. */
function byAge(a: HTTPRoute | GRPCRoute, b: HTTPRoute | GRPCRoute): number {
  const ta = a.metadata?.creationTimestamp ?? '9999';
  const tb = b.metadata?.creationTimestamp ?? '9999';
  if (ta !== tb) return ta < tb ? -1 : 1;
  const ka = nsKey(a);
  const kb = nsKey(b);
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}

/**
 * Placeholder upstream of a location whose winning rule is not one plain backend (weights, filters, a 500): Lua sets
 * the backend per request, so weight changes never change nginx.conf. Not an upstream name (those have no '.').
 */
const LUA_BACKEND = 'portico.gateway';

/** What backendRefs are checked against: the ReferenceGrants and the Services of the snapshot. */
interface Refs {
  readonly grants: readonly ReferenceGrant[];
  readonly services: Snapshot['services'];
  /** The BackendTLSPolicies of the snapshot (model/gateway/backend-tls.ts). */
  readonly backendTls: BackendTlsIndex;
  readonly snapshot: Snapshot;
}

/** One backendRef (or a mirror's) resolved to an upstream, or undefined with a Problem naming why. */
function resolve(sink: GatewaySink, ref: ObjectRef, b: BackendObjectReference, field: string, refs: Refs & { readonly then?: string }): string | undefined {
  const then = refs.then ?? 'its share of requests answers 500';
  if ((b.group ?? '') !== '' || (b.kind ?? 'Service') !== 'Service') {
    sink.problem(ref, field, `InvalidKind: ${b.group ?? ''}/${b.kind ?? ''} is not a Service; ${then}`, 'degraded');
    return undefined;
  }
  if (b.port === undefined) {
    sink.problem(ref, `${field}.port`, `a Service backendRef needs a port; ${then}`, 'degraded');
    return undefined;
  }
  const ns = b.namespace ?? ref.namespace;
  if (ns !== ref.namespace && !granted(refs.grants, { namespace: ref.namespace, kind: ref.kind }, ns, 'Service', b.name)) {
    sink.problem(ref, field, `RefNotPermitted: no ReferenceGrant in namespace ${ns} lets ${ref.kind}s of ${ref.namespace} refer to Service ${b.name}; ${then}`, 'degraded');
    return undefined;
  }
  const service = byName(refs.services, ns, b.name);
  if (!service) {
    sink.problem(ref, field, `BackendNotFound: Service ${ns}/${b.name} not found; ${then}`, 'degraded');
    return undefined;
  }
  const t = sink.target(ref, { service: { name: b.name, port: { number: b.port } } }, field, undefined, ns);
  return t?.kind === 'upstream' ? t.upstream : undefined;
}

/** The weighted backends of a rule: weight 0 dropped, an invalid backendRef kept as a share that answers 500. */
function backendsOf(
  sink: GatewaySink,
  ref: ObjectRef,
  list: readonly HTTPBackendRef[],
  field: string,
  refs: Refs & { readonly rule: { readonly prefixMatch: boolean; readonly rewrites: boolean } },
): WeightedBackend[] {
  const out: WeightedBackend[] = [];
  list.forEach((b, i) => {
    const weight = b.weight ?? 1;
    if (!Number.isInteger(weight) || weight < 0 || weight > 1_000_000) {
      sink.problem(ref, `${field}.backendRefs[${i}].weight`, 'must be an integer 0-1000000; its share answers 500', 'degraded');
      out.push({ weight: 1 });
      return;
    }
    if (weight === 0) return;
    const edits = backendFilters(b.filters ?? [], `${field}.backendRefs[${i}].filters`, refs.rule);
    if ('field' in edits && 'reason' in edits) {
      sink.problem(ref, edits.field, `${edits.reason}; its share of requests answers 500`, 'degraded');
      out.push({ weight });
      return;
    }
    const upstream = resolve(sink, ref, b, `${field}.backendRefs[${i}]`, refs);
    out.push(upstream !== undefined ? { upstream, weight, ...edits } : { weight });
  });
  return out;
}

/** The action of one rule, or undefined (with a Problem) when the rule is not served at all. */
function actionOf(sink: GatewaySink, ref: ObjectRef, rule: HTTPRouteRule, i: number, refs: Refs): GatewayAction | undefined {
  const field = `spec.rules[${i}]`;
  const prefixOnly = (rule.matches ?? []).every((m) => (m.path?.type ?? 'PathPrefix') === 'PathPrefix');
  const f = ruleFilters(rule, field, prefixOnly);
  if ('field' in f && 'reason' in f) {
    sink.problem(ref, f.field, `${f.reason}; the rule is not served`);
    return undefined;
  }
  const { mirrors = [], ...filters } = f;
  const list = rule.backendRefs ?? [];
  const backends = filters.redirect ? [] : backendsOf(sink, ref, list, field, { ...refs, rule: { prefixMatch: prefixOnly, rewrites: filters.rewrite !== undefined } });
  if (!filters.redirect && backends.length === 0)
    sink.problem(ref, `${field}.backendRefs`, list.length === 0 ? 'no backendRefs: requests answer 500' : 'every backendRef has weight 0: requests answer 500', 'degraded');
  const resolved = mirrors.flatMap((m) => {
    const upstream = resolve(sink, ref, m.filter.requestMirror?.backendRef ?? { name: '' }, m.field, { ...refs, then: 'nothing is mirrored there' });
    return upstream !== undefined ? [{ upstream, ...(m.percent !== undefined ? { percent: m.percent } : {}) }] : [];
  });
  const [first, ...more] = resolved;
  const copies = first ? { mirror: first.upstream, ...(first.percent !== undefined ? { mirrorPercent: first.percent } : {}), ...(more.length > 0 ? { moreMirrors: more } : {}) } : {};
  return { route: ref, rule: i, backends, ...(list.length > 1 ? { weighted: true as const } : {}), ...filters, ...copies };
}

/**
 * The hosts a route reaches through HTTPS listeners only. nginx serves every host on both ports, so their matches
 * carry `scheme: https` (Lua skips them for plain HTTP) instead of Ingress's ssl-redirect: only a RequestRedirect
 * filter redirects on a Gateway listener.
 */
function httpsOnly(via: readonly Attachment[]): Set<string> {
  const out = new Set<string>();
  const plain = new Set<string>();
  for (const a of via) for (const h of a.hosts) (a.listener.listener.protocol === 'HTTPS' ? out : plain).add(h);
  for (const h of plain) out.delete(h);
  return out;
}

/** A gRPC call's backend is reached with grpc_pass over HTTP/2 cleartext (render/settings.ts), as Ingress backend-protocol GRPC. */
const GRPC_SETTINGS = Object.freeze({ backendProtocol: 'GRPC' as const });

/** The sink a GRPCRoute's Problems go through: its invalid shares answer 503 (gRPC UNAVAILABLE), not 500. */
function grpcSink(sink: GatewaySink): GatewaySink {
  const to503 = (r: string): string => r.replace(/answers? 500/g, (m) => `${m.slice(0, -3)}503 (gRPC UNAVAILABLE)`);
  return {
    rules: sink.rules,
    problem: (o, f, r, sev) => {
      sink.problem(o, f, typeof r === 'string' ? to503(r) : { ...r, text: to503(r.text) }, sev);
    },
    target: (ref, backend, field, up, namespace) => sink.target(ref, backend, field, up, namespace),
    refusal: (ref, host) => sink.refusal(ref, host),
  };
}

function addRoute(
  into: GatewaySink,
  view: RouteView,
  hosts: readonly string[],
  refs: Refs,
  at: {
    readonly rank: number;
    readonly entries: GatewayEntry[];
    readonly secure: ReadonlySet<string>;
    readonly scopes: ReadonlyMap<string, readonly number[]>;
    readonly isolated: ReadonlyMap<string, readonly string[]>;
  },
): void {
  const { rank, entries, secure, scopes, isolated } = at;
  const sink = view.kind === 'GRPCRoute' ? grpcSink(into) : into;
  const ref = refOf(view.kind, view.route);
  const settings = view.kind === 'GRPCRoute' ? { settings: GRPC_SETTINGS } : {};
  (view.route.spec?.rules ?? []).forEach((_, i) => {
    const rule = view.rule(i);
    if ('reason' in rule) {
      sink.problem(ref, rule.field, `${rule.reason}; the rule is not served`);
      return;
    }
    // An HTTPRoute rule to Service ports of appProtocol kubernetes.io/h2c passes as a GRPCRoute's does (model/gateway/app-protocol.ts).
    const protocol = view.kind === 'HTTPRoute' ? ruleProtocol(refs.services, ref.namespace, rule.backendRefs ?? []) : 'h2c';
    const made = typeof protocol === 'object' ? undefined : actionOf(sink, ref, rule, i, refs);
    const unserved = typeof protocol === 'object' ? protocol.reason : view.kind === 'HTTPRoute' && protocol === 'h2c' && made ? h2cUnserved(made) : undefined;
    if (unserved !== undefined) sink.problem(ref, `spec.rules[${i}].backendRefs`, `${unserved}; the rule is not served`);
    if (!made || unserved !== undefined) return;
    const invalidShare = made.backends.length === 0 || made.backends.some((b) => b.upstream === undefined);
    const action: GatewayAction = view.kind === 'GRPCRoute' ? { ...made, grpc: true, ...(invalidShare ? { failStatus: 503 as const } : {}) } : protocol === 'h2c' ? { ...made, grpc: true } : made;
    const upstream = plainAction(action) ? (action.backends[0]?.upstream ?? LUA_BACKEND) : LUA_BACKEND;
    // BackendTLSPolicy: the location's backend TLS, as proxy-ssl-* gives an Ingress's (render/proxy-ssl.ts).
    // spec.tls.backend.clientCertificateRef of the route's Gateways goes with it (model/gateway/backend-client-cert.ts).
    const tls = withClientCertificate(ruleTls(refs.backendTls, ref.namespace, rule.backendRefs ?? [], view.kind === 'GRPCRoute' || protocol === 'h2c'), refs.snapshot, ref);
    if (tls.problem !== undefined) sink.problem(ref, `spec.rules[${i}].backendRefs`, tls.problem, 'degraded');
    const grpcSettings = protocol === 'h2c' ? { settings: GRPC_SETTINGS } : settings;
    const target: Target = { kind: 'upstream', upstream, ingress: ref, ...(tls.settings ? { settings: { ...grpcSettings.settings, ...tls.settings } } : grpcSettings) };
    view.matches(i).forEach((checked, j) => {
      if ('reason' in checked) {
        sink.problem(ref, checked.field, `${checked.reason}; the match is not served`);
        return;
      }
      for (const host of hosts) {
        const scope = scopes.get(host);
        const except = isolated.get(host);
        const match = { ...checked, ...(secure.has(host) ? { scheme: 'https' as const } : {}), ...(scope ? { ports: scope } : {}), ...(except ? { exceptHosts: except } : {}) };
        const refused = sink.refusal(ref, host);
        if (refused) {
          sink.problem(ref, 'spec.hostnames', refused);
          continue;
        }
        const table = sink.rules.get(host) ?? new Map<string, PathRule>();
        sink.rules.set(host, table);
        entries.push({ host, match, action, order: [rank, i, j] });
        // Path-only matches are also the model's path rules: nginx's location choice is their precedence (docs/adr/0011).
        if (!pathOnly(match)) continue;
        const type = match.path.type === 'Exact' ? 'Exact' : 'Prefix';
        const key = `${type} ${match.path.value}`;
        if (!table.has(key)) table.set(key, { path: match.path.value, type, target });
      }
    });
  });
}

/**
 * Adds every HTTPRoute attached to a listener of Portico's Gateways, oldest first (an older route keeps a path it
 * shares), and returns the TLS hosts of the HTTPS listeners for model/tls.ts.
 */
export function addGatewayRoutes(
  sink: GatewaySink,
  snapshot: Snapshot,
  g: GatewayAttachments,
  ports: PortOptions = DEFAULT_PORTS,
): { tls: GatewayTlsHost[]; entries: GatewayEntry[]; defaultTls?: GatewayDefaultTls; clientHosts?: GatewayClientHost[] } {
  const { served, refused } = g;
  // TLSRoutes (g.tlsRoutes) go to the stream section: model/gateway/tlsroute.ts.
  for (const r of refused) sink.problem(r.gateway, r.field, r.reason);
  const grants = snapshot.referenceGrants ?? [];
  const backendTls = new BackendTlsIndex(snapshot);
  const attachments: Attachment[] = [];
  const entries: GatewayEntry[] = [];
  const sockets = listenSockets(served, ports);
  const cas = frontendCas(snapshot, served, ports); // client-certificate validation (model/gateway/client-hosts.ts)
  for (const [rank, { route, kind, attached: a }] of [...g.routes].sort((x, y) => byAge(x.route, y.route)).entries()) {
    if ('reason' in a) {
      if ((route.spec?.parentRefs ?? []).length > 0 && served.length > 0 && !a.reason.startsWith('NoMatchingParent')) sink.problem(refOf(kind, route), 'spec.parentRefs', a.reason);
      continue;
    }
    attachments.push(...a.via);
    const cannot = a.via.map((v) => unverifiable(v, cas)).find((x) => x !== undefined);
    if (cannot !== undefined) sink.problem(refOf(kind, route), 'spec.hostnames', cannot);
    addRoute(
      sink,
      viewOf(kind, route),
      cannot === undefined ? a.hosts : a.hosts.filter((h) => h !== ''),
      { grants, services: snapshot.services, backendTls, snapshot },
      { rank, entries, secure: httpsOnly(a.via), scopes: portScopes(a.via, ports, sockets), isolated: isolationOf(a.via, served) },
    );
  }
  const created = new Map((snapshot.gateways ?? []).map((gw) => [`${gw.metadata?.namespace ?? 'default'}/${gw.metadata?.name ?? ''}`, gw.metadata?.creationTimestamp]));
  const age = (s: ServedListener): { ref: ObjectRef; created: string | undefined } => ({ ref: s.gateway, created: created.get(`${s.gateway.namespace}/${s.gateway.name}`) });
  const oldest = [...served].sort((a, b) => byClaimAge(age(a), age(b)));
  const defaultTls = gatewayDefaultTls(oldest, grants);
  const verified = clientHosts(cas, attachments);
  return { tls: gatewayTlsHosts(served, attachments, grants), entries, ...(defaultTls ? { defaultTls } : {}), ...(verified.length > 0 ? { clientHosts: verified } : {}) };
}
