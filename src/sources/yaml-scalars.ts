// The scalars of yaml-fast.ts: plain ones resolved as the yaml library's YAML 1.2 core schema resolves them, quoted
// ones that close on their line, and one-line flow collections; anything else throws UNSUPPORTED (the library reads it).

/** Thrown where the text leaves the subset: the file goes to the yaml library. */
export const UNSUPPORTED = Symbol('unsupported');
export function unsupported(): never {
  // A symbol, not an Error: no stack is captured, and nothing outside this module catches it.
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  throw UNSUPPORTED;
}

/** First characters that make a plain scalar or key something else (YAML's indicators), or that this reader leaves to the library. */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;

/** Whether a plain scalar or key cannot start `t`: an indicator, except `-` before a non-space (`-v`, `-1`). */
export const blocked = (t: string): boolean => INDICATOR.test(t) && !(t.charCodeAt(0) === 45 && t.length > 1 && t.charCodeAt(1) !== 32);

/** A scalar value on one line (comment allowed after it). */
export function scalar(rest: string): unknown {
  const c = rest.charCodeAt(0);
  if (c === 34 || c === 39) {
    const s = quoted(rest);
    if (s === undefined || !endsLine(rest, s.end)) unsupported();
    return s.value;
  }
  if (c === 91 || c === 123) {
    const f = new FlowParser(rest);
    const v = f.collection();
    if (!endsLine(rest, f.at)) unsupported();
    return v;
  }
  if (blocked(rest)) unsupported();
  const hash = rest.indexOf(' #');
  const v = (hash === -1 ? rest : rest.slice(0, hash)).trimEnd();
  if (v.includes(': ') || v.endsWith(':')) unsupported();
  return resolvePlain(v);
}

/**
 * A flow collection that closes on its line (`{name: a, port: 80}`, `["", apps]`): entries are plain or quoted
 * scalars and nested flow collections, a map's keys plain or quoted strings followed by `: `. Entries without a
 * value, pairs in a sequence, trailing commas and anything multi-line go to the library.
 */
class FlowParser {
  at = 0;
  constructor(private readonly t: string) {}

  private spaces(): void {
    while (this.t.charCodeAt(this.at) === 32) this.at++;
  }

  collection(): unknown {
    const open = this.t.charCodeAt(this.at);
    const close = open === 91 ? 93 : 125;
    const map: Record<string, unknown> = {};
    const list: unknown[] = [];
    this.at++;
    this.spaces();
    if (this.t.charCodeAt(this.at) === close) {
      this.at++;
      return open === 91 ? list : map;
    }
    for (;;) {
      if (open === 91) list.push(this.entry(false));
      else {
        const key = this.entry(true);
        if (typeof key !== 'string' || key === '__proto__' || Object.hasOwn(map, key)) unsupported();
        if (this.t.charCodeAt(this.at) !== 58 || this.t.charCodeAt(this.at + 1) !== 32) unsupported();
        this.at += 2;
        this.spaces();
        map[key] = this.entry(false);
      }
      this.spaces();
      const sep = this.t.charCodeAt(this.at);
      this.at++;
      if (sep === close) return open === 91 ? list : map;
      if (sep !== 44) unsupported();
      this.spaces();
    }
  }

  /** One scalar or nested collection; a key stops before its `:`. */
  private entry(isKey: boolean): unknown {
    const c = this.t.charCodeAt(this.at);
    if (c === 91 || c === 123) {
      if (isKey) unsupported();
      return this.collection();
    }
    if (c === 34 || c === 39) {
      const s = quoted(this.t.slice(this.at));
      if (s === undefined) unsupported();
      this.at += s.end;
      this.spaces();
      return s.value;
    }
    // `-` starts a plain scalar only before a character that is neither a space nor a flow indicator
    if (INDICATOR.test(this.t.slice(this.at)) && !(c === 45 && /^-[^\s,[\]{}]/.test(this.t.slice(this.at)))) unsupported();
    const m = FLOW_PLAIN.exec(this.t.slice(this.at));
    const v = (m?.[0] ?? '').trimEnd();
    if (v === '' || v.includes(' #')) unsupported();
    this.at += m?.[0].length ?? 0;
    const next = this.t.charCodeAt(this.at);
    // a plain entry ends at `,` `]` `}`, or (a key) at `: `; a `:` anywhere else is the library's to read
    if (!(next === 44 || next === 93 || next === 125 || (isKey && next === 58 && this.t.charCodeAt(this.at + 1) === 32))) unsupported();
    const value = resolvePlain(v);
    if (isKey && value !== v) unsupported();
    return value;
  }
}

/** A flow plain scalar's text: up to a flow indicator or a `:` (it may hold `:` only before a character that is not one). */
const FLOW_PLAIN = /^(?:[^,[\]{}:#]|:(?=[^\s,[\]{}])|(?<! )#)*/;

/** Nothing but spaces, or spaces and a comment, from `at` to the end of the line. */
function endsLine(t: string, at: number): boolean {
  if (at === t.length) return true;
  if (t.charCodeAt(at) !== 32) return false;
  const r = t.slice(at).trimStart();
  return r === '' || r.startsWith('#');
}

const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', '0': '\0', b: '\b', f: '\f' };

const DOUBLE_QUOTED_STOP = /["\\]/g;

/** A quoted scalar that closes on this line: its value and the index after the closing quote. */
export function quoted(t: string): { value: string; end: number } | undefined {
  if (t.charCodeAt(0) === 39) {
    let value = '';
    let i = 1;
    for (;;) {
      const close = t.indexOf("'", i);
      if (close === -1) return undefined;
      value += t.slice(i, close);
      if (t.charCodeAt(close + 1) !== 39) return { value, end: close + 1 };
      value += "'";
      i = close + 2;
    }
  }
  let value = '';
  let i = 1;
  for (;;) {
    DOUBLE_QUOTED_STOP.lastIndex = i;
    const hit = DOUBLE_QUOTED_STOP.exec(t);
    if (hit === null) return undefined;
    value += t.slice(i, hit.index);
    if (hit[0] === '"') return { value, end: hit.index + 1 };
    const e = t[hit.index + 1] ?? '';
    const simple = ESCAPES[e];
    if (simple !== undefined) {
      value += simple;
      i = hit.index + 2;
      continue;
    }
    const width = e === 'x' ? 2 : e === 'u' ? 4 : 0;
    const hex = t.slice(hit.index + 2, hit.index + 2 + width);
    if (width === 0 || !new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) return undefined; // other escapes: the library
    value += String.fromCodePoint(parseInt(hex, 16));
    i = hit.index + 2 + width;
  }
}

/** A plain scalar's value in the YAML 1.2 core schema, tested in the order the yaml library tests its tags. */
export function resolvePlain(s: string): unknown {
  const c = s.charCodeAt(0);
  // most scalars start with a letter that no core tag matches, or with '/': a string
  if (!(c === 126 || c === 110 || c === 78 || c === 116 || c === 84 || c === 102 || c === 70 || c === 43 || c === 45 || c === 46 || (c >= 48 && c <= 57))) return s;
  if (/^(?:~|[Nn]ull|NULL)$/.test(s)) return null;
  if (/^(?:[Tt]rue|TRUE)$/.test(s)) return true;
  if (/^(?:[Ff]alse|FALSE)$/.test(s)) return false;
  if (/^0o[0-7]+$/.test(s)) return parseInt(s.substring(2), 8);
  if (/^[-+]?[0-9]+$/.test(s)) return parseInt(s, 10);
  if (/^0x[0-9a-fA-F]+$/.test(s)) return parseInt(s.substring(2), 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(s)) return s.slice(-3).toLowerCase() === 'nan' ? NaN : s.startsWith('-') ? -Infinity : Infinity;
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(s) || /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(s)) return parseFloat(s);
  return s;
}
