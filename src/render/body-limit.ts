// Request body limits of the dynamic route table (docs/adr/0063). nginx checks client_max_body_size against a
// request's Content-Length when it picks a location, and against the bytes it reads of a body of unknown length
// (chunked, or HTTP/2 without content-length) as it reads them. A profile is a named location (dynamic-profiles.ts),
// which the router enters by ngx.exec: nginx never makes the first check there, and makes the first one in the
// router's own `location /` with that location's limit. So a route whose block has a limit of its own carries it in
// the table (RouteTarget.maxBody) and the router answers 413 for a Content-Length above it; when some route allows
// more than the catch-all's limit (or no limit), the router's location takes none (`client_max_body_size 0`), every
// route carries its limit, and a body of unknown length to a route without a profile is read in a named location that
// has the catch-all's (@portico_bounded). Pure, like the rest of render/.
import { sizeBytes } from '../model/size.js';
import type { Model, Server } from '../model/types.js';

/** A rendered block's own body limit: 'none' without a client_max_body_size line, bytes (0: none) with one, 'bad' else. */
export function blockBodyLimit(body: string): number | 'none' | 'bad' {
  const lines = [...body.matchAll(/(?:^|\n)\s*client_max_body_size\s+([^;\s]*)\s*;/g)];
  if (lines.length === 0) return /client_max_body_size/.test(body) ? 'bad' : 'none';
  if (lines.length > 1) return 'bad';
  return sizeBytes(lines[0]?.[1] ?? '') ?? 'bad';
}

/** The proxy-body-size limits a server's paths set, each once (most servers: none); kept per server object. */
const serverLimits = new WeakMap<Server, readonly number[]>();
function limitsOf(s: Server): readonly number[] {
  let out = serverLimits.get(s);
  if (out === undefined) {
    const seen = new Set<number>();
    for (const l of s.locations) {
      const v = l.target.kind === 'upstream' ? l.target.settings?.bodySize : undefined;
      const bytes = v === undefined ? undefined : sizeBytes(v);
      if (bytes !== undefined) seen.add(bytes);
    }
    out = [...seen];
    serverLimits.set(s, out);
  }
  return out;
}

/**
 * Whether the router's location is open for `model` (takes no limit itself): some path's proxy-body-size is none (0)
 * or above the catch-all's (`catchAll`, bytes; 0: none, then nothing is above it). Decided from the settings before
 * any route is made (each route's entry depends on it); a profile whose block limits the body by other means must fit
 * the router's limit (dynamic-profiles.ts profileBody), else its host keeps its server block.
 */
export function routerOpen(model: Model, catchAll: number): boolean {
  if (catchAll === 0) return false;
  return model.servers.some((s) => limitsOf(s).some((l) => l === 0 || l > catchAll));
}

/** The named location a body of unknown length to a route without a profile is read in, with the catch-all's limit. */
export const BOUNDED = '@portico_bounded';
