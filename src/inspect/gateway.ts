// /debug/gateway and `portico gateway`: the Gateway API status Portico computes (the leader writes exactly this), so
// local mode, which writes no status, shows it too. Pure: snapshot and flags in, document and tables out.
import type { Snapshot } from '../model/input.js';
import { byName } from '../model/lookup.js';
import type { Condition, ParentReference } from '../model/gateway/api.js';
import { desiredGatewayStatus, gatewayAddresses, type GatewayStatus } from '../status/gateway.js';
import { statusAddresses } from '../status/address.js';
import { table } from './tables.js';
import { refKey } from '../model/keys.js';
import type { L4Flags } from '../model/gateway/l4.js';
import type { ListenerPortPolicy } from '../model/gateway/listener-ports.js';
import type { ListenerSetStatus } from '../status/listenerset.js';

export interface GatewayDoc {
  readonly controllerName: string;
  /** Where status.addresses come from, or why they are not shown. */
  readonly addressSource: string;
  readonly gatewayClasses: readonly { readonly name: string; readonly conditions: readonly Condition[] }[];
  readonly gateways: readonly ({ readonly namespace: string; readonly name: string } & GatewayStatus)[];
  readonly httpRoutes: readonly RouteDoc[];
  readonly grpcRoutes: readonly RouteDoc[];
  /** BackendTLSPolicies with their ancestor Gateways (as `parents`: ancestorRef in `parentRef`). */
  readonly backendTLSPolicies?: readonly RouteDoc[];
  readonly tlsRoutes: readonly RouteDoc[];
  /** TCPRoutes and UDPRoutes (docs/adr/0023); absent in documents of older versions. */
  readonly tcpRoutes?: readonly RouteDoc[];
  readonly udpRoutes?: readonly RouteDoc[];
  /** ListenerSets naming Portico's Gateways (status/listenerset.ts); absent in documents of older versions. */
  readonly listenerSets?: readonly ({ readonly namespace: string; readonly name: string } & ListenerSetStatus)[];
}

/** One route of the document: its parents of Portico's Gateways, each with its conditions. */
export interface RouteDoc {
  readonly namespace: string;
  readonly name: string;
  readonly parents: readonly { readonly parentRef: ParentReference; readonly conditions: readonly Condition[] }[];
}

export interface AddressFlags {
  /** --publish-status-address. */
  readonly publishStatusAddress: readonly string[];
  /** --publish-service. */
  readonly publishService: { readonly namespace: string; readonly name: string } | undefined;
  /** --gateway-static-addresses (absent: none). */
  readonly gatewayStaticAddresses?: readonly string[];
}

/** The addresses as the leader computes them, from what this process holds: the flag, or the --publish-service Service in the store. */
function addressesOf(snapshot: Snapshot, flags: AddressFlags): [ReturnType<typeof statusAddresses>, string] {
  if (flags.publishStatusAddress.length > 0) {
    return [
      statusAddresses({ publishStatusAddress: flags.publishStatusAddress, publishServiceSet: false, publishService: undefined, pods: [], nodes: [], useInternalIp: false }),
      '--publish-status-address',
    ];
  }
  const ref = flags.publishService;
  if (ref) {
    const svc = byName(snapshot.services, ref.namespace, ref.name);
    return [
      statusAddresses({ publishStatusAddress: [], publishServiceSet: true, publishService: svc, pods: [], nodes: [], useInternalIp: false }),
      svc ? `--publish-service ${ref.namespace}/${ref.name}` : `--publish-service ${ref.namespace}/${ref.name} (not found: addresses left as they are)`,
    ];
  }
  return [undefined, "the nodes of the controller's pods, read by the leader only (or give --publish-status-address)"];
}

const byKey = <T extends { namespace: string; name: string }>(a: T, b: T): number => {
  const x = refKey(a.namespace, a.name);
  const y = refKey(b.namespace, b.name);
  return x < y ? -1 : x > y ? 1 : 0;
};

/** The document /debug/gateway answers: classes, Gateways and routes sorted by name, each with the status Portico gives it. */
export function gatewayDoc(snapshot: Snapshot, controllerName: string, flags: AddressFlags, l4?: L4Flags, ports?: ListenerPortPolicy): GatewayDoc {
  const [addresses, addressSource] = addressesOf(snapshot, flags);
  const desired = desiredGatewayStatus(snapshot, controllerName, gatewayAddresses(addresses), undefined, {
    ...(l4 ? { l4Flags: l4 } : {}),
    ...(ports ? { ports } : {}),
    staticAddresses: flags.gatewayStaticAddresses ?? [],
  });
  const split = (key: string): { namespace: string; name: string } => {
    const i = key.indexOf('/');
    return { namespace: key.slice(0, i), name: key.slice(i + 1) };
  };
  const routes = (m: typeof desired.routes): RouteDoc[] =>
    [...m]
      .filter(([, parents]) => parents.length > 0)
      .map(([key, parents]) => ({ ...split(key), parents: parents.map((p) => ({ parentRef: p.parentRef, conditions: p.conditions })) }))
      .sort(byKey);
  return {
    controllerName,
    addressSource,
    gatewayClasses: [...desired.classes].map(([name, conditions]) => ({ name, conditions })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    gateways: [...desired.gateways].map(([key, s]) => ({ ...split(key), ...s })).sort(byKey),
    httpRoutes: routes(desired.routes),
    grpcRoutes: routes(desired.grpcRoutes),
    backendTLSPolicies: routes(
      new Map([...desired.backendTlsPolicies].map(([k, list]) => [k, list.map((a) => ({ parentRef: a.ancestorRef, controllerName: a.controllerName, conditions: a.conditions }))])),
    ),
    tlsRoutes: routes(desired.tlsRoutes),
    tcpRoutes: routes(desired.tcpRoutes ?? new Map()),
    udpRoutes: routes(desired.udpRoutes ?? new Map()),
    // absent when no ListenerSet names a Gateway of Portico's, so documents without them keep their shape
    ...(desired.listenerSets?.size ? { listenerSets: [...desired.listenerSets].map(([key, s]) => ({ ...split(key), ...s })).sort(byKey) } : {}),
  };
}

/** `Type=Reason` for a True condition, `Type!=Reason` for a False one: the state at a glance. */
const conds = (cs: readonly Condition[]): string => cs.map((c) => `${c.type}${c.status === 'True' ? '=' : c.status === 'False' ? '!=' : '?='}${c.reason}`).join(' ');

const parentName = (p: ParentReference, routeNs: string): string =>
  `${p.namespace ?? routeNs}/${p.name}${p.sectionName !== undefined ? `/${p.sectionName}` : ''}${p.port !== undefined ? `:${p.port}` : ''}`;

/** Three tables: Gateways, their listeners, and the routes' parents; the messages of every False condition below. */
export function gatewayTables(doc: GatewayDoc): string {
  const gateways = table(
    ['GATEWAY', 'ADDRESSES', 'CONDITIONS'],
    doc.gateways.map((g) => [refKey(g.namespace, g.name), g.addresses === undefined ? '(unknown)' : g.addresses.map((a) => a.value).join(','), conds(g.conditions)]),
  );
  const listeners = table(
    ['GATEWAY', 'LISTENER', 'KINDS', 'ROUTES', 'CONDITIONS'],
    doc.gateways.flatMap((g) => g.listeners.map((l) => [refKey(g.namespace, g.name), l.name, l.supportedKinds.map((k) => k.kind).join(','), String(l.attachedRoutes), conds(l.conditions)])),
  );
  const routeTable = (head: string, list: readonly RouteDoc[]): string =>
    table(
      [head, 'PARENT', 'CONDITIONS'],
      list.flatMap((r) => r.parents.map((p) => [refKey(r.namespace, r.name), parentName(p.parentRef, r.namespace), conds(p.conditions)])),
    );
  const routes = routeTable('HTTPROUTE', doc.httpRoutes);
  // GRPCRoutes get their table only where there are some: a Gateway API of HTTPRoutes alone reads as before.
  const grpc = (doc.grpcRoutes ?? []).length > 0 ? ['', routeTable('GRPCROUTE', doc.grpcRoutes)] : [];
  const policies = (doc.backendTLSPolicies ?? []).length > 0 ? ['', routeTable('BACKENDTLSPOLICY', doc.backendTLSPolicies ?? [])] : [];
  const tls = (doc.tlsRoutes ?? []).length > 0 ? ['', routeTable('TLSROUTE', doc.tlsRoutes)] : [];
  const l4 = [['TCPROUTE', doc.tcpRoutes ?? []] as const, ['UDPROUTE', doc.udpRoutes ?? []] as const].flatMap(([head, list]) => (list.length > 0 ? ['', routeTable(head, list)] : []));
  const parentsWhy = (kind: string, list: readonly RouteDoc[]): (readonly [string, Condition])[] =>
    list.flatMap((r) => r.parents.flatMap((p) => p.conditions.map((c) => [`${kind} ${r.namespace}/${r.name} → ${parentName(p.parentRef, r.namespace)}`, c] as const)));
  const why = [
    ...doc.gateways.flatMap((g) => [
      ...g.conditions.map((c) => [`Gateway ${g.namespace}/${g.name}`, c] as const),
      ...g.listeners.flatMap((l) => l.conditions.map((c) => [`Gateway ${g.namespace}/${g.name} listener ${l.name}`, c] as const)),
    ]),
    ...parentsWhy('HTTPRoute', doc.httpRoutes),
    ...parentsWhy('GRPCRoute', doc.grpcRoutes ?? []),
    ...parentsWhy('BackendTLSPolicy', doc.backendTLSPolicies ?? []),
    ...parentsWhy('TLSRoute', doc.tlsRoutes ?? []),
    ...parentsWhy('TCPRoute', doc.tcpRoutes ?? []),
    ...parentsWhy('UDPRoute', doc.udpRoutes ?? []),
  ]
    .filter(([, c]) => (c.type === 'Conflicted' ? c.status === 'True' : c.status !== 'True'))
    .map(([where, c]) => `${where}: ${c.type} ${c.reason}: ${c.message}`);
  return [
    `controller: ${doc.controllerName}   classes: ${doc.gatewayClasses.map((c) => c.name).join(', ') || 'none'}   addresses from: ${doc.addressSource}`,
    '',
    gateways,
    '',
    listeners,
    '',
    routes,
    ...grpc,
    ...policies,
    ...tls,
    ...l4,
    '',
    `NOT READY (${why.length})`,
    why.length === 0 ? 'none' : why.join('\n'),
  ].join('\n');
}
