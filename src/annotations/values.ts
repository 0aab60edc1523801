// Pure value parsers shared by annotations and ConfigMap keys: strict syntax, or the reason it was refused.
import type { Size } from '../model/settings.js';

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
  const m = /^(\d{1,7})([kKmM]?)$/.exec(raw);
  const unit = (m?.[2] ?? '').toLowerCase();
  const bytes = m ? Number(m[1]) * (unit === 'm' ? 1048576 : unit === 'k' ? 1024 : 1) : Infinity;
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
export const errorCodes: Parser<number[]> = list(int(400, 599), /\s*,\s*/);

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

/** A rewrite target: an absolute path, optional query, with `$1`-`$9` capture references and nothing else after `$`. */
export const rewriteTarget: Parser<string> = (raw) => {
  const ok1 = raw.length <= 1024 && /^\/[A-Za-z0-9\-._~!&'()*+,;=:@/%?]*$/.test(raw.replace(/\$[1-9]/g, 'x'));
  return ok1 ? ok(raw) : bad(`${show(raw)} is not a rewrite target (an absolute path; '$' only as $1 to $9)`);
};

/** An absolute http(s) URL without variables, quotes, spaces or control characters. */
export const httpUrl: Parser<string> = (raw) => {
  const shape = /^https?:\/\/[A-Za-z0-9.-]+(:\d{1,5})?([/?#][A-Za-z0-9\-._~!&'()*+,;=:@/%?#]*)?$/;
  if (raw.length > 2048 || !shape.test(raw)) return bad(`${show(raw)} is not an absolute http or https URL`);
  try {
    new URL(raw);
  } catch {
    return bad(`${show(raw)} is not a valid URL`);
  }
  return ok(raw);
};

/** A header name token. */
export const headerName: Parser<string> = (raw) =>
  (/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/.test(raw) ? ok(raw) : bad(`${show(raw)} is not a header name (letters, digits, '-')`));

/** A header value: printable ASCII, no `$` (nginx would expand it as a variable), at most 1024 characters. */
export const headerValue: Parser<string> = (raw) =>
  (/^[\x20-\x23\x25-\x7e]{0,1024}$/.test(raw) ? ok(raw) : bad(`${show(raw)} is not a header value (printable ASCII without '$', at most 1024)`));

/** An IPv4 or IPv6 address or CIDR. */
export const cidr: Parser<string> = (raw) => {
  const v4 = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\/(3[0-2]|[12]?\d))?$/;
  const v6 = /^[0-9a-fA-F:]{2,39}(\/(12[0-8]|1[01]\d|[1-9]?\d))?$/;
  return v4.test(raw) || (v6.test(raw) && raw.includes(':')) ? ok(raw) : bad(`${show(raw)} is not an IP address or CIDR`);
};

/** `name` or `namespace/name` of an object; returns [namespace or '', name]. */
export const objectRef: Parser<readonly [string, string]> = (raw) => {
  const m = /^(([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\/)?([a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?)$/.exec(raw);
  if (!m?.[4]) return bad(`${show(raw)} is not a name or namespace/name`);
  return ok([m[2] ?? '', m[4]] as const);
};

/** A Service name (DNS-1035 label). */
export const serviceName: Parser<string> = (raw) =>
  (/^[a-z]([-a-z0-9]{0,61}[a-z0-9])?$/.test(raw) ? ok(raw) : bad(`${show(raw)} is not a Service name`));
