// BackendTLSPolicy on the locations of the route table (docs/adr/0011): nginx sets backend TLS per location, while
// Lua picks among a location's candidates per request. So every candidate of a location must reach its backend with
// the same TLS: the location's own (its nginx target's), else the first candidate's; one that differs is not served
// there (a Problem on its route), never sent with another route's TLS or in clear text.
import type { Snapshot } from '../input.js';
import { byName } from '../lookup.js';
import type { LocationSettings } from '../settings.js';
import type { AddProblem, Location, Server } from '../types.js';
import type { GRPCRoute, HTTPRoute } from './api.js';
import { BackendTlsIndex, ruleTls } from './backend-tls.js';
import type { GatewayAction, GatewayTable } from './route-types.js';
import { withClientCertificate } from './backend-client-cert.js';

/** The backend TLS part of location settings, as one comparable text ('plain': none). */
function tlsKey(s: LocationSettings | undefined): string {
  if (s === undefined || (s.backendProtocol !== 'HTTPS' && s.backendProtocol !== 'GRPCS')) return 'plain';
  const p = s.proxySsl;
  const client = p?.denied === undefined ? (p?.client?.digest ?? '') : '';
  return JSON.stringify([s.backendProtocol, s.sslVerify, s.sslVerifyDepth, s.sslName, s.sslServerName, p?.denied ?? p?.caDigest ?? '', client]);
}

/** The backend TLS a rule's policies give it (undefined: plain), from the route in the snapshot. */
function actionTls(a: GatewayAction, snap: Snapshot, index: BackendTlsIndex): LocationSettings | undefined {
  const list: readonly (HTTPRoute | GRPCRoute)[] = (a.route.kind === 'GRPCRoute' ? snap.grpcRoutes : snap.httpRoutes) ?? [];
  const rule = byName(list, a.route.namespace, a.route.name)?.spec?.rules?.[a.rule];
  return withClientCertificate(ruleTls(index, a.route.namespace, rule?.backendRefs ?? [], a.grpc === true), snap, a.route).settings;
}

/**
 * The servers and table with backend TLS settled per location: candidates whose TLS differs from the location's are
 * dropped with a Problem; a 404 location whose candidates have TLS proxies with it. Unchanged without policies.
 */
export function settleBackendTls(servers: readonly Server[], table: GatewayTable | undefined, snap: Snapshot, problem: AddProblem): { servers: Server[]; table?: GatewayTable } {
  if (table === undefined || (snap.backendTLSPolicies ?? []).length === 0) return { servers: [...servers], ...(table ? { table } : {}) };
  const index = new BackendTlsIndex(snap);
  const memo = new Map<GatewayAction, LocationSettings | undefined>();
  const tlsOf = (a: GatewayAction): LocationSettings | undefined => {
    if (!memo.has(a)) memo.set(a, actionTls(a, snap, index));
    return memo.get(a);
  };
  const locations: Record<string, GatewayTable['locations'][string]> = { ...table.locations };
  const settle = (host: string, l: Location): Location => {
    const key = l.gateway;
    const list = key !== undefined ? locations[key] : undefined;
    if (key === undefined || list === undefined || list.length === 0) return l;
    const actionOf = (i: number): GatewayAction | undefined => table.actions[i];
    const first = actionOf(list[0]?.action ?? -1);
    const firstTls = first ? tlsOf(first) : undefined;
    // An Ingress's own backend TLS (proxy-ssl-*) is not a policy's: its candidates are held to plain.
    const own = l.target.kind === 'upstream' ? (l.target.ingress.kind === 'HTTPRoute' || l.target.ingress.kind === 'GRPCRoute' ? tlsKey(l.target.settings) : 'plain') : tlsKey(firstTls);
    const kept = list.filter((c) => {
      const a = actionOf(c.action);
      if (a === undefined || tlsKey(tlsOf(a)) === own) return true;
      const where = `${l.match === 'exact' ? '= ' : ''}${l.path}`;
      problem(
        a.route,
        `spec.rules[${a.rule}].backendRefs`,
        `its backend TLS (BackendTLSPolicy) differs from that of what host ${host || '(every host)'} serves at ${where}; nginx sets backend TLS per path: the match is not served there`,
        'degraded',
      );
      return false;
    });
    locations[key] = kept;
    if (l.target.kind !== 'not-found' || firstTls === undefined || first === undefined) return l;
    return { ...l, backendTls: firstTls };
  };
  const out = servers.map((s) => ({ ...s, locations: s.locations.map((l) => settle(s.host, l)) }));
  return { servers: out, table: { actions: table.actions, locations } };
}
