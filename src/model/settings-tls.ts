// Keys of the global ConfigMap for the HTTPS redirect, TLS sessions, auth-free locations and request headers.
import { DEFAULT_NO_REDIRECT_LOCATIONS, DEFAULT_TLS_SESSION, type Sensitive, type TlsSession } from './tls-types.js';
import { sha256 } from '../hash.js';

/** ConfigMap keys read into GlobalSettings; tlsSettingsOf (model/settings.ts) hands the TLS ones to the TLS model. */
export interface TlsGlobals {
  /** no-tls-redirect-locations: location paths starting with one of these are never redirected to HTTPS. */
  readonly noTlsRedirectLocations: readonly string[];
  /** no-auth-locations: location paths starting with one of these skip basic and external auth (global or their own). */
  readonly noAuthLocations: readonly string[];
  /** proxy-add-original-uri-header: sends X-Original-URI ($request_uri) to every backend. */
  readonly proxyAddOriginalUriHeader: boolean;
  /** ssl-session-cache, ssl-session-cache-size, ssl-session-timeout, ssl-session-tickets, ssl-buffer-size. */
  readonly sslSessionCache: boolean;
  readonly sslSessionCacheSize: string;
  readonly sslSessionTimeout: string;
  readonly sslSessionTickets: boolean;
  readonly sslBufferSize: string;
  /** ssl-reject-handshake: the catch-all server refuses TLS handshakes for names no server has (and without SNI). */
  readonly sslRejectHandshake: boolean;
  /** ssl-session-ticket-key: base64 of 48 or 80 bytes. */
  readonly sslSessionTicketKey: Sensitive | undefined;
  /** ssl-dh-param: `namespace/name` of a Secret with `dhparam.pem`. */
  readonly sslDhParam: string | undefined;
}

/** ingress-nginx's defaults. */
export const TLS_GLOBAL_DEFAULTS: TlsGlobals = Object.freeze({
  noTlsRedirectLocations: DEFAULT_NO_REDIRECT_LOCATIONS,
  noAuthLocations: DEFAULT_NO_REDIRECT_LOCATIONS,
  proxyAddOriginalUriHeader: false,
  sslSessionCache: DEFAULT_TLS_SESSION.cache,
  sslSessionCacheSize: DEFAULT_TLS_SESSION.cacheSize,
  sslSessionTimeout: DEFAULT_TLS_SESSION.timeout,
  sslSessionTickets: DEFAULT_TLS_SESSION.tickets,
  sslBufferSize: DEFAULT_TLS_SESSION.bufferSize,
  sslRejectHandshake: false,
  sslSessionTicketKey: undefined,
  sslDhParam: undefined,
});

/** The session part of the TLS settings, or undefined at ingress-nginx's defaults (model fixtures stay as they were). */
export function tlsSessionOf(g: TlsGlobals): TlsSession | undefined {
  const key = g.sslSessionTicketKey;
  const s: TlsSession = {
    cache: g.sslSessionCache,
    cacheSize: g.sslSessionCacheSize,
    timeout: g.sslSessionTimeout,
    tickets: g.sslSessionTickets,
    bufferSize: g.sslBufferSize,
    ...(key !== undefined ? { ticketKey: { digest: sha256(key.reveal()), key } } : {}),
  };
  const d = DEFAULT_TLS_SESSION;
  const same = s.cache === d.cache && s.cacheSize === d.cacheSize && s.timeout === d.timeout && s.tickets === d.tickets && s.bufferSize === d.bufferSize && key === undefined;
  return same ? undefined : s;
}

/** Whether ingress-nginx's isLocationInLocationList holds: the Ingress path starts with one of the prefixes. */
export function inLocationList(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => p !== '' && path.startsWith(p));
}
