// Pure value parsers shared by annotations and ConfigMap keys: strict syntax, or the reason it was refused.
// isIP is a pure function of its argument (no socket, no resolver): the one node:net name pure code may use.
// eslint-disable-next-line no-restricted-imports
import { isIP } from 'node:net';
import type { Size } from '../model/settings.js';
import { sizeBytes } from '../model/size.js';

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };
export type Parser<T> = (raw: string) => Result<T>;

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const bad = <T>(reason: string): Result<T> => ({ ok: false, reason });

/** Shows a hostile value in a message without flooding the log. */
export function show(raw: string): string {
  return JSON.stringify(raw.length > 60 ? `${raw.slice(0, 60)}…` : raw);
}

/** Go's strconv.ParseBool, as ingress-nginx reads booleans. */
export const bool: Parser<boolean> = (raw) => {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw)) return ok(true);
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(raw)) return ok(false);
  return bad(`${show(raw)} is not a boolean (true or false)`);
};

export function int(min: number, max: number): Parser<number> {
  return (raw) => {
    const n = Number(raw);
    if (!/^\d{1,10}$/.test(raw) || n < min || n > max) return bad(`${show(raw)} is not an integer from ${min} to ${max}`);
    return ok(n);
  };
}

/** Seconds, as ingress-nginx's timeouts: `60` or `60s`. */
export function seconds(max = 86_400): Parser<number> {
  return (raw) => {
    const m = /^(\d{1,6})s?$/.exec(raw);
    if (!m?.[1] || Number(m[1]) > max) return bad(`${show(raw)} is not a number of seconds (0 to ${max}, e.g. 60 or 60s)`);
    return ok(Number(m[1]));
  };
}

/** An nginx size: digits and an optional unit k, m or g (`0` means unlimited for body sizes). */
export const size: Parser<Size> = (raw) => {
  if (!/^\d{1,9}[kKmMgG]?$/.test(raw)) return bad(`${show(raw)} is not a size (digits with an optional k, m or g, e.g. 8k or 1m)`);
  return ok(raw.toLowerCase());
};

/** A buffer size (nginx's size slot: k or m, no g), at most 1g in all, e.g. 8k. */
export const bufferSize: Parser<Size> = (raw) => {
  const m = /^\d{1,7}[kKmM]?$/.test(raw);
  const bytes = m ? (sizeBytes(raw.toLowerCase()) ?? Infinity) : Infinity;
  if (!m || bytes < 1 || bytes > 2 ** 30) return bad(`${show(raw)} is not a buffer size (1 to 1g: digits with an optional k or m, e.g. 8k)`);
  return ok(raw.toLowerCase());
};

export function oneOf<T extends string>(values: readonly T[], caseInsensitive = false): Parser<T> {
  return (raw) => {
    const hit = values.find((v) => (caseInsensitive ? v.toLowerCase() === raw.toLowerCase() : v === raw));
    return hit !== undefined ? ok(hit) : bad(`${show(raw)} is not one of ${values.join(', ')}`);
  };
}

/** A space- or comma-separated list, each item checked by `item`, none repeated. */
export function list<T>(item: Parser<T>, sep: RegExp = /[\s,]+/, max = 64): Parser<T[]> {
  return (raw) => {
    const parts = raw.trim() === '' ? [] : raw.trim().split(sep);
    if (parts.length > max) return bad(`more than ${max} items`);
    const out: T[] = [];
    for (const p of parts) {
      const r = item(p);
      if (!r.ok) return r;
      out.push(r.value);
    }
    return ok(out);
  };
}

/** HTTP status codes for error pages (400-599). */
/** Status codes nginx's error_page takes: 400-599, except 499 (nginx refuses to intercept its own "client closed"). */
const errorCode: Parser<number> = (raw) => {
  const r = int(400, 599)(raw);
  return r.ok && r.value === 499 ? bad('499 (client closed the connection) cannot be intercepted by nginx') : r;
};
export const errorCodes: Parser<number[]> = list(errorCode, /\s*,\s*/);

const HOST = /^(?=.{1,253}$)([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)(\.[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)*$/;

/** A DNS host name (lowercase), as server-alias and proxy-ssl-name take. */
export const hostname: Parser<string> = (raw) => (HOST.test(raw) ? ok(raw) : bad(`${show(raw)} is not a DNS host name`));

/** A host name with an optional port, as the Host header of upstream-vhost. */
export const hostPort: Parser<string> = (raw) => {
  const m = /^([^:]+)(:(\d{1,5}))?$/.exec(raw);
  if (!m?.[1] || !HOST.test(m[1]) || (m[3] !== undefined && Number(m[3]) > 65535)) return bad(`${show(raw)} is not a host name with an optional port`);
  return ok(raw);
};

const PATH_CHARS = /^\/[A-Za-z0-9\-._~!&'()*+,;=:@/%]*$/;

/** An absolute URI path (no query), as app-root and x-forwarded-prefix take. */
export const uriPath: Parser<string> = (raw) => {
  if (raw.length > 1024 || !PATH_CHARS.test(raw)) return bad(`${show(raw)} is not an absolute path (it must start with '/' and hold only URI path characters)`);
  return ok(raw);
};

/**
 * The regular-expression syntax JavaScript and PCRE read alike, so that what this check accepts is what nginx's
 * ngx.re compiles (portico.canary checks the same subset, test/lua/validity.test.ts compares both): escapes only of
 * punctuation and of d D w W s S b B n t; groups only `(...)` and `(?:...)`, and `(?i)` at the very start; no empty
 * class. Returns what is outside the subset, or undefined.
 */
export function pcreCommon(raw: string): string | undefined {
  for (let i = 0; i < raw.length; i += raw[i] === '\\' ? 2 : 1) {
    const c = raw[i] === '\\' ? (raw[i + 1] ?? '') : undefined;
    if (c !== undefined && !/^[dDwWsSbBnt\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]$/.test(c)) {
      return `the escape \\${c} reads differently in PCRE and JavaScript; write the character itself or a class`;
    }
  }
  const body = raw.replace(/^\(\?i\)/, '').replace(/\\./g, '');
  if (/\(\?(?!:)/.test(body)) return 'only (...) and (?:...) groups are taken (and (?i) at the start)';
  if (/\[\^?\]/.test(body)) return 'an empty character class reads differently in PCRE and JavaScript';
  return undefined;
}

/** A cookie Path attribute: an absolute path without ';', which would end the attribute (portico.balancer checks the same). */
export const cookiePath: Parser<string> = (raw) => (raw.includes(';') ? bad(`${show(raw)} is not a cookie path: ';' would end the attribute`) : uriPath(raw));

/** A rewrite target: an absolute path, optional query, with `$1`-`$9` capture references and nothing else after `$`. */
export const rewriteTarget: Parser<string> = (raw) => {
  const ok1 = raw.length <= 1024 && /^\/[A-Za-z0-9\-._~!&'()*+,;=:@/%?]*$/.test(raw.replace(/\$[1-9]/g, 'x'));
  return ok1 ? ok(raw) : bad(`${show(raw)} is not a rewrite target (an absolute path; '$' only as $1 to $9)`);
};

/** An absolute http(s) URL without variables, quotes, spaces or control characters. */
export const httpUrl: Parser<string> = (raw) => {
  const shape = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?([/?#][A-Za-z0-9\-._~!&'()*+,;=:@/%?#]*)?$/;
  if (raw.length > 2048 || !shape.test(raw)) return bad(`${show(raw)} is not an absolute http or https URL`);
  // WHATWG URL takes `invalid..auth.url`; a host with an empty label names nothing DNS can resolve.
  const host = /^https?:\/\/([^:/?#]+)/.exec(raw)?.[1] ?? '';
  if (host.split('.').some((label) => label === '')) return bad(`${show(raw)}: invalid url host (an empty label)`);
  try {
    new URL(raw);
  } catch {
    return bad(`${show(raw)} is not a valid URL`);
  }
  return ok(raw);
};

/**
 * A redirect target: an absolute http(s) URL, or a path on the same host with an optional query (nginx makes it
 * absolute unless absolute_redirect is off). A path may not start with `//`, which a client reads as another host.
 */
export const redirectUrl: Parser<string> = (raw) => {
  if (!raw.startsWith('/')) return httpUrl(raw);
  const shape = /^\/(?!\/)[A-Za-z0-9\-._~!&'()*+,;=:@/%]*(\?[A-Za-z0-9\-._~!&'()*+,;=:@/%?]*)?$/;
  return raw.length <= 2048 && shape.test(raw) ? ok(raw) : bad(`${show(raw)} is not an absolute http or https URL, nor a path starting with a single '/'`);
};

/** A header name token. */
export const headerName: Parser<string> = (raw) => (/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/.test(raw) ? ok(raw) : bad(`${show(raw)} is not a header name (letters, digits, '-')`));

/** A header value: printable ASCII, no `$` (nginx would expand it as a variable), at most 1024 characters. */
export const headerValue: Parser<string> = (raw) => (/^[\x20-\x23\x25-\x7e]{0,1024}$/.test(raw) ? ok(raw) : bad(`${show(raw)} is not a header value (printable ASCII without '$', at most 1024)`));

/**
 * One IPv4 or IPv6 address or CIDR, checked by node:net (no zone ids, prefix in range), at most 45 characters before
 * the prefix (an IPv6 address with a dotted IPv4 tail), exactly what render/escape.ts cidr() and nginx take.
 */
export const cidr: Parser<string> = (raw) => {
  const [addr = '', prefix, extra] = raw.split('/');
  const family = isIP(addr);
  const max = family === 4 ? 32 : 128;
  const okPrefix = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= max);
  const ok1 = family !== 0 && addr.length <= 45 && okPrefix && extra === undefined && !addr.includes('%');
  return ok1 ? ok(raw) : bad(`${show(raw)} is not an IP address or CIDR`);
};

/** `name` or `namespace/name` of an object; returns [namespace or '', name]. */
export const objectRef: Parser<readonly [string, string]> = (raw) => {
  const m = /^(([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\/)?([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?)$/.exec(raw);
  if (!m?.[4]) return bad(`${show(raw)} is not a name or namespace/name`);
  return ok([m[2] ?? '', m[4]] as const);
};

/** A Service name (DNS-1035 label). */
export const serviceName: Parser<string> = (raw) => (/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(raw) ? ok(raw) : bad(`${show(raw)} is not a Service name`));

/** A `~regex` entry of block-user-agents or block-referers compiles (backslash escapes such as `\/` are regex syntax there). */
export function tildeRegexCompiles(raw: string): boolean {
  if (!raw.startsWith('~')) return true;
  try {
    new RegExp(raw.replace(/^~\*?/, ''));
    return true;
  } catch {
    return false;
  }
}
