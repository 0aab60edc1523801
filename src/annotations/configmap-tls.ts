// ConfigMap keys of the HTTPS redirect and TLS sessions, and proxy-add-original-uri-header (model/settings-tls.ts).
import type { KeySpec } from './configmap.js';
import { key } from './configmap-key.js';
import * as v from './values.js';

/** Comma-separated path prefixes, as ingress-nginx splits them (empty items skipped). */
const prefixes: v.Parser<string[]> = (raw) => v.list(v.uriPath, /\s*,\s*/, 64)(raw.split(',').map((p) => p.trim()).filter(Boolean).join(','));

/** The keys, spliced into CONFIGMAP_KEYS. */
export const TLS_CONFIGMAP_KEYS: readonly KeySpec[] = [
  key('no-tls-redirect-locations', 'noTlsRedirectLocations', '/.well-known/acme-challenge',
    'Ingress paths (comma-separated prefixes) never redirected to HTTPS, so ACME HTTP-01 challenges (cert-manager\'s solver Ingresses) are answered over HTTP. As in ingress-nginx, the Ingress path is compared, not the request.', prefixes),
  key('proxy-add-original-uri-header', 'proxyAddOriginalUriHeader', 'false',
    'Sends X-Original-URI (the request URI as the client sent it) to backends. Off by default, as in ingress-nginx\'s final release; custom error pages always get it.', v.bool),
];
