// HTTPRoute rule filters and timeouts, validated into the data of a GatewayAction (Lua applies them; nothing reaches nginx.conf).
import { checkHost, checkPath, clip } from '../names.js';
import type { HTTPHeaderFilter, HTTPPathModifier, HTTPRouteFilter, HTTPRouteRule } from './api.js';
import type { GatewayAction, HeaderEdits, PathEdit, WeightedBackend } from './route-types.js';
import { tryPolicy } from './retry.js';
import { corsOf } from './cors.js';

export { durationMs } from './retry.js';

type Refusal = { readonly field: string; readonly reason: string };
type Filters = Omit<GatewayAction, 'route' | 'rule' | 'backends' | 'weighted' | 'mirror' | 'mirrorPercent'> & {
  readonly mirrors?: readonly { readonly field: string; readonly filter: HTTPRouteFilter; readonly percent?: number }[];
};

/** RequestMirror filters one rule may carry: each is an nginx `mirror` subrequest of every request it copies. */
const MAX_MIRRORS = 4;

/** RequestRedirect status codes the standard channel's CRD allows: 301 and 302 (core), 303, 307 and 308 (extended). */
const REDIRECT_CODES: readonly number[] = [301, 302, 303, 307, 308];
/** A header name token (RFC 9110), at most 256. */
const TOKEN = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,256}$/;
/** Headers a filter may not touch: nginx owns the connection framing. */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection', 'upgrade', 'te', 'trailer', 'keep-alive']);

function headerEdits(h: HTTPHeaderFilter, field: string): HeaderEdits | Refusal {
  const pairs = (list: HTTPHeaderFilter['set'], kind: 'set' | 'add'): { name: string; value: string }[] | Refusal => {
    const out: { name: string; value: string }[] = [];
    for (const [i, x] of (list ?? []).entries()) {
      if (!TOKEN.test(x.name) || FRAMING.has(x.name.toLowerCase())) return { field: `${field}.${kind}[${i}].name`, reason: `${JSON.stringify(clip(x.name))} is not a header name a filter may set` };
      if (!/^[\t\x20-\x7e]{0,4096}$/.test(x.value))
        return { field: `${field}.${kind}[${i}].value`, reason: `${JSON.stringify(clip(x.value))} is not a header value Portico takes: printable ASCII, at most 4096` };
      out.push({ name: x.name, value: x.value });
    }
    return out;
  };
  const set = pairs(h.set, 'set');
  if (!Array.isArray(set)) return set;
  const add = pairs(h.add, 'add');
  if (!Array.isArray(add)) return add;
  for (const [i, name] of (h.remove ?? []).entries()) {
    if (!TOKEN.test(name) || FRAMING.has(name.toLowerCase())) return { field: `${field}.remove[${i}]`, reason: `${JSON.stringify(clip(name))} is not a header name a filter may remove` };
  }
  return { set, add, remove: [...(h.remove ?? [])] };
}

/** A replacement path: absolute, the strict path characters (model/names.ts checkPath). */
function pathEdit(p: HTTPPathModifier, field: string, prefixMatch: boolean): PathEdit | Refusal {
  const value = p.type === 'ReplaceFullPath' ? p.replaceFullPath : p.type === 'ReplacePrefixMatch' ? p.replacePrefixMatch : undefined;
  if (value === undefined) return { field: `${field}.type`, reason: `${JSON.stringify(p.type)} needs its value (replaceFullPath or replacePrefixMatch)` };
  if (p.type === 'ReplacePrefixMatch' && !prefixMatch) return { field: `${field}.type`, reason: 'ReplacePrefixMatch needs every match of the rule to be a PathPrefix match' };
  // The specification allows an empty ReplacePrefixMatch: the prefix is removed (/foo/bar → /bar).
  const bad = p.type === 'ReplacePrefixMatch' && value === '' ? undefined : checkPath(value);
  return bad ? { field: `${field}.${p.type === 'ReplaceFullPath' ? 'replaceFullPath' : 'replacePrefixMatch'}`, reason: bad } : { type: p.type, value };
}

type Redirect = NonNullable<GatewayAction['redirect']>;
type Rewrite = NonNullable<GatewayAction['rewrite']>;

function hostnameRefusal(h: string | undefined, what: string): string | undefined {
  if (h === undefined) return undefined;
  return checkHost(h.toLowerCase()) ?? (h.startsWith('*') ? `a ${what} hostname cannot be a wildcard` : undefined);
}

function redirectOf(f: HTTPRouteFilter, w: string, prefixMatch: boolean): Redirect | Refusal {
  const r = f.requestRedirect ?? {};
  if (r.scheme !== undefined && r.scheme !== 'http' && r.scheme !== 'https') return { field: `${w}.scheme`, reason: `${JSON.stringify(clip(r.scheme))} is not http or https` };
  const badHost = hostnameRefusal(r.hostname, 'redirect');
  if (badHost) return { field: `${w}.hostname`, reason: badHost };
  if (r.port !== undefined && (!Number.isInteger(r.port) || r.port < 1 || r.port > 65535)) return { field: `${w}.port`, reason: 'must be an integer 1-65535' };
  const statusCode = r.statusCode ?? 302;
  if (!REDIRECT_CODES.includes(statusCode)) return { field: `${w}.statusCode`, reason: `${String(statusCode)} is not one of ${REDIRECT_CODES.join(', ')}` };
  const path = r.path ? pathEdit(r.path, `${w}.path`, prefixMatch) : undefined;
  if (path && 'field' in path) return path;
  return {
    ...(r.scheme === 'http' || r.scheme === 'https' ? { scheme: r.scheme } : {}),
    ...(r.hostname ? { hostname: r.hostname.toLowerCase() } : {}),
    ...(r.port ? { port: r.port } : {}),
    statusCode,
    ...(path ? { path } : {}),
  };
}

function rewriteOf(f: HTTPRouteFilter, w: string, prefixMatch: boolean): Rewrite | Refusal {
  const r = f.urlRewrite ?? {};
  const badHost = hostnameRefusal(r.hostname, 'rewrite');
  if (badHost) return { field: `${w}.hostname`, reason: badHost };
  const path = r.path ? pathEdit(r.path, `${w}.path`, prefixMatch) : undefined;
  if (path && 'field' in path) return path;
  return { ...(r.hostname ? { hostname: r.hostname.toLowerCase() } : {}), ...(path ? { path } : {}) };
}

/** RequestMirror `percent` (0-100) or `fraction` (numerator/denominator, denominator 100 by default) as a percentage; undefined: every request. */
function mirrorPercent(m: { readonly percent?: number; readonly fraction?: { readonly numerator: number; readonly denominator?: number } }, at: string): number | undefined | Refusal {
  if (m.percent !== undefined && m.fraction !== undefined) return { field: at, reason: 'only one of percent and fraction may be set' };
  if (m.percent !== undefined) return Number.isInteger(m.percent) && m.percent >= 0 && m.percent <= 100 ? m.percent : { field: `${at}.percent`, reason: 'must be an integer 0-100' };
  if (m.fraction === undefined) return undefined;
  const { numerator, denominator = 100 } = m.fraction;
  if (!Number.isInteger(numerator) || !Number.isInteger(denominator) || numerator < 0 || denominator < 1 || numerator > denominator) {
    return { field: `${at}.fraction`, reason: 'numerator and denominator must be integers with 0 <= numerator <= denominator and denominator >= 1' };
  }
  return (numerator * 100) / denominator;
}

/** One filter applied to what the rule's filters made so far, or a refusal. */
function oneFilter(out: Filters, f: HTTPRouteFilter, at: string, prefixMatch: boolean): Filters | Refusal {
  if (f.type === 'RequestHeaderModifier' || f.type === 'ResponseHeaderModifier') {
    const key = f.type === 'RequestHeaderModifier' ? 'requestHeaderModifier' : 'responseHeaderModifier';
    const e = headerEdits(f[key] ?? {}, `${at}.${key}`);
    return 'field' in e ? e : { ...out, [f.type === 'RequestHeaderModifier' ? 'requestHeaders' : 'responseHeaders']: e };
  }
  if (f.type === 'RequestRedirect') {
    const r = redirectOf(f, `${at}.requestRedirect`, prefixMatch);
    return 'field' in r && 'reason' in r ? r : { ...out, redirect: r };
  }
  if (f.type === 'URLRewrite') {
    const r = rewriteOf(f, `${at}.urlRewrite`, prefixMatch);
    return 'field' in r && 'reason' in r ? r : { ...out, rewrite: r };
  }
  if (f.type === 'CORS') {
    const c = corsOf(f.cors, `${at}.cors`);
    return 'reason' in c ? c : { ...out, cors: c };
  }
  if (f.type === 'RequestMirror') {
    const percent = mirrorPercent(f.requestMirror ?? {}, `${at}.requestMirror`);
    if (typeof percent === 'object') return percent;
    const mirrors = out.mirrors ?? [];
    if (mirrors.length >= MAX_MIRRORS) return { field: at, reason: `Portico mirrors to at most ${MAX_MIRRORS} backends per rule` };
    return { ...out, mirrors: [...mirrors, { field: `${at}.requestMirror.backendRef`, filter: f, ...(percent !== undefined && percent < 100 ? { percent } : {}) }] };
  }
  return {
    field: `${at}.type`,
    reason: `${JSON.stringify(clip(f.type))} is not a filter Portico supports (RequestHeaderModifier, ResponseHeaderModifier, RequestRedirect, URLRewrite, RequestMirror, CORS)`,
  };
}

/**
 * The filters of a rule (RequestHeaderModifier, ResponseHeaderModifier, RequestRedirect, URLRewrite, RequestMirror, CORS)
 * and its timeouts and retries (model/gateway/retry.ts), validated; or why the rule is not served. `prefixMatch`: every match of the rule is a PathPrefix.
 */
export function ruleFilters(rule: HTTPRouteRule, field: string, prefixMatch: boolean): Filters | Refusal {
  let out: Filters = {};
  const once = new Set<string>();
  for (const [i, f] of (rule.filters ?? []).entries()) {
    const at = `${field}.filters[${i}]`;
    if (f.type !== 'RequestMirror' && once.has(f.type)) return { field: at, reason: `${f.type} may appear once per rule` };
    once.add(f.type);
    const next = oneFilter(out, f, at, prefixMatch);
    if ('field' in next && 'reason' in next) return next;
    out = next;
  }
  if (out.redirect && out.rewrite) return { field: `${field}.filters`, reason: 'RequestRedirect and URLRewrite cannot be used together' };
  const tries = tryPolicy(rule, field);
  if ('reason' in tries) return tries;
  return { ...out, ...tries };
}

type BackendEdits = Pick<WeightedBackend, 'requestHeaders' | 'responseHeaders' | 'rewrite' | 'redirect'>;
const BACKEND_FILTERS = ['RequestHeaderModifier', 'ResponseHeaderModifier', 'URLRewrite', 'RequestRedirect'];

/**
 * The filters of one backendRef: RequestHeaderModifier, ResponseHeaderModifier, URLRewrite and RequestRedirect, each at
 * most once, applied only to the requests sent to that backend (after the rule's); or why that backend's share is not
 * served. `rule`: what the rule's own filters do (a backendRef's URLRewrite or RequestRedirect beside the rule's
 * URLRewrite is refused: which path would win is not defined).
 */
export function backendFilters(
  list: readonly HTTPRouteFilter[],
  field: string,
  rule: { readonly prefixMatch: boolean; readonly rewrites: boolean } = { prefixMatch: true, rewrites: false },
): BackendEdits | Refusal {
  let out: BackendEdits = {};
  const once = new Set<string>();
  for (const [i, f] of list.entries()) {
    const at = `${field}[${i}]`;
    if (!BACKEND_FILTERS.includes(f.type)) {
      return { field: `${at}.type`, reason: `${JSON.stringify(clip(f.type))} on a backendRef is not supported (${BACKEND_FILTERS.join(', ')})` };
    }
    if (once.has(f.type)) return { field: at, reason: `${f.type} may appear once per backendRef` };
    once.add(f.type);
    if (f.type === 'URLRewrite' || f.type === 'RequestRedirect') {
      if (rule.rewrites) return { field: `${at}.type`, reason: `${f.type} on a backendRef cannot be served beside the rule's own URLRewrite` };
      const r = f.type === 'URLRewrite' ? rewriteOf(f, `${at}.urlRewrite`, rule.prefixMatch) : redirectOf(f, `${at}.requestRedirect`, rule.prefixMatch);
      if ('reason' in r) return r;
      out = { ...out, [f.type === 'URLRewrite' ? 'rewrite' : 'redirect']: r };
      continue;
    }
    const key = f.type === 'RequestHeaderModifier' ? 'requestHeaderModifier' : 'responseHeaderModifier';
    const e = headerEdits(f[key] ?? {}, `${at}.${key}`);
    if ('field' in e) return e;
    out = { ...out, [f.type === 'RequestHeaderModifier' ? 'requestHeaders' : 'responseHeaders']: e };
  }
  if (out.rewrite && out.redirect) return { field, reason: 'RequestRedirect and URLRewrite cannot be used together' };
  return out;
}
