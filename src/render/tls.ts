// Renders the TLS model: nginx.conf lines (http, server, location level) and the certificates payload for Lua.
import type { Location } from '../model/types.js';
import { DEFAULT_NO_REDIRECT_LOCATIONS, DEFAULT_TLS_SESSION, type CertificateInfo, type TlsModel, type TlsServer, type TlsSession } from '../model/tls-types.js';
import { UnsafeValueError } from '../errors.js';
import { inLocationList } from '../model/settings-tls.js';
import { filePath, ident, int, onOff, quote, regex, size } from './escape.js';
import { refKey } from '../model/keys.js';
import { gatewayClientCertLines } from './client-cert.js';

/** Files in the work directory: the self-signed fallback (the catch-all's static certificate) and CA bundles. */
export const FALLBACK_CERT = 'ssl/default.crt';
export const FALLBACK_KEY = 'ssl/default.key';
/** The variables the inherited certificate's files are named by (tlsHttpLines). */
const FALLBACK_CERT_VAR = '$portico_fallback_certificate';
const FALLBACK_KEY_VAR = '$portico_fallback_certificate_key';
export const caFile = (digest: string): string => `ssl/ca-${ident(digest.slice(0, 32))}.pem`;
/** The file of ssl-dh-param, relative to the work dir. */
export const dhParamFile = (digest: string): string => `ssl/dhparam-${ident(digest.slice(0, 32))}.pem`;
/** The file of ssl-session-ticket-key, relative to the work dir. */
export const ticketKeyFile = (digest: string): string => `ssl/ticket-${ident(digest.slice(0, 32))}.key`;
export const crlFile = (digest: string): string => `ssl/crl-${ident(digest.slice(0, 32))}.pem`;
/** A file of the work directory as nginx.conf names it. */
const inWorkDir =
  (workDir: string) =>
  (p: string): string =>
    filePath(`${workDir}/${p}`);

/** `Strict-Transport-Security` value of the settings. */
function hstsValue(tls: TlsModel): string {
  const s = tls.settings;
  return `max-age=${int(s.hstsMaxAge)}${s.hstsIncludeSubdomains ? '; includeSubDomains' : ''}${s.hstsPreload ? '; preload' : ''}`;
}

function protocols(value: string): string {
  const list = value.split(/\s+/).filter(Boolean);
  if (list.length === 0 || list.some((p) => !/^(SSLv[23]|TLSv1(\.[0-3])?)$/.test(p))) {
    throw new UnsafeValueError(`refusing to render ssl_protocols ${JSON.stringify(value.slice(0, 80))}`);
  }
  return list.join(' ');
}

function time(value: string): string {
  if (!/^\d{1,6}(ms|s|m|h|d)?$/.test(value)) throw new UnsafeValueError(`refusing to render the time ${JSON.stringify(value.slice(0, 80))}`);
  return value;
}

/** ssl-session-*: as ingress-nginx, the cache and its timeout only when ssl-session-cache is on (else nginx's: none). */
function sessionLines(s: TlsSession, w: (p: string) => string): string[] {
  const cache = s.cache ? `ssl_session_cache shared:SSL:${size(s.cacheSize)}; ssl_session_timeout ${time(s.timeout)}; ` : '';
  // ssl-session-ticket-key: nginx reads the key file (written by tls/files.ts, named by digest) at each reload.
  const key = s.ticketKey !== undefined ? [`    ssl_session_ticket_key ${w(ticketKeyFile(s.ticketKey.digest))};`] : [];
  return [`    ${cache}ssl_session_tickets ${onOff(s.tickets)};`, `    ssl_buffer_size ${size(s.bufferSize)};`, ...key];
}

/**
 * http{} level: protocols, ciphers, session cache, the certificate every server inherits, and HSTS.
 *
 * The inherited certificate names its files by variables (docs/adr/0052). nginx makes an SSL context for every server
 * block that has a certificate, and with a static one it decodes the PEM files again for each: with OpenSSL 3 about
 * 0.7 ms a server, 2.8 s of every nginx -t and reload at 4,000 server blocks. With variables nginx only installs its
 * certificate callback, and the Lua hook each server has (CERTIFICATE_HOOK) replaces it: lua-nginx-module merges after
 * nginx's SSL module. Were nginx's callback ever to run, the variables name the same fallback files.
 */
export function tlsHttpLines(tls: TlsModel, workDir: string): string[] {
  const w = inWorkDir(workDir);
  return [
    `    ssl_protocols ${protocols(tls.settings.protocols)};`,
    `    ssl_ciphers ${quote(tls.settings.ciphers)};`,
    ...sessionLines(tls.settings.session ?? DEFAULT_TLS_SESSION, w),
    ...(tls.dhParam ? [`    ssl_dhparam ${w(dhParamFile(tls.dhParam.digest))};`] : []),
    `    map "" ${FALLBACK_CERT_VAR} { default ${w(FALLBACK_CERT)}; }`,
    `    map "" ${FALLBACK_KEY_VAR} { default ${w(FALLBACK_KEY)}; }`,
    `    ssl_certificate ${FALLBACK_CERT_VAR};`,
    `    ssl_certificate_key ${FALLBACK_KEY_VAR};`,
    `    map $https $portico_hsts { on ${quote(hstsValue(tls))}; default ""; }`,
    // The header's value: Portico's on HTTPS, else what the backend sent (an empty more_set_headers would remove it).
    '    map $portico_hsts $portico_hsts_header { "" $sent_http_strict_transport_security; default $portico_hsts; }',
  ];
}

/**
 * The ssl-client-* headers a server sends its backends: only a server with client-certificate auth, as ingress-nginx
 * (`pass` adds the certificate). Rendered in that server's proxy header list (render/globals.ts proxyHeaders), not at
 * http level: maps there cost every request of every server about 2,000 instructions (bench/README.md, hot path).
 */
export function clientCertHeaders(tls: TlsModel, host: string): 'verify' | 'pass' | undefined {
  const ca = tlsServerOf(tls, host)?.clientAuth;
  return ca ? (ca.passCertificate ? 'pass' : 'verify') : undefined;
}

/** Parameters of the HTTPS `listen` of every server (after the address). */
export function tlsListenParams(tls: TlsModel): string {
  return tls.settings.http2 ? ' ssl http2' : ' ssl';
}

/** tls.servers by host, indexed once per (frozen) TLS model: a lookup per location was a scan of every TLS host. */
/** HSTS of a TLS host, at server level: headers-more's directives reach every location and `if` below (docs/adr/0003, amendment). */
export const HSTS_SERVER = '        more_set_headers "Strict-Transport-Security: $portico_hsts_header";';

const byHost = new WeakMap<TlsModel, ReadonlyMap<string, TlsServer>>();

/** The TLS entry of a server host (what its block's TLS lines are made of). */
export function tlsServerOf(tls: TlsModel, host: string): TlsServer | undefined {
  let index = byHost.get(tls);
  if (!index) {
    const m = new Map<string, TlsServer>();
    for (const s of tls.servers) if (!m.has(s.host)) m.set(s.host, s); // the first, as find() took
    index = m;
    byHost.set(tls, index);
  }
  return index.get(host);
}

/** A server's certificate, picked by SNI from what Lua holds (docs/adr/0003). */
export const CERTIFICATE_HOOK = '        ssl_certificate_by_lua_block { require("portico.certificate").call() }';

/**
 * The catch-all's own lines, the static fallback certificate: the catch-all is nginx's default server on every TLS
 * port, where a handshake without SNI or with an unknown name is served, and its certificate stays when Lua holds
 * none to give (before the first push of certificates). The one SSL context that decodes the files.
 */
function fallbackLines(workDir: string): string[] {
  const w = inWorkDir(workDir);
  return [`        ssl_certificate ${w(FALLBACK_CERT)};`, `        ssl_certificate_key ${w(FALLBACK_KEY)};`];
}

/** server{} level: the Lua certificate hook, ssl-reject-handshake in the catch-all, HSTS for TLS hosts, client-certificate auth. */
export function tlsServerLines(tls: TlsModel, host: string, workDir: string): string[] {
  const s = tlsServerOf(tls, host);
  const ca = s?.clientAuth;
  const lines = [...(host === '_' ? fallbackLines(workDir) : []), CERTIFICATE_HOOK];
  // ssl-reject-handshake: as ingress-nginx, in the default server only (nginx picks it for unknown names and no SNI).
  if (host === '_' && tls.settings.rejectHandshake === true) lines.push('        ssl_reject_handshake on;');
  if (s?.tls && tls.settings.hsts) lines.push(HSTS_SERVER);
  if (!ca) return lines;
  if (ca.gatewayMode === 'Refused') return [...lines, ...gatewayClientCertLines(ca)];
  const w = inWorkDir(workDir);
  lines.push(`        ssl_client_certificate ${w(caFile(ca.caDigest))};`);
  lines.push(`        ssl_verify_client ${ident(ca.verify)};`);
  lines.push(`        ssl_verify_depth ${int(ca.depth)};`);
  if (ca.crlDigest) lines.push(`        ssl_crl ${w(crlFile(ca.crlDigest))};`);
  if (ca.errorPage) lines.push(`        error_page 495 496 = ${quote(ca.errorPage)};`);
  lines.push(...gatewayClientCertLines(ca)); // a Gateway listener's validation (render/client-cert.ts)
  // As ingress-nginx: a subject that does not match auth-tls-match-cn is refused before any location runs.
  if (ca.matchCn) lines.push(`        if ($ssl_client_s_dn !~ ${regex(ca.matchCn)}) { return 403 "client certificate unauthorized"; }`);
  return lines;
}

/** The Gateway API route kinds: their locations take no Ingress TLS redirect. */
const GATEWAY_ROUTES: ReadonlySet<string> = new Set(['HTTPRoute', 'GRPCRoute']);
const routeOwned = (owner: { readonly kind: string } | undefined): boolean => owner !== undefined && GATEWAY_ROUTES.has(owner.kind);

/** What TLS asks of one location. */
export interface LocationTlsPolicy {
  readonly denied: boolean;
  readonly redirect: number;
}

const DENIED: LocationTlsPolicy = Object.freeze({ denied: true, redirect: 0 });
/** The answers by redirect code (0: none), one object each: a route table asks for each of 50,000 locations. */
const REDIRECTS = new Map<number, LocationTlsPolicy>();
const policyOf = (redirect: number): LocationTlsPolicy => {
  let p = REDIRECTS.get(redirect);
  if (p === undefined) {
    p = Object.freeze({ denied: false, redirect });
    if (REDIRECTS.size < 16) REDIRECTS.set(redirect, p);
  }
  return p;
};

/** What TLS asks of one location: 503 for a denied Ingress, or the code of its redirect to HTTPS (0: none). */
export function tlsLocationPolicy(tls: TlsModel, host: string, l: Location): LocationTlsPolicy {
  const owner = l.target.kind === 'upstream' ? l.target.ingress : undefined;
  const own = owner ? tls.ingresses[refKey(owner.namespace, owner.name)] : undefined;
  if (own?.denied) return DENIED;
  const server = tlsServerOf(tls, host);
  // Gateway API has no ssl-redirect, only RequestRedirect filters: not for a route's location, nor for one of no
  // Ingress where HTTPRoute candidates may take the requests or whose host's TLS is a Gateway listener's.
  if (routeOwned(owner) || (owner === undefined && (l.gateway !== undefined || server?.gateway === true))) return policyOf(0);
  const hasTls = server?.tls ?? false;
  const redirect = (own?.forceSslRedirect ?? false) || (hasTls && (own?.sslRedirect ?? tls.settings.sslRedirect));
  // As ingress-nginx (isLocationInLocationList): the Ingress path, not the request, is compared with the prefixes.
  const path = l.target.kind === 'upstream' ? (l.target.rule?.path ?? l.path) : l.path;
  const code = redirect && !inLocationList(path, tls.settings.noRedirectLocations ?? DEFAULT_NO_REDIRECT_LOCATIONS) ? tls.settings.redirectCode : 0;
  return policyOf(code);
}

/** location{} level: 503 for a denied Ingress, else the redirect to HTTPS (http-redirect-code, 308) when ssl-redirect or force-ssl-redirect asks, except under no-tls-redirect-locations. */
export function tlsLocationLines(tls: TlsModel, host: string, l: Location): string[] {
  const p = tlsLocationPolicy(tls, host, l);
  if (p.denied) return ['            return 503;'];
  return p.redirect !== 0 ? [`            if ($scheme = "http") { return ${int(p.redirect)} https://$portico_redirect_host$request_uri; }`] : [];
}

/** The host has a certificate of its own (spec.tls) and HSTS is on: its responses over HTTPS carry the header. */
export function tlsHsts(tls: TlsModel, host: string): boolean {
  return (tlsServerOf(tls, host)?.tls ?? false) && tls.settings.hsts;
}

/** The body of `POST /configuration/certificates`: host → PEM chain + key, and the default. Holds keys: never log it. */
export interface CertificatesPayload {
  readonly certificates: Readonly<Record<string, string>>;
  readonly default: string;
  /** A hostname-less HTTPS listener's certificate: for names without their own, except those in `plain` (TlsModel.gatewayDefault). */
  readonly listener?: string;
  readonly plain?: readonly string[];
  /** Wildcards of Gateway listeners: their certificate serves names of two or more labels too (an Ingress's, one). */
  readonly deep?: readonly string[];
}

/** The payload for Lua; `fallbackPem` is the self-signed certificate and key, used when no default Secret is usable. */
export function certificatesPayload(tls: TlsModel, fallbackPem: string): CertificatesPayload {
  const pem = new Map(tls.certificates.map((c) => [c.id, c.pem.reveal()]));
  const certificates: Record<string, string> = {};
  for (const h of tls.hosts) {
    const p = h.certificate ? pem.get(h.certificate) : undefined;
    if (p) certificates[h.host] = p;
  }
  const def = tls.defaultCertificate ? pem.get(tls.defaultCertificate) : undefined;
  const listener = tls.gatewayDefault ? pem.get(tls.gatewayDefault.certificate) : undefined;
  const deep = tls.hosts.filter((h) => h.host.startsWith('*.') && h.ingress.kind === 'Gateway' && certificates[h.host] !== undefined).map((h) => h.host);
  return { certificates, default: def ?? fallbackPem, ...(listener !== undefined ? { listener, plain: tls.gatewayDefault?.plain ?? [] } : {}), ...(deep.length > 0 ? { deep } : {}) };
}

/** The hostname-less HTTPS listener whose certificate answers names without one, for /debug/certs. */
function listenerDebug(d: NonNullable<TlsModel['gatewayDefault']>, byId: ReadonlyMap<string, CertificateInfo>): unknown {
  const c = byId.get(d.certificate);
  return { gateway: `${d.gateway.namespace}/${d.gateway.name}`, secret: d.certificate, ...(c ? info(c) : {}), exceptNamesOwnedElsewhere: d.plain.length };
}

const info = (c: CertificateInfo): CertificateInfo => ({ subject: c.subject, issuer: c.issuer, notBefore: c.notBefore, notAfter: c.notAfter, fingerprint: c.fingerprint, dnsNames: c.dnsNames });

/** `/debug/certs`: hosts, subjects, issuers, expiry and fingerprints; never a key. */
export function certificatesDebug(tls: TlsModel, fallback: CertificateInfo): unknown {
  const byId = new Map(tls.certificates.map((c) => [c.id, c]));
  const defaultCert = tls.defaultCertificate ? byId.get(tls.defaultCertificate) : undefined;
  return {
    default: defaultCert ? { source: `Secret ${defaultCert.id}`, ...info(defaultCert) } : { source: 'self-signed', ...info(fallback) },
    ...(tls.gatewayDefault ? { listenerDefault: listenerDebug(tls.gatewayDefault, byId) } : {}),
    hosts: tls.hosts.map((h) => {
      const c = h.certificate ? byId.get(h.certificate) : undefined;
      return { host: h.host, ingress: refKey(h.ingress.namespace, h.ingress.name), secret: c ? c.id : null, ...(c ? info(c) : { default: true }) };
    }),
    clientAuth: tls.servers
      .filter((s) => s.clientAuth)
      .map((s) => ({
        host: s.host,
        secret: `${s.clientAuth?.secret.namespace ?? ''}/${s.clientAuth?.secret.name ?? ''}`,
        verify: s.clientAuth?.verify,
        depth: s.clientAuth?.depth,
        passCertificate: s.clientAuth?.passCertificate,
      })),
  };
}
