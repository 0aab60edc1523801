// The one escaping helper: every value from a manifest reaches nginx.conf only through these functions.
import { UnsafeValueError } from '../errors.js';

// Control characters (including NUL, CR, LF, TAB and DEL) are never valid in a value nginx.conf carries.
 
const CONTROL = /[\u0000-\u001f\u007f]/;

function refuse(what: string, value: string): never {
  throw new UnsafeValueError(`refusing to render ${what} ${JSON.stringify(value.slice(0, 80))} into nginx.conf`);
}

/**
 * A double-quoted nginx string holding exactly `value`. Backslashes and quotes are escaped; control characters,
 * `$` (which nginx would expand as a variable) and values over 4096 characters are refused, because validation
 * upstream should already have turned them away: reaching here with one is a bug, never configuration.
 */
export function quote(value: string): string {
  if (CONTROL.test(value) || value.includes('$') || value.length > 4096) refuse('the string', value);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A quoted nginx string for contexts nginx never expands variables in (server_name regexes): `$` allowed. */
export function quoteLiteral(value: string): string {
  if (CONTROL.test(value) || value.length > 4096) refuse('the literal', value);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** An identifier of Portico's own making (zone, upstream and variable names). */
export function ident(value: string): string {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,250}$/.test(value)) refuse('the identifier', value);
  return value;
}

/** A non-negative integer. */
export function int(value: number): string {
  if (!Number.isSafeInteger(value) || value < 0) refuse('the number', String(value));
  return String(value);
}

/** An absolute file path of Portico's own (work dir, Lua dir), quoted. */
export function filePath(value: string): string {
  if (!value.startsWith('/')) refuse('the relative path', value);
  return quote(value);
}

/** The server_name for a model host: exact names quoted, `*.suffix` as a one-label regex, '_' as is. */
export function serverName(host: string): string {
  if (host === '_') return '_';
  if (!/^(\*\.)?[a-z0-9.-]+$/.test(host)) refuse('the host', host);
  if (host.startsWith('*.')) return quoteLiteral(`~^[^.]+${host.slice(1).replace(/\./g, '\\.')}$`);
  return quote(host);
}
