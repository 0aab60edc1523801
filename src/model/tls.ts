// TLS translation: spec.tls and the TLS annotations of the served Ingresses → certificates per host, client auth.
import type { Ingress, Secret } from './input.js';
import type { IngressSettings } from './settings.js';
import { readDhParam } from './tls-dhparam.js';
import type { TlsModel, TlsOptions, TlsServer } from './tls-types.js';
import type { ObjectRef, Problem } from './types.js';
import type { GatewayDefaultTls, GatewayTlsHost } from './gateway/tls.js';
import type { GatewayClientHost } from './gateway/client-hosts.js';
import { addGatewayClientAuth } from './gateway/client-auth.js';
import { nsKey } from './keys.js';
import { TLS_WIDE, TlsBuilder, type HostRefusal, type HostWide } from './tls-builder.js';

/**
 * The certificate of a hostname-less HTTPS listener for SNI names without one of their own; the names other
 * namespaces own (and TLS hosts served with the default certificate) keep the default (docs/security.md 2a).
 */
function listenerDefault(b: TlsBuilder, l: GatewayDefaultTls, ownedByOthers: (namespace: string) => readonly string[]): TlsModel['gatewayDefault'] {
  // An unusable Secret is the listener's ResolvedRefs condition (model/gateway/listeners.ts): names keep the default.
  const read = l.secret ? b.certificate(l.secret) : undefined;
  if (!read?.ok) return undefined;
  b.used.set(read.value.id, read.value);
  const plain = new Set(ownedByOthers(l.gateway.namespace).filter((h) => b.hosts.get(h)?.certificate === undefined));
  for (const h of b.hosts.values()) if (h.certificate === undefined) plain.add(h.host);
  return { gateway: l.gateway, certificate: read.value.id, plain: [...plain].sort() };
}

/** ssl-dh-param read from its Secret; a Secret that is missing or not DH parameters is a Warning, and no DHE. */
function dhParamOf(secrets: readonly Secret[], opts: TlsOptions, problems: Problem[]): Pick<TlsModel, 'dhParam'> {
  const at = opts.settings.dhParam?.split('/');
  if (at?.length !== 2) return {};
  const ref: ObjectRef = { kind: 'Secret', namespace: at[0] ?? '', name: at[1] ?? '' };
  const r = readDhParam(secrets, ref);
  if (r.ok) return { dhParam: { pem: r.value.pem, digest: r.value.digest } };
  problems.push({ object: ref, field: 'data[dhparam.pem]', reason: `${r.reason}; ssl-dh-param is not applied (no DHE cipher suites)`, severity: 'degraded' });
  return {};
}

const byKey =
  <T>(key: (t: T) => string) =>
  (a: T, b: T): number =>
    key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0;

/**
 * The TLS model for the served Ingresses, oldest first (the order of `byAge`), and the hosts of the model's servers.
 * Pure: certificates are parsed, never fetched; time is not read (expiry is checked by the controller).
 */
export function buildTls(
  ingresses: readonly Ingress[],
  secrets: readonly Secret[],
  serverHosts: readonly string[],
  opts: TlsOptions,
  extra: {
    readonly refusal?: HostRefusal;
    readonly hostWide?: HostWide;
    readonly gatewayHosts?: readonly GatewayTlsHost[];
    /** Hosts whose clients Gateway listeners verify (model/gateway/client-hosts.ts). */
    readonly gatewayClientHosts?: readonly GatewayClientHost[] | undefined;
    readonly settings?: ReadonlyMap<string, IngressSettings>;
    /** A hostname-less HTTPS listener's certificate, and the names owned by namespaces other than a given one (model/hosts.ts). */
    readonly gatewayDefault?: { readonly listener: GatewayDefaultTls; readonly ownedByOthers: (namespace: string) => readonly string[] };
  } = {},
): { tls: TlsModel; problems: Problem[] } {
  const { refusal, gatewayHosts = [], settings, hostWide } = extra;
  const b = new TlsBuilder(secrets, opts, refusal, hostWide);
  for (const ing of ingresses) b.addIngress(ing, settings?.get(nsKey(ing)));
  for (const g of gatewayHosts) b.addGatewayHost(g);
  for (const h of extra.gatewayClientHosts ?? []) addGatewayClientAuth(b, h);
  const defaultCertificate = b.defaultCertificate();
  const gatewayDefault = extra.gatewayDefault ? listenerDefault(b, extra.gatewayDefault.listener, extra.gatewayDefault.ownedByOthers) : undefined;
  const servers: TlsServer[] = [];
  for (const host of [...serverHosts].sort()) {
    const dot = host.indexOf('.');
    const wild = dot > 0 && !host.startsWith('*.') ? `*${host.slice(dot)}` : undefined;
    // A wildcard's certificate makes a host HTTPS (redirect, HSTS) only when the wildcard's TLS is of the host owner's namespace.
    const viaWild = wild === undefined ? undefined : b.hosts.get(wild);
    const tls = b.hosts.has(host) || (viaWild !== undefined && b.hostWide(viaWild.ingress, host, TLS_WIDE) === undefined);
    const clientAuth = b.clientAuth.get(host);
    const gateway = tls && (b.hosts.get(host) ?? viaWild)?.ingress.kind === 'Gateway';
    if (tls || clientAuth) servers.push({ host, tls, clientAuth, ...(gateway ? { gateway: true as const } : {}) });
  }
  const tls: TlsModel = {
    settings: opts.settings,
    certificates: [...b.used.values()].sort(byKey((c) => c.id)),
    hosts: [...b.hosts.values()].sort(byKey((h) => h.host)),
    defaultCertificate,
    servers,
    ingresses: Object.fromEntries(Object.entries(b.ingresses).sort(byKey(([k]) => k))),
    ...(gatewayDefault ? { gatewayDefault } : {}),
    ...dhParamOf(secrets, opts, b.problems),
  };
  return { tls, problems: b.problems };
}
