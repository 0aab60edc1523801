// enable-access-log-for-default-backend: which requests of the catch-all server stay out of the access log.
import type { Location, Target } from '../model/types.js';
import type { GlobalSettings } from '../model/settings.js';

/**
 * True when `l` is the catch-all server's default backend: no Ingress path and no Ingress defaultBackend took the
 * request, so the built-in 404 (or --default-backend-service) answers, and no HTTPRoute may take it instead. As in
 * ingress-nginx (whose catch-all `location /` logs only with enable-access-log-for-default-backend), such requests
 * write no access log line unless the key is true; a host's unmatched paths are its own and always logged.
 */
export function defaultBackendUnlogged(host: string, l: Location, g: GlobalSettings): boolean {
  if (host !== '_' || g.enableAccessLogForDefaultBackend || l.gateway !== undefined) return false;
  return isDefaultBackend(l.target);
}

/** The built-in 404, or the --default-backend-service (the model names the flag's Service where an Ingress would be). */
function isDefaultBackend(t: Target): boolean {
  return t.kind === 'not-found' || t.ingress.kind === 'Service';
}

/** The location line that keeps a request out of the access log. */
export const NO_ACCESS_LOG = '            access_log off;';
