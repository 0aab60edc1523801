// ConfigMap keys of the HTTPS redirect and TLS sessions, and proxy-add-original-uri-header (model/settings-tls.ts).
import type { KeySpec } from './configmap.js';
import { key } from './configmap-key.js';
import * as v from './values.js';
import { Sensitive } from '../model/tls-types.js';
import { sizeBytes } from '../model/size.js';

/** Comma-separated path prefixes, as ingress-nginx splits them (empty items skipped). */
const prefixes: v.Parser<string[]> = (raw) =>
  v.list(
    v.uriPath,
    /\s*,\s*/,
    64,
  )(
    raw
      .split(',')
      .map((p) => p.trim())
      .filter(Boolean)
      .join(','),
  );

/** ssl-session-ticket-key: base64 of exactly 48 or 80 bytes, as ingress-nginx checks it (nginx takes no other length). */
const ticketKey: v.Parser<Sensitive> = (raw) => {
  const ok = /^[A-Za-z0-9+/]+={0,2}$/.test(raw) && raw.length % 4 === 0;
  const n = ok ? Buffer.from(raw, 'base64').length : 0;
  return n === 48 || n === 80 ? v.ok(new Sensitive(raw)) : v.bad(`not base64 of 48 or 80 bytes (${ok ? `${n} bytes` : 'not base64'}; the value is not shown)`);
};

const dhRef: v.Parser<string> = (raw) => {
  const r = v.objectRef(raw);
  return r.ok && r.value[0] !== '' ? v.ok(r.value.join('/')) : v.bad(`${v.show(raw)} is not namespace/name of a Secret`);
};

/** A shared cache size nginx accepts: at least 64k (nginx refuses smaller zones), at most 1g. */
const cacheSize: v.Parser<string> = (raw) => {
  const r = v.bufferSize(raw);
  const bytes = r.ok ? (sizeBytes(r.value) ?? 0) : 0;
  return r.ok && bytes >= 65536 ? r : v.bad(`${v.show(raw)} is not a cache size (64k to 1g, e.g. 10m)`);
};
const time: v.Parser<string> = (raw) => (/^\d{1,6}(s|m|h|d)?$/.test(raw) && !/^0+[smhd]?$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not an nginx time above 0 (e.g. 10m or 600s)`));

/** The keys, spliced into CONFIGMAP_KEYS. */
export const TLS_CONFIGMAP_KEYS: readonly KeySpec[] = [
  key(
    'no-tls-redirect-locations',
    'noTlsRedirectLocations',
    '/.well-known/acme-challenge',
    "Ingress paths (comma-separated prefixes) never redirected to HTTPS, so ACME HTTP-01 challenges (cert-manager's solver Ingresses) are answered over HTTP. As in ingress-nginx, the Ingress path is compared, not the request.",
    prefixes,
  ),
  {
    ...key(
      'no-auth-locations',
      'noAuthLocations',
      '/.well-known/acme-challenge',
      'Ingress paths (comma-separated prefixes) served without basic or external auth (global-auth-url and the auth annotations), so ACME HTTP-01 challenges pass; access lists still apply. As in ingress-nginx, the Ingress path is compared, not the request; an empty value means no path.',
      prefixes,
    ),
    emptyIsValue: true,
  },
  key(
    'proxy-add-original-uri-header',
    'proxyAddOriginalUriHeader',
    'false',
    "Sends X-Original-URI (the request URI as the client sent it) to backends. Off by default, as in ingress-nginx's final release; custom error pages always get it.",
    v.bool,
  ),
  key('ssl-session-cache', 'sslSessionCache', 'true', 'A shared TLS session cache, so returning clients resume without a full handshake.', v.bool),
  key('ssl-session-cache-size', 'sslSessionCacheSize', '10m', 'Size of the shared TLS session cache (about 4,000 sessions per megabyte).', cacheSize),
  key('ssl-session-timeout', 'sslSessionTimeout', '10m', 'How long a cached TLS session may be resumed (nginx time).', time),
  key(
    'ssl-session-tickets',
    'sslSessionTickets',
    'false',
    "TLS session tickets; without ssl-session-ticket-key their keys are nginx's own, new at every reload and not shared between replicas.",
    v.bool,
  ),
  key(
    'ssl-session-ticket-key',
    'sslSessionTicketKey',
    '',
    "The key of TLS session tickets: base64 of 48 or 80 random bytes (`openssl rand 80 | openssl enc -A -base64`), so tickets survive reloads (nginx makes new keys at each otherwise). Not across replicas: nginx's session context includes the default server's static fallback certificate, and each replica's is its own. Written to a 0600 file in the work dir; never logged.",
    ticketKey,
  ),
  key(
    'ssl-dh-param',
    'sslDhParam',
    '',
    'Secret (`namespace/name`) whose `dhparam.pem` (openssl dhparam 2048) enables the DHE cipher suites of ssl-ciphers; checked (one DH PARAMETERS block, a 2048-8192-bit prime), else a Warning on the Secret.',
    dhRef,
  ),
  key('ssl-buffer-size', 'sslBufferSize', '4k', 'Size of the TLS records nginx sends (smaller: faster first byte; larger: less overhead).', v.bufferSize),
  key(
    'ssl-reject-handshake',
    'sslRejectHandshake',
    'false',
    'The catch-all server refuses TLS handshakes for host names no Ingress serves (and without SNI) instead of answering with the default certificate.',
    v.bool,
  ),
];
