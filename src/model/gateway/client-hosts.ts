// Which hosts nginx verifies client certificates on for Gateway listeners (docs/adr/0036): nginx verifies per server
// block, that is per host, so every host an HTTPS listener with frontend validation serves (its hostname, and the
// hostnames of the routes attached through it) gets that listener's CA and mode. The catch-all (a route without
// hostnames on a listener without one) is every namespace's unknown names: it cannot be verified for one listener.
import type { Snapshot } from '../input.js';
import type { ObjectRef } from '../types.js';
import type { Attachment, ServedListener } from './attach.js';
import { judgeFrontend, validationFor, type FrontendCa } from './client-cert.js';
import { byName } from '../lookup.js';
import type { Listener } from './api.js';
import { gatewayKey, localPort, type PortOptions } from './ports.js';

/** One host whose clients are verified (or, `ca` undefined, refused over HTTPS), with the Gateway (and routes) that asked. */
export interface GatewayClientHost {
  readonly host: string;
  readonly gateway: ObjectRef;
  /** The validation's field (`spec.tls.frontend...`), for Problems. */
  readonly field: string;
  /** The CA and mode; undefined: the validation that applies has no usable CA, so HTTPS requests are refused. */
  readonly ca: FrontendCa | undefined;
  /** The routes whose hostnames gave the listener this host (they claim it too, model/hosts.ts). */
  readonly routes: readonly ObjectRef[];
}

/** A listener's validation: its CA, or `refused` when one applies without a usable CA. */
type Verification = FrontendCa | { readonly refused: string };

/**
 * The validation of every served listener that has one: an HTTPS listener's own, and for an HTTP listener on
 * --http-port, whose routes nginx also answers on --https-port (model/gateway/port-scope.ts), its Gateway's
 * validation of port 443, so that HTTPS traffic of the Gateway is never answered unverified.
 */
export function frontendCas(snapshot: Snapshot, served: readonly ServedListener[], ports: PortOptions): Map<ServedListener, Verification> {
  const out = new Map<ServedListener, Verification>();
  for (const s of served) {
    const g = byName(snapshot.gateways ?? [], s.gateway.namespace, s.gateway.name);
    const { protocol, port, name } = s.listener;
    const plain = protocol === 'HTTP' && localPort(ports, protocol, port, gatewayKey(s.gateway)) === ports.httpPort;
    const as: Listener = plain ? { name, protocol: 'HTTPS', port: 443 } : s.listener;
    const j = g ? judgeFrontend(g, s.gateway, as, snapshot) : undefined;
    if (j?.ca) out.set(s, j.ca);
    else if (j?.refused) out.set(s, { refused: validationFor(g ?? {}, 443)?.field ?? 'spec.tls.frontend' });
  }
  return out;
}

/**
 * The verified hosts, AllowValidOnly first: a host two listeners verify differently keeps the first (a stricter
 * mode before a looser one), and the TLS model says so of the others. Refused hosts come first of all.
 */
export function clientHosts(cas: ReadonlyMap<ServedListener, Verification>, attachments: readonly Attachment[]): GatewayClientHost[] {
  const out = new Map<string, { host: string; gateway: ObjectRef; field: string; ca: FrontendCa | undefined; routes: ObjectRef[] }>();
  const add = (host: string, s: ServedListener, v: Verification, route?: ObjectRef): void => {
    if (host === '') return;
    const ca = 'refused' in v ? undefined : v;
    const key = `${host} ${s.gateway.namespace}/${s.gateway.name} ${ca?.ca.caDigest ?? '-'} ${ca?.mode ?? '-'}`;
    const got = out.get(key) ?? { host, gateway: s.gateway, field: ca?.field ?? ('refused' in v ? v.refused : ''), ca, routes: [] };
    if (route) got.routes.push(route);
    out.set(key, got);
  };
  for (const [s, v] of cas) if (s.listener.hostname !== undefined) add(s.listener.hostname.toLowerCase(), s, v);
  for (const a of attachments) {
    const v = cas.get(a.listener);
    if (v) for (const h of a.hosts) add(h, a.listener, v, a.listener.listener.hostname === undefined ? a.route : undefined);
  }
  const strict = (h: GatewayClientHost): number => (h.ca === undefined ? 0 : h.ca.mode === 'AllowValidOnly' ? 1 : 2);
  return [...out.values()].sort((a, b) => strict(a) - strict(b) || (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
}

/**
 * Why a route may not serve the catch-all host through the listener of `a`: the catch-all server answers every
 * namespace's unknown names, so it cannot require a certificate for one listener.
 */
export function unverifiable(a: Attachment, cas: ReadonlyMap<ServedListener, Verification>): string | undefined {
  const v = cas.get(a.listener);
  if (!v || ('mode' in v && v.mode !== 'AllowValidOnly') || !a.hosts.includes('')) return undefined;
  return `listener ${a.listener.listener.name} of Gateway ${a.listener.gateway.namespace}/${a.listener.gateway.name} verifies client certificates over HTTPS and neither it nor the route has a hostname: the route is not served without one (docs/adr/0036)`;
}
