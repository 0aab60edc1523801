// The HTTPRoute CORS filter, validated into data for Lua (lua/portico/gateway_cors.lua answers preflights and adds the
// response headers); nothing of it reaches nginx.conf.
import { clip } from '../names.js';
import type { HTTPCORSFilter } from './api.js';
import type { CorsPolicy } from './route-types.js';

type Refusal = { readonly field: string; readonly reason: string };

/** Entries of one list at most (the CRD's maxItems). */
const MAX_ITEMS = 64;
/** `*`, or scheme://host[:port] with an optional leading `*.` (any number of labels there), as the CRD's CORSOrigin. */
const ORIGIN = /^(\*|[a-z][a-z0-9+.-]{0,15}:\/\/(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:[0-9]{1,5})?)$/;
/** The methods the CRD lets allowMethods name (or `*` alone). */
const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH']);
/** A header name token (RFC 9110), at most 256. */
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$/;
/** maxAge when left out (the specification's default) and at most (the CRD's int32; browsers cap it lower themselves). */
const DEFAULT_MAX_AGE = 5;
const MAX_MAX_AGE = 2 ** 31 - 1;

function list(values: readonly string[] | undefined, field: string, ok: (v: string) => boolean, what: string): string[] | Refusal {
  const out: string[] = [];
  if ((values ?? []).length > MAX_ITEMS) return { field, reason: `at most ${MAX_ITEMS} entries` };
  for (const [i, v] of (values ?? []).entries()) {
    if (typeof v !== 'string' || !ok(v)) return { field: `${field}[${i}]`, reason: `${JSON.stringify(clip(v))} is not ${what}` };
    if (v === '*' && (values ?? []).length > 1) return { field: `${field}[${i}]`, reason: '`*` must be the only entry' };
    if (!out.includes(v)) out.push(v);
  }
  return out;
}

/** The CORS filter's policy, or why the rule is not served. */
export function corsOf(f: HTTPCORSFilter | undefined, at: string): CorsPolicy | Refusal {
  const c = f ?? {};
  const origins = list(
    c.allowOrigins?.map((o) => (typeof o === 'string' ? o.toLowerCase() : o)),
    `${at}.allowOrigins`,
    (v) => v.length <= 253 && ORIGIN.test(v) && (!/:([0-9]+)$/.test(v) || Number(/:([0-9]+)$/.exec(v)?.[1]) <= 65535),
    'an origin: *, or scheme://host[:port] with an optional leading *.',
  );
  if (!Array.isArray(origins)) return origins;
  const methods = list(c.allowMethods, `${at}.allowMethods`, (v) => v === '*' || METHODS.has(v), `* or one of ${[...METHODS].join(', ')}`);
  if (!Array.isArray(methods)) return methods;
  const headers = list(c.allowHeaders, `${at}.allowHeaders`, (v) => v === '*' || TOKEN.test(v), 'a header name or *');
  if (!Array.isArray(headers)) return headers;
  const expose = list(c.exposeHeaders, `${at}.exposeHeaders`, (v) => v === '*' || TOKEN.test(v), 'a header name or *');
  if (!Array.isArray(expose)) return expose;
  const maxAge = c.maxAge ?? DEFAULT_MAX_AGE;
  if (!Number.isInteger(maxAge) || maxAge < 1 || maxAge > MAX_MAX_AGE) return { field: `${at}.maxAge`, reason: `must be an integer 1-${MAX_MAX_AGE}` };
  if (c.allowCredentials !== undefined && typeof c.allowCredentials !== 'boolean') return { field: `${at}.allowCredentials`, reason: 'must be true or false' };
  return { origins, methods, headers, expose, maxAge, credentials: c.allowCredentials === true };
}
