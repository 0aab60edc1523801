// The TLS-terminating stream servers of TLS listeners in Terminate mode (docs/adr/0032): ssl_preread in front picks a
// host by SNI before the handshake, its connection goes to a unix socket where nginx terminates TLS with the
// listener's certificate and passes the plain bytes to the TLSRoute's backends.
import type { TlsTermination } from '../model/gateway/tls-terminate.js';
import { ident, quote } from './escape.js';
import { FALLBACK_CERT, FALLBACK_KEY } from './tls.js';

/** The work-dir file of a Terminate listener's certificate: chain and key in one PEM (mode 0600), named by its digest. */
const streamCertFile = (digest: string): string => `ssl/stream-${ident(digest.slice(0, 32))}.pem`;

/** The protocols of a terminated TLS listener: those of the HTTPS servers' default (ssl-protocols). */
const PROTOCOLS = 'TLSv1.2 TLSv1.3';

/**
 * A server on unix socket `socket` that terminates TLS and proxies to upstream `backend`. `proxyProtocol`: the front
 * of port 443 sends a PROXY line before the ClientHello (render/stream-tls.ts). An unusable certificate serves
 * Portico's default one, as an HTTPS listener does; the listener's ResolvedRefs says why.
 */
export function terminator(socket: string, t: TlsTermination, backend: string, proxyProtocol: boolean): string[] {
  const cert = t.certificate ? streamCertFile(t.certificate.digest) : FALLBACK_CERT;
  const key = t.certificate ? cert : FALLBACK_KEY;
  return [
    '    server {',
    `        listen ${quote(socket)} ssl${proxyProtocol ? ' proxy_protocol' : ''};`,
    `        ssl_certificate ${quote(cert)};`,
    `        ssl_certificate_key ${quote(key)};`,
    `        ssl_protocols ${PROTOCOLS};`,
    `        proxy_pass ${backend};`,
    '    }',
  ];
}

/** The certificate files the terminating servers read: relative path → PEM (written before `nginx -t`, src/tls/files.ts). */
export function streamCertFiles(hosts: readonly { readonly terminate?: TlsTermination }[]): Map<string, string> {
  const files = new Map<string, string>();
  for (const h of hosts) if (h.terminate?.certificate) files.set(streamCertFile(h.terminate.certificate.digest), h.terminate.certificate.pem.reveal());
  return files;
}
