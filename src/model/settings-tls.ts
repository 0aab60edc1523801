// The TLS keys of the global ConfigMap that shape the HTTPS redirect, TLS sessions and request headers (issue 15).
import { DEFAULT_NO_REDIRECT_LOCATIONS } from './tls-types.js';

/** ConfigMap keys read into GlobalSettings; tlsSettingsOf (model/settings.ts) hands the TLS ones to the TLS model. */
export interface TlsGlobals {
  /** no-tls-redirect-locations: location paths starting with one of these are never redirected to HTTPS. */
  readonly noTlsRedirectLocations: readonly string[];
  /** proxy-add-original-uri-header: sends X-Original-URI ($request_uri) to every backend. */
  readonly proxyAddOriginalUriHeader: boolean;
}

/** ingress-nginx's defaults. */
export const TLS_GLOBAL_DEFAULTS: TlsGlobals = Object.freeze({
  noTlsRedirectLocations: DEFAULT_NO_REDIRECT_LOCATIONS,
  proxyAddOriginalUriHeader: false,
});

/** Whether ingress-nginx's isLocationInLocationList holds: the Ingress path starts with one of the prefixes. */
export function inLocationList(path: string, prefixes: readonly string[]): boolean {
  return prefixes.some((p) => p !== '' && path.startsWith(p));
}
