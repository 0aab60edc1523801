// Translation: a snapshot of API objects → the model, with Kubernetes' Ingress semantics exactly.
import { byName } from './lookup.js';
import type { ModelOptions, Snapshot } from './input.js';
import { BackendIndex } from './backends.js';
import { ExternalNames } from './external-names.js';
import { classSelector } from './classes.js';
import { HostOwners } from './hosts.js';
import { attachRoutes, gatewayClaims } from './gateway/claims.js';
import { gatewayLiterals } from './gateway/shared-host.js';
import { buildServers } from './servers.js';
import type { AnnotationInput } from './settings.js';
import { buildTls } from './tls.js';
import { addCanaries, isCanary } from './canary.js';
import { addGatewayRoutes } from './gateway/translate.js';
import { settleBackendTls } from './gateway/backend-tls-table.js';
import { gatewayTable } from './gateway/table.js';
import { extraPorts, listenerPortsOf, policyOf } from './gateway/listener-ports.js';
import { DEFAULT_TLS_OPTIONS } from './tls-types.js';
import { buildStream } from './stream.js';
import { withTlsRoutes } from './stream-tls.js';
import { byUpstreamName } from './keys.js';
import { gatewayStream, l4ContextOf, withGatewayStream } from './gateway/l4-routes.js';
import type { Model, ObjectRef, Target } from './types.js';
import type { GatewayTable } from './gateway/route-types.js';
import { ingressHostsOf, misdirectTable } from './gateway/misdirected.js';
import type { ServedListener } from './gateway/attach.js';
import type { PortOptions } from './gateway/ports.js';
import { Builder, ageOrder, ingressAgeKey } from './builder.js';
import { sortByAge } from './age-sort.js';

const NO_ANNOTATIONS: AnnotationInput = { settings: new Map(), strictPaths: true };

const NOT_FOUND: Target = { kind: 'not-found' };

/** The route table with the listener ports a redirect keeps, and the extra listen sockets of Gateway listeners. */
function gatewayParts(table: GatewayTable | undefined, served: readonly ServedListener[], ports: PortOptions, ingressHosts: readonly string[]): Pick<Model, 'gateway' | 'gatewayPorts' | 'misdirect'> {
  const extra = extraPorts(served, ports);
  const misdirect = misdirectTable(served, ingressHosts, ports);
  const listenerPorts = listenerPortsOf(served, ports);
  const withPorts = table && Object.keys(listenerPorts).length > 0 ? { ...table, listenerPorts } : table;
  return { ...(withPorts ? { gateway: withPorts } : {}), ...(extra.http.length + extra.https.length > 0 ? { gatewayPorts: extra } : {}), ...(misdirect ? { misdirect } : {}) };
}

/** Builds the model. Pure: the same snapshot and options always give the same model. */
export function buildModel(snapshot: Snapshot, opts: ModelOptions, annotations: AnnotationInput = NO_ANNOTATIONS): Model {
  const external = new ExternalNames(snapshot.externalNames ?? [], opts.disableExternalNames === true, opts.targets);
  const index = new BackendIndex(snapshot.services, snapshot.endpointSlices, opts.loadBalance, opts.targets, opts.memo).useExternalNames(external);
  const ours = classSelector(snapshot.ingressClasses, opts);
  const served = sortByAge(snapshot.ingresses.filter(ours), ingressAgeKey);
  const l4 = l4ContextOf(snapshot, opts);
  const attached = opts.gateway ? attachRoutes(snapshot, opts.gateway.controllerName, l4, policyOf(opts.gateway)) : undefined;
  const owners = new HostOwners(
    served.filter((ing) => !isCanary(annotations, ing)),
    opts.strictHostOwnership === true,
    opts.gateway && attached ? gatewayClaims(snapshot, opts.gateway.controllerName, attached) : [],
  );
  const b = new Builder(index, annotations, snapshot, ageOrder(served, snapshot, opts.gateway !== undefined), owners);
  for (const ing of served) if (!isCanary(annotations, ing)) b.addIngress(ing);
  const canaries = addCanaries(
    b,
    served.filter((ing) => isCanary(annotations, ing)),
    annotations,
    opts.allowCrossNamespaceCanaries === true,
  );
  const gw = attached ? addGatewayRoutes(b, snapshot, attached, policyOf(opts.gateway).ports) : { tls: [], entries: [] };
  const gatewayTls = gw.tls;
  let fallback = b.globalDefault ?? NOT_FOUND;
  if (!b.globalDefault && opts.defaultBackendService) {
    const { namespace, name } = opts.defaultBackendService;
    const svc = byName(snapshot.services, namespace, name);
    const port = svc?.spec?.ports?.[0];
    const flagRef: ObjectRef = { kind: 'Service', namespace, name };
    const backend = { service: { name, port: port?.name ? { name: port.name } : { number: port?.port ?? 80 } } };
    fallback = b.target(flagRef, backend, '--default-backend-service') ?? NOT_FOUND;
  }
  const upstreams = [...b.upstreams.values()].sort(byUpstreamName).map((u) => {
    const s = b.upstreamSettings.get(u.name);
    const tuned = s !== undefined && (s.loadBalance !== undefined || s.hashBy !== undefined || s.affinity !== undefined);
    const c = canaries.get(u.name);
    const ep = s?.serviceUpstream === true ? index.clusterEndpoint(u) : undefined;
    const by = b.serviceUpstreamBy.get(u.name); // none: the ConfigMap's service-upstream asked
    if (typeof ep === 'string') b.problem(by ?? u.service, by ? 'metadata.annotations.service-upstream' : 'spec.clusterIP', ep, 'degraded');
    if (typeof ep === 'object') u = { ...u, endpoints: [ep], serviceUpstream: true };
    const subset = s?.hashBy !== undefined && s.hashSubset !== undefined ? { hashSubset: s.hashSubset } : {};
    const v = s ? { ...u, loadBalance: s.loadBalance ?? u.loadBalance, hashBy: s.hashBy ?? '', ...subset, affinity: s.affinity ?? null, tuned } : u;
    return c ? { ...v, canary: c } : v;
  });
  const table = gatewayTable(buildServers(b, fallback, gatewayLiterals(gw.entries)), b.rules, gw.entries, (h) => owners.ownerOf(h), {
    rankOf: (r) => b.rankOf(r),
    problem: (o, f, r, s) => {
      b.problem(o, f, r, s);
    },
  });
  // BackendTLSPolicy: one backend TLS per location, whichever route's candidate Lua picks (model/gateway/backend-tls-table.ts).
  const routed = settleBackendTls(table.servers, table.table, snapshot, (o, f, r, s) => {
    b.problem(o, f, r, s);
  });
  const servers = routed.servers;
  const tls = buildTls(
    served,
    snapshot.secrets,
    servers.map((s) => s.host),
    opts.tls ?? DEFAULT_TLS_OPTIONS,
    {
      refusal: (r, h) => owners.refusal(r, h),
      hostWide: (r, h, what) => owners.hostWide(r, h, what),
      gatewayHosts: gatewayTls,
      gatewayClientHosts: gw.clientHosts,
      settings: annotations.settings,
      ...(gw.defaultTls ? { gatewayDefault: { listener: gw.defaultTls, ownedByOthers: (ns: string) => owners.ownedByOthers(ns) } } : {}),
    },
  );
  const l4Servers = gatewayStream(snapshot, opts, l4, {
    index,
    problem: (o, f, r, sev) => {
      b.problem(o, f, r, sev);
    },
  });
  const plain = withGatewayStream(
    buildStream(
      {
        snap: snapshot,
        o: opts.stream,
        index,
        problem: (o, f, r, sev) => {
          b.problem(o, f, r, sev);
        },
      },
      served.filter((ing) => !isCanary(annotations, ing)),
      owners,
    ),
    l4Servers,
  );
  const stream = withTlsRoutes(plain, { snapshot, attached, index, owners, problem: b.problem.bind(b) }, opts);
  return {
    servers,
    upstreams,
    ingresses: b.served,
    problems: [...b.problems, ...tls.problems, ...index.refusedEndpoints(), ...external.problems()],
    tls: tls.tls,
    ...(stream ? { stream } : {}),
    ...gatewayParts(routed.table, attached?.served ?? [], policyOf(opts.gateway).ports, ingressHostsOf(b.rules)),
  };
}
