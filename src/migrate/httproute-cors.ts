// The ingress-nginx CORS annotations as an HTTPRoute CORS filter (standard channel since Gateway API v1.5; Portico
// serves it, docs/adr/0026). The annotations are read by Portico's own table, so defaults and validation are the ones
// the Ingress gets; what the filter does differently is said as a difference.
import type { HTTPRouteFilter } from '../model/gateway/api.js';
import type { Draft } from '../annotations/table.js';
import { BY_KEY } from '../annotations/table.js';

/** The annotations the filter expresses (enable-cors and its settings). */
export const CORS_MAPPED: readonly string[] = ['enable-cors', 'cors-allow-origin', 'cors-allow-methods', 'cors-allow-headers', 'cors-allow-credentials', 'cors-expose-headers', 'cors-max-age'];

type Notes = { unmapped: { key: string; value: string; why: string }[]; differences: string[] };

/**
 * Reads one annotation into the draft as Portico reads it for an Ingress (its default when absent): the entry left
 * behind when Portico would refuse the value, else undefined.
 */
function read(a: Readonly<Record<string, string>>, prefix: string, short: string, draft: Draft): Notes['unmapped'][number] | undefined {
  const spec = BY_KEY.get(short);
  const raw = a[`${prefix}/${short}`] ?? spec?.default ?? '';
  if (!spec || raw === '') return undefined;
  const err = spec.apply(raw, draft);
  return err === undefined ? undefined : { key: `${prefix}/${short}`, value: raw, why: `not converted, Portico refuses the value: ${err}` };
}

/**
 * The CORS filter for `enable-cors: "true"`. With CORS off there is nothing to convert (undefined); a value Portico
 * would refuse is left behind (the CORS annotations are then not converted). Either way every CORS annotation is
 * accounted for here, so the caller skips them all.
 */
export function corsFilter(a: Readonly<Record<string, string>>, prefix: string, notes: Notes): HTTPRouteFilter | undefined {
  if (a[`${prefix}/enable-cors`] !== 'true') return undefined;
  const draft: Draft = { location: {}, server: {}, redirect: {}, upstream: {}, cookie: {}, auth: {}, tls: {} };
  for (const short of CORS_MAPPED) {
    const bad = read(a, prefix, short, draft);
    if (bad) {
      notes.unmapped.push(bad);
      return undefined;
    }
  }
  const c = draft.location.traffic?.cors ?? {};
  const origins = c.allowOrigin ?? ['*'];
  const other = origins.find((o) => o !== '*' && !/^https?:\/\//.test(o));
  if (other !== undefined) {
    const raw = a[`${prefix}/cors-allow-origin`] ?? '';
    notes.unmapped.push({ key: `${prefix}/cors-allow-origin`, value: raw, why: `not converted: allowOrigins takes http and https origins only (${other})` });
    return undefined;
  }
  const credentials = c.allowCredentials ?? true;
  if (origins.some((o) => o.includes('*.'))) {
    notes.differences.push(`${prefix}/cors-allow-origin: in allowOrigins "*." stands for one or more DNS labels; ingress-nginx matches exactly one`);
  }
  if (origins.includes('*') && credentials) {
    notes.differences.push(`${prefix}/cors-allow-origin: with allowCredentials the route echoes the request's Origin where ingress-nginx answers "*"`);
  }
  const maxAge = c.maxAge ?? 1_728_000;
  if (maxAge < 1) notes.differences.push(`${prefix}/cors-max-age: 0 becomes 1, maxAge's minimum`);
  return {
    type: 'CORS',
    cors: {
      allowOrigins: [...origins],
      allowMethods: [...(c.allowMethods ?? [])],
      allowHeaders: [...(c.allowHeaders ?? [])],
      ...(c.exposeHeaders && c.exposeHeaders.length > 0 ? { exposeHeaders: [...c.exposeHeaders] } : {}),
      maxAge: Math.max(maxAge, 1),
      allowCredentials: credentials,
    },
  };
}
