// Renders TLS to the backend (backend-protocol HTTPS/GRPCS, proxy-ssl-*): proxy_ssl_* or grpc_ssl_* lines of a location.
import type { LocationSettings } from '../model/settings.js';
import { ident, int, onOff, quote, word } from './escape.js';
import { caFile, crlFile } from './tls.js';

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
