// Server lines of a Gateway's frontend client-certificate validation (model/gateway/client-cert.ts, docs/adr/0036),
// after render/tls.ts's ssl_client_certificate and ssl_verify_client. Stock nginx never fails a TLS handshake for a
// client certificate: it answers 400 (495 bad certificate, 496 none). The specification wants such a connection
// refused, so AllowValidOnly turns both into 444 (the connection is closed, no answer). And since nginx picks the
// certificate check by the SNI name's server but serves the request by Host, a request whose Host is not the name it
// was verified for answers 421: a certificate another host's CA accepted never reaches this host.
import type { ClientAuth } from '../model/tls-types.js';

/** The named location refused clients go to. */
const REFUSED = '@portico_client_certificate_refused';

export function gatewayClientCertLines(ca: ClientAuth): string[] {
  // A validation without a usable CA: its listener is not served, and what nginx would answer over HTTPS is refused.
  if (ca.gatewayMode === 'Refused') return ['        if ($https) { return 444; }'];
  if (ca.gatewayMode !== 'AllowValidOnly') return [];
  return [
    `        error_page 495 496 = ${REFUSED};`,
    `        location ${REFUSED} { return 444; }`,
    // plain HTTP (a Gateway's HTTP listener on the same host) has no SNI name and no client certificate to check
    '        set $portico_verified_name $host;',
    '        if ($https) { set $portico_verified_name $ssl_server_name; }',
    '        if ($portico_verified_name != $host) { return 421; }',
  ];
}
