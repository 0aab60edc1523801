// HTTPRoute matches, validated into the model's GatewayMatch, and the specification's precedence between them.
import { checkPath, checkRegexSyntax, clip } from '../names.js';
import { normalizePath } from '../routes.js';
import type { HTTPRouteMatch } from './api.js';
import type { GatewayCondition, GatewayMatch } from './route-types.js';

/** A header name nginx exposes as $http_<name> (letters, digits and '-'; underscores are dropped by nginx). */
const HEADER_NAME = /^[A-Za-z0-9][A-Za-z0-9-]{0,255}$/;
/** A query parameter name: printable ASCII without '&', '=', '#' or spaces. */
const QUERY_NAME = /^[\x21-\x7e]{1,256}$/;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'CONNECT', 'OPTIONS', 'TRACE', 'PATCH'];

/**
 * A regular expression Lua runs on a request value (a header, a parameter, the path): printable, at most 512, no
 * lookaround or backreferences (PCRE and JavaScript differ there), compiles, and no shape known to backtrack
 * exponentially (model/regex-safety.ts). Lua matches it whole (anchored at both ends) under lua_regex_match_limit.
 */
function checkValueRegex(value: string): string | undefined {
  if (value.length === 0 || value.length > 512 || !/^[\x20-\x7e]+$/.test(value)) {
    return `${JSON.stringify(clip(value))} is not a regular expression Portico takes: 1 to 512 printable ASCII characters`;
  }
  return checkRegexSyntax(value);
}

/** A header or query value: printable ASCII (and tab), at most 4096. */
function checkValue(value: string): string | undefined {
  return /^[\t\x20-\x7e]{0,4096}$/.test(value) ? undefined : `${JSON.stringify(clip(value))} is not a value Portico takes: printable ASCII, at most 4096 characters`;
}

function conditions(
  list: readonly { readonly type?: string; readonly name: string; readonly value: string }[],
  kind: 'headers' | 'queryParams',
  field: string,
): GatewayCondition[] | { field: string; reason: string } {
  const out: GatewayCondition[] = [];
  const seen = new Set<string>();
  for (const [i, c] of list.entries()) {
    const at = `${field}.${kind}[${i}]`;
    const type = c.type ?? 'Exact';
    if (type !== 'Exact' && type !== 'RegularExpression') return { field: `${at}.type`, reason: `${JSON.stringify(type)} is not Exact or RegularExpression` };
    const name = kind === 'headers' ? c.name.toLowerCase() : c.name;
    if (!(kind === 'headers' ? HEADER_NAME : QUERY_NAME).test(c.name) || /[&=#]/.test(c.name))
      return { field: `${at}.name`, reason: `${JSON.stringify(clip(c.name))} is not a ${kind === 'headers' ? 'header' : 'query parameter'} name Portico matches` };
    // The specification: a name repeated in one match takes the first entry, the others are ignored.
    if (seen.has(name)) continue;
    seen.add(name);
    const bad = type === 'RegularExpression' ? checkValueRegex(c.value) : checkValue(c.value);
    if (bad) return { field: `${at}.value`, reason: bad };
    out.push({ name, type, value: c.value });
  }
  return out;
}

/** The validated match, or the field and reason it is refused for (the match is then not served). */
export function gatewayMatch(m: HTTPRouteMatch, field: string): GatewayMatch | { field: string; reason: string } {
  const type = m.path?.type ?? 'PathPrefix';
  const raw = m.path?.value ?? '/';
  let path: GatewayMatch['path'];
  if (type === 'RegularExpression') {
    // Matched whole against the path, which starts with '/': the pattern may anchor itself (`^/re/[0-9]+$`).
    const bad = raw.startsWith('/') || raw.startsWith('^/') ? checkValueRegex(raw) : `${JSON.stringify(clip(raw))} must start with '/' or '^/'`;
    if (bad) return { field: `${field}.path.value`, reason: bad };
    path = { type, value: raw };
  } else if (type === 'Exact' || type === 'PathPrefix') {
    const bad = checkPath(raw);
    if (bad) return { field: `${field}.path.value`, reason: bad };
    path = { type, value: normalizePath(raw, type === 'Exact' ? 'Exact' : 'Prefix') };
  } else {
    return { field: `${field}.path.type`, reason: `${JSON.stringify(type)} is not Exact, PathPrefix or RegularExpression` };
  }
  const headers = conditions(m.headers ?? [], 'headers', field);
  if (!Array.isArray(headers)) return headers;
  const query = conditions(m.queryParams ?? [], 'queryParams', field);
  if (!Array.isArray(query)) return query;
  if (m.method !== undefined && !METHODS.includes(m.method)) return { field: `${field}.method`, reason: `${JSON.stringify(clip(m.method))} is not one of ${METHODS.join(', ')}` };
  return { path, headers, query, ...(m.method !== undefined ? { method: m.method } : {}) };
}

/**
 * The specification's precedence between two matches that both take a request path (negative: `a` first): an Exact
 * path, then a RegularExpression path (implementation-specific: Portico puts it after Exact and before every prefix,
 * longer patterns first), then the longest PathPrefix; then a method; then the most header matches; then the most
 * query parameter matches. Ties are left to the caller (oldest route, namespace/name, rule and match order).
 */
export function comparePrecedence(a: GatewayMatch, b: GatewayMatch): number {
  const rank = (m: GatewayMatch): number => (m.path.type === 'Exact' ? 0 : m.path.type === 'RegularExpression' ? 1 : 2);
  return (
    rank(a) - rank(b) ||
    (a.path.type === b.path.type && a.path.type !== 'Exact' ? b.path.value.length - a.path.value.length : 0) ||
    (a.method !== undefined ? 0 : 1) - (b.method !== undefined ? 0 : 1) ||
    b.headers.length - a.headers.length ||
    b.query.length - a.query.length
  );
}
