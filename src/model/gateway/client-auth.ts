// Gateway frontend validation into the TLS model: a verified host's server gets client-certificate auth, as an
// Ingress's auth-tls-* gives it, from the host's owner only (docs/security.md: what reaches every path of a host).
import type { TlsBuilder } from '../tls-builder.js';
import { reasonText } from '../problems.js';
import type { GatewayClientHost } from './client-hosts.js';

/** Depth of client certificate chains: the client's own certificate and one intermediate below a listed CA. */
const CLIENT_VERIFY_DEPTH = 2;

const WIDE = 'client-certificate validation (spec.tls.frontend)';

/** Client auth for one verified host, unless its owner is of another namespace or it already has some (an older claim, a stricter listener). */
export function addGatewayClientAuth(b: TlsBuilder, h: GatewayClientHost): void {
  const refusals = [h.gateway, ...h.routes].map((r) => b.hostWide(r, h.host, WIDE));
  if (refusals.every((r) => r !== undefined)) {
    b.problem(h.gateway, h.field, `${reasonText(refusals[0] ?? '')}; clients of ${h.host} are not verified by this Gateway`);
    return;
  }
  const held = b.clientAuth.get(h.host);
  const ca = h.ca;
  if (held) {
    const same = held.ingress.kind === 'Gateway' && held.ingress.namespace === h.gateway.namespace && held.ingress.name === h.gateway.name;
    if (!same || held.caDigest !== (ca?.ca.caDigest ?? '') || held.gatewayMode !== (ca?.mode ?? 'Refused')) {
      b.problem(h.gateway, h.field, `clients of ${h.host} are verified as ${held.ingress.kind} ${held.ingress.namespace}/${held.ingress.name} asks (nginx verifies once per host)`);
    }
    return;
  }
  b.clientAuth.set(h.host, {
    ingress: h.gateway,
    secret: h.gateway,
    // no usable CA: no certificate is asked for, and every HTTPS request is refused (render/client-cert.ts)
    ...(ca ? ca.ca : { caPem: '', crlPem: undefined, caDigest: '', crlDigest: undefined }),
    verify: ca === undefined || ca.mode === 'AllowValidOnly' ? 'on' : 'optional_no_ca',
    depth: CLIENT_VERIFY_DEPTH,
    errorPage: undefined,
    passCertificate: false,
    gatewayMode: ca?.mode ?? 'Refused',
  });
}
