// The one escaping helper: every value from a manifest reaches nginx.conf only through these functions.
import { UnsafeValueError } from '../errors.js';
import { snippetRefusal } from '../model/snippets/refusal.js';

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

/** A log format: quoted; `$` only before a variable name (the ConfigMap parser allows known variables only). */
export function logFormat(value: string): string {
  if (/\$(?![A-Za-z_{])/.test(value)) refuse('the log format', value);
  return quoteLiteral(value);
}

/**
 * A quoted string whose `$` only starts a variable `allowed` accepts (`$name` or `${name}`, rendered `${name}` so no
 * following text extends the name); everything else is literal, backslashes and quotes escaped.
 */
export function quoteVars(value: string, allowed: RegExp): string {
  if (CONTROL.test(value) || value.length > 4096) refuse('the string', value);
  const parts = value.split(/\$(?:\{([^}]*)\}|([A-Za-z0-9_]*))/);
  let out = '';
  for (let i = 0; i < parts.length; i += 3) {
    out += quote(parts[i] ?? '').slice(1, -1);
    if (i + 1 >= parts.length) break;
    const name = parts[i + 1] ?? parts[i + 2] ?? '';
    if (!allowed.test(name) || !/^[a-z_][a-z0-9_]*$/.test(name)) refuse('the variable', name);
    out += `\${${name}}`;
  }
  return `"${out}"`;
}

/** An identifier of Portico's own making (zone, upstream and variable names). */
export function ident(value: string): string {
  if (!/^[A-Za-z0-9_][A-Za-z0-9_.-]{0,250}$/.test(value)) refuse('the identifier', value);
  return value;
}

/** A double-quoted Lua string literal (inside a *_by_lua_block) for a value of Portico's own, such as a path. */
export function luaString(value: string): string {
  if (CONTROL.test(value) || value.length > 4096) refuse('the Lua string', value);
  return `"${value.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
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

/**
 * A key of a `hostnames` map (the stream section's SNI maps): an exact name, or `*.` + name, which nginx matches for
 * one or more labels, as Gateway API wildcards do.
 */
export function sniHost(host: string): string {
  if (!/^(\*\.)?[a-z0-9][a-z0-9.-]*$/.test(host) || host.includes('..')) refuse('the host', host);
  return quote(host);
}

// Typed helpers for settings: each checks the shape it renders, so a value validation missed still never escapes.

/** An nginx size (`1m`, `8k`, `0`). */
export function size(value: string): string {
  if (!/^\d{1,9}[kmg]?$/.test(value)) refuse('the size', value);
  return value;
}

/** A duration in whole seconds (`60s`). */
export function seconds(value: number): string {
  return `${int(value)}s`;
}

export function onOff(value: boolean): string {
  return value ? 'on' : 'off';
}

/** One of a fixed set of bare words (enums of the table). */
export function word<T extends string>(value: T, allowed: readonly T[]): T {
  if (!allowed.includes(value) || !/^[A-Za-z0-9_.-]+$/.test(value)) refuse('the word', value);
  return value;
}

/** One parameter of access_log (access-log-params): buffer=SIZE, flush=TIME or gzip[=LEVEL], bare. */
export function logParam(value: string): string {
  if (!/^(buffer=\d{1,6}[km]?|flush=\d{1,6}[smh]?|gzip(=[1-9])?)$/.test(value)) refuse('the access log parameter', value);
  return value;
}

/** A header name token, bare. */
export function headerName(value: string): string {
  if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/.test(value)) refuse('the header name', value);
  return value;
}

/** A regular expression (location `~*`, rewrite): quoted; nginx never expands variables there, so `$` is an anchor. */
export function regex(value: string): string {
  if (/\s/.test(value) || value.length > 1024) refuse('the regex', value);
  return quoteLiteral(value);
}

/** A rewrite replacement: quoted, `$` only as a capture reference `$1`-`$9`. */
export function rewriteReplacement(value: string): string {
  if (CONTROL.test(value) || /\$(?![1-9])/.test(value) || value.length > 1024) refuse('the rewrite target', value);
  return quoteLiteral(value);
}

/** A quoted string made of a trusted prefix of Portico's own (which may use variables) and a user value (which may not). */
export function quoteAfter(trustedPrefix: string, value: string): string {
  return `"${trustedPrefix}${quote(value).slice(1)}`;
}

/** An IP address or CIDR, bare. */
export function cidr(value: string): string {
  if (!/^[0-9a-fA-F.:]{2,45}(\/\d{1,3})?$/.test(value)) refuse('the address', value);
  return value;
}

/**
 * The one raw path: a snippet an administrator allowed (--allow-snippet-annotations and a Critical risk level).
 * The annotation parser already refused what model/snippets/refusal.ts refuses; reaching here with such a snippet is a bug.
 */
export function snippet(text: string): string[] {
  if (snippetRefusal(text) !== undefined) refuse('the snippet', text);
  return text.split('\n');
}
