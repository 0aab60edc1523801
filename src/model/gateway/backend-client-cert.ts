// Gateway spec.tls.backend.clientCertificateRef (GatewayBackendClientCertificate): the certificate nginx presents to
// the backends its routes reach with TLS (BackendTLSPolicy), and the Gateway's ResolvedRefs condition about that
// reference. docs/adr/0036.
import { sha256 } from '../../hash.js';
import type { Snapshot } from '../input.js';
import { byName } from '../lookup.js';
import { clip } from '../names.js';
import type { LocationSettings } from '../settings.js';
import { findSecret, readTlsSecret } from '../tls-secrets.js';
import type { Sensitive } from '../tls-types.js';
import type { ObjectRef } from '../types.js';
import { GATEWAY_GROUP, type Gateway } from './api.js';
import { granted } from './grants.js';
import { insecureFrontendCondition } from './client-cert.js';

/** A condition outcome: status, the specification's reason, a message. */
type Outcome = readonly [ok: boolean, reason: string, message: string];

/** The client certificate (tls.crt and tls.key in one PEM) as proxy-ssl-secret's (model/settings.ts ProxySsl). */
export interface BackendClientCertificate {
  readonly digest: string;
  readonly pem: Sensitive;
}

const memo = new WeakMap<Gateway, { readonly cert: BackendClientCertificate } | { readonly refused: Outcome } | undefined>();

/** The Gateway's backend client certificate, or why it is refused (the reason of its ResolvedRefs), or undefined without one. */
function backendClientCertificate(g: Gateway, snap: Pick<Snapshot, 'secrets' | 'referenceGrants'>): { readonly cert: BackendClientCertificate } | { readonly refused: Outcome } | undefined {
  if (memo.has(g)) return memo.get(g);
  const got = read(g, snap);
  memo.set(g, got);
  return got;
}

function read(g: Gateway, snap: Pick<Snapshot, 'secrets' | 'referenceGrants'>): { readonly cert: BackendClientCertificate } | { readonly refused: Outcome } | undefined {
  const ref = g.spec?.tls?.backend?.clientCertificateRef;
  if (!ref) return undefined;
  const at = 'spec.tls.backend.clientCertificateRef';
  const group = ref.group ?? '';
  const kind = ref.kind ?? 'Secret';
  if ((group !== '' && group !== 'core') || kind !== 'Secret') {
    return { refused: [false, 'InvalidClientCertificateRef', `${at}: ${clip(group)}/${clip(kind)} is not a Secret; backends get no client certificate`] };
  }
  const own = g.metadata?.namespace ?? 'default';
  const ns = ref.namespace ?? own;
  if (ns !== own && !granted(snap.referenceGrants ?? [], { namespace: own, kind: 'Gateway' }, ns, 'Secret', ref.name)) {
    return { refused: [false, 'RefNotPermitted', `${at}: no ReferenceGrant in namespace ${ns} lets Gateways of ${own} refer to Secret ${clip(ref.name)}`] };
  }
  const secret: ObjectRef = { kind: 'Secret', namespace: ns, name: ref.name };
  const r = readTlsSecret(findSecret(snap.secrets, secret), secret);
  if (!r.ok) return { refused: [false, 'InvalidClientCertificateRef', `${at}: ${r.reason}; backends get no client certificate`] };
  return { cert: { digest: sha256(r.value.pem.reveal()), pem: r.value.pem } };
}

/** The Gateway's ResolvedRefs condition when it names a backend client certificate (none otherwise). */
function backendCertificateCondition(g: Gateway, snap: Pick<Snapshot, 'secrets' | 'referenceGrants'>): Outcome | undefined {
  const r = backendClientCertificate(g, snap);
  if (r === undefined) return undefined;
  return 'cert' in r ? [true, 'ResolvedRefs', 'spec.tls.backend.clientCertificateRef resolved: backends reached with TLS get the certificate'] : r.refused;
}

/**
 * A rule's backend TLS with the client certificate of the Gateways the route names. nginx sets it per location,
 * whichever Gateway a request came through: it is presented only when every Gateway the route names presents the
 * same one (otherwise none, and a backend that requires one refuses: never another Gateway's identity). Only with a
 * CA bundle of a policy (caCertificateRefs); a policy of the system CAs gets none.
 */
export function withClientCertificate<T extends { readonly settings?: LocationSettings }>(t: T, snap: Snapshot, route: ObjectRef): T {
  const ssl = t.settings?.proxySsl;
  if (t.settings === undefined || ssl === undefined || ssl.denied !== undefined) return t;
  const found = route.kind === 'GRPCRoute' ? byName(snap.grpcRoutes ?? [], route.namespace, route.name) : byName(snap.httpRoutes ?? [], route.namespace, route.name);
  const parents = (found?.spec?.parentRefs ?? []).filter((p) => (p.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && (p.kind ?? 'Gateway') === 'Gateway');
  const certs = parents.map((p) => {
    const g = byName(snap.gateways ?? [], p.namespace ?? route.namespace, p.name);
    const r = g ? backendClientCertificate(g, snap) : undefined;
    return r !== undefined && 'cert' in r ? r.cert : undefined;
  });
  const first = certs[0];
  if (first === undefined || certs.some((c) => c?.digest !== first.digest)) return t;
  return { ...t, settings: { ...t.settings, proxySsl: { ...ssl, client: first } } };
}

/** The Gateway conditions of spec.tls: ResolvedRefs (backend client certificate), InsecureFrontendValidationMode. */
export function gatewayTlsConditions(g: Gateway, snap: Pick<Snapshot, 'secrets' | 'referenceGrants'>): (readonly [type: string, outcome: Outcome])[] {
  const refs = backendCertificateCondition(g, snap);
  const insecure = insecureFrontendCondition(g);
  return [...(refs ? [['ResolvedRefs', refs] as const] : []), ...(insecure ? [['InsecureFrontendValidationMode', insecure] as const] : [])];
}
