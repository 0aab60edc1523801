// A fast reader for the YAML manifests are written in: block mappings and sequences (compact ones too), plain and
// one-line quoted scalars, empty `[]` and `{}`, comments, `---` between documents, the scalars resolved as the yaml
// library's YAML 1.2 core schema resolves them. The yaml library took ~2.5 ms a manifest object (25 s for 10,000
// Ingresses with their Services, slices and Secrets); this reads the same folder in a fraction of a second. Anything
// else (anchors, aliases, tags, flow collections, block and multi-line scalars, directives, tabs, duplicate keys)
// returns undefined and the caller parses the whole file with the yaml library: its values, errors and line numbers.

/** One document's value and the line (1-based) where its content starts, as the yaml library counts it. */
export interface FastDocument {
  readonly value: unknown;
  readonly line: number;
}

interface Line {
  readonly indent: number;
  /** The line after its indentation, comments not stripped. */
  readonly text: string;
  readonly no: number;
}

/** Thrown where the text leaves the subset: the file goes to the yaml library. */
const UNSUPPORTED = Symbol('unsupported');
function unsupported(): never {
  // A symbol, not an Error: no stack is captured, and nothing outside this module catches it.
  // eslint-disable-next-line @typescript-eslint/only-throw-error
  throw UNSUPPORTED;
}

/** First characters that make a plain scalar or key something else (YAML's indicators), or that this reader leaves to the library. */
const INDICATOR = /^[-?:,[\]{}#&*!|>'"%@`]/;

const isSeqItem = (t: string): boolean => t === '-' || t.startsWith('- ');

/** Whether a plain scalar or key cannot start `t`: an indicator, except `-` before a non-space (`-v`, `-1`). */
const blocked = (t: string): boolean => INDICATOR.test(t) && !(t.charCodeAt(0) === 45 && t.length > 1 && t.charCodeAt(1) !== 32);

/** The documents of `text`, or undefined when it leaves the subset. */
export function fastYamlDocuments(text: string): FastDocument[] | undefined {
  if (text.includes('\t') || text.charCodeAt(0) === 0xfeff) return undefined;
  const docs: Line[][] = [[]];
  const raw = text.split('\n');
  for (let i = 0; i < raw.length; i++) {
    let s = raw[i] ?? '';
    if (s.endsWith('\r')) s = s.slice(0, -1);
    if (s.includes('\r')) return undefined;
    let indent = 0;
    while (s.charCodeAt(indent) === 32) indent++;
    if (indent === s.length || s.charCodeAt(indent) === 35 /* # */) continue; // blank or comment
    if (indent === 0 && (s.startsWith('---') || s.startsWith('...') || s.startsWith('%'))) {
      if (!/^---\s*(?:#.*)?$/.test(s)) return undefined; // content after ---, a document end, a directive
      docs.push([]);
      continue;
    }
    docs[docs.length - 1]?.push({ indent, text: indent === 0 ? s : s.slice(indent), no: i + 1 });
  }
  try {
    const out: FastDocument[] = [];
    for (const lines of docs) {
      const first = lines[0];
      if (first === undefined) continue; // an empty document: null, which no caller keeps
      const p = new DocParser(lines);
      const value = p.node(first.indent);
      if (p.pos < lines.length) unsupported();
      out.push({ value, line: first.no });
    }
    return out;
  } catch (err) {
    if (err === UNSUPPORTED) return undefined;
    throw err;
  }
}

class DocParser {
  pos = 0;
  constructor(private readonly lines: Line[]) {}

  /** The block collection whose first line is lines[pos], at `indent`. */
  node(indent: number): unknown {
    const l = this.lines[this.pos];
    return l !== undefined && isSeqItem(l.text) ? this.seq(indent) : this.map(indent);
  }

  private map(indent: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (let l = this.lines[this.pos]; l !== undefined && l.indent >= indent; l = this.lines[this.pos]) {
      if (l.indent > indent) unsupported();
      const kv = splitKey(l.text);
      if (kv === undefined) unsupported();
      if (kv.key === '__proto__' || Object.hasOwn(out, kv.key)) unsupported();
      this.pos++;
      out[kv.key] = this.value(kv.rest, indent, true);
    }
    return out;
  }

  private seq(indent: number): unknown[] {
    const out: unknown[] = [];
    for (let l = this.lines[this.pos]; l !== undefined && l.indent >= indent; l = this.lines[this.pos]) {
      if (l.indent > indent || !isSeqItem(l.text)) {
        if (l.indent > indent) unsupported();
        break;
      }
      let j = 1;
      while (l.text.charCodeAt(j) === 32) j++;
      const rest = l.text.slice(j);
      if (rest !== '' && !rest.startsWith('#') && (isSeqItem(rest) || splitKey(rest) !== undefined)) {
        // a compact collection: the rest of the line opens a block at its own column
        this.lines[this.pos] = { indent: indent + j, text: rest, no: l.no };
        out.push(this.node(indent + j));
        continue;
      }
      this.pos++;
      out.push(this.value(rest, indent, false));
    }
    return out;
  }

  /** The value after `key:` or `-` on a line at `indent`: a scalar there, or the block on the lines below. */
  private value(rest: string, indent: number, inMap: boolean): unknown {
    const next = this.lines[this.pos];
    if (rest === '' || rest.startsWith('#')) {
      if (next !== undefined && (next.indent > indent || (inMap && next.indent === indent && isSeqItem(next.text)))) return this.node(next.indent);
      return null;
    }
    // a scalar; a more indented line below it would continue it (a multi-line scalar) or be an error
    if (next !== undefined && next.indent > indent) unsupported();
    return scalar(rest);
  }
}

/** `key: rest` (rest without its leading spaces), or undefined when the line is not a simple key. */
function splitKey(t: string): { key: string; rest: string } | undefined {
  let key: string;
  let after: number;
  const q = t.charCodeAt(0);
  if (q === 34 || q === 39) {
    const s = quoted(t);
    if (s === undefined || t.charCodeAt(s.end) !== 58 /* : */) return undefined;
    key = s.value;
    after = s.end + 1;
  } else {
    if (blocked(t)) return undefined;
    const colon = t.endsWith(':') && !t.includes(': ') ? t.length - 1 : t.indexOf(': ');
    if (colon <= 0) return undefined;
    const hash = t.indexOf(' #');
    if (hash !== -1 && hash < colon) return undefined;
    key = t.slice(0, colon);
    if (key.endsWith(' ') || resolvePlain(key) !== key) return undefined; // `a :`, or a key that is not a string
    after = colon + 1;
  }
  if (after < t.length && t.charCodeAt(after) !== 32) return undefined;
  let j = after;
  while (t.charCodeAt(j) === 32) j++;
  return { key, rest: t.slice(j) };
}

/** A scalar value on one line (comment allowed after it). */
function scalar(rest: string): unknown {
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
function quoted(t: string): { value: string; end: number } | undefined {
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
