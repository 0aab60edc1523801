// Renders TLS to the backend (backend-protocol HTTPS/GRPCS, proxy-ssl-*): proxy_ssl_* or grpc_ssl_* lines of a location.
import type { LocationSettings } from '../model/settings.js';
import { ident, int, onOff, quote, word } from './escape.js';
import { caFile, crlFile } from './tls.js';
import { sha256 } from '../hash.js';

const I = '            ';
const SYSTEM_CAS = '/etc/ssl/certs/ca-certificates.crt';

/** The work-dir file of a backend client certificate: `tls.crt` and `tls.key` in one PEM, named by its digest. */
export const proxyClientFile = (digest: string): string => `ssl/proxy-client-${ident(digest.slice(0, 32))}.pem`;

/** A location closed because its `proxy-ssl-secret` could not be read answers 503 before anything else. */
export function proxySslDenied(s: LocationSettings): string[] {
  return s.proxySsl?.denied !== undefined ? [`${I}return 503;`] : [];
}

/** The backend TLS lines of a location; none unless the backend protocol is HTTPS or GRPCS. */
export function backendTls(s: LocationSettings): string[] {
  // A denied Secret renders no TLS lines (proxy_ssl_verify without a trusted file fails nginx -t): the location is a 503.
  if ((s.backendProtocol !== 'HTTPS' && s.backendProtocol !== 'GRPCS') || s.proxySsl?.denied !== undefined) return [];
  const p = s.backendProtocol === 'HTTPS' ? 'proxy' : 'grpc';
  const protocols = s.sslProtocols?.length ? s.sslProtocols : ['TLSv1.2', 'TLSv1.3'];
  const files = s.proxySsl;
  const trusted = files ? caFile(files.caDigest) : s.sslVerify ? SYSTEM_CAS : undefined;
  return [
    // nginx's default (off) is left unsaid, so a snippet written for ingress-nginx may set it without a duplicate.
    ...(s.sslServerName !== undefined ? [`${I}${p}_ssl_server_name ${onOff(s.sslServerName)};`] : []),
    ...(s.sslName !== undefined ? [`${I}${p}_ssl_name ${quote(s.sslName)};`] : []),
    `${I}${p}_ssl_protocols ${protocols.map((x) => word(x, protocols)).join(' ')};`,
    ...(s.sslCiphers !== undefined ? [`${I}${p}_ssl_ciphers ${quote(s.sslCiphers)};`] : []),
    ...(s.sslVerify ? [`${I}${p}_ssl_verify on;`, `${I}${p}_ssl_verify_depth ${int(s.sslVerifyDepth ?? 1)};`] : []),
    ...(trusted !== undefined ? [`${I}${p}_ssl_trusted_certificate ${quote(trusted)};`] : []),
    ...(files?.crlDigest !== undefined ? [`${I}${p}_ssl_crl ${quote(crlFile(files.crlDigest))};`] : []),
    ...(files?.client ? [`${I}${p}_ssl_certificate ${quote(proxyClientFile(files.client.digest))};`, `${I}${p}_ssl_certificate_key ${quote(proxyClientFile(files.client.digest))};`] : []),
  ];
}

/**
 * The upstream{} block a location with TLS to its backend passes to. nginx pools kept-alive backend connections per
 * upstream{} block, by peer address only: through one shared block, a connection opened with one Ingress's client
 * certificate (proxy-ssl-secret) or without verification could carry another Ingress's requests to the same address,
 * with no new handshake. So each distinct set of backend TLS lines gets a block of its own (named by their digest):
 * a pooled connection is reused only by locations that would have opened it the same way.
 */
export function tlsBalancer(s: LocationSettings): string {
  return `portico_balancer_tls_${sha256(backendTls(s).join('\n')).slice(0, 16)}`;
}

/** The upstream{} blocks of the TLS balancers these rendered servers pass to, each once, in name order. */
export function tlsBalancerBlocks(texts: readonly string[], keepalive: string): string[] {
  const names = new Set<string>();
  for (const t of texts) for (const m of t.matchAll(/portico_balancer_tls_[0-9a-f]{16}/g)) names.add(m[0]);
  return [...names]
    .sort()
    .flatMap((n) => [`    upstream ${n} {`, '        server 0.0.0.1;', '        balancer_by_lua_block { require("portico.balancer").balance() }', ...(keepalive === '' ? [] : [keepalive]), '    }']);
}
