// A fast reader for the YAML manifests are written in: block mappings and sequences (compact ones too), plain and
// one-line quoted scalars, literal block scalars (`|`, `|-`), one-line flow collections, comments, `---` between
// documents, with scalars resolved as the yaml library's YAML 1.2 core schema resolves them. The library took ~2.5 ms
// a manifest object (25 s for 10,000 Ingresses with their Services, slices and Secrets). Anything else (anchors,
// aliases, tags, folded and multi-line flow scalars, directives, tabs, CR line ends, duplicate keys) returns undefined
// and the caller parses the whole file with the library: its values, its errors and line numbers.

import { UNSUPPORTED, blocked, quoted, resolvePlain, scalar, unsupported } from './yaml-scalars.js';

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

const isSeqItem = (t: string): boolean => t === '-' || t.startsWith('- ');

/** The documents of `text`, or undefined when it leaves the subset. */
export function fastYamlDocuments(text: string): FastDocument[] | undefined {
  if (text.includes('\t') || text.includes('\r') || text.charCodeAt(0) === 0xfeff) return undefined;
  const docs: Line[][] = [[]];
  const raw = text.split('\n');
  for (let i = 0; i < raw.length; i++) {
    const s = raw[i] ?? '';
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
      const p = new DocParser(lines, raw);
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
  constructor(
    private readonly lines: Line[],
    /** The text's lines as they are (a block scalar reads its own, blank and comment lines included). */
    private readonly raw: readonly string[],
  ) {}

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
    if (rest.charCodeAt(0) === 124 /* | */) return this.literal(rest, indent);
    // a scalar; a more indented line below it would continue it (a multi-line scalar) or be an error
    if (next !== undefined && next.indent > indent) unsupported();
    return scalar(rest);
  }

  /**
   * A literal block scalar (`|` or `|-`) whose header is on the line just read, in a collection at `indent`: its
   * lines, less the indentation of the first, to the first non-empty line indented less. `|+`, indentation
   * indicators, whitespace-only lines longer than the indentation and a scalar that runs to the end of the text
   * without a line break go to the library.
   */
  private literal(header: string, indent: number): string {
    const m = /^\|(-?)(?: +#.*| *)$/.exec(header);
    const at = this.lines[this.pos - 1]?.no; // 1-based: raw[at] is the line after the header
    if (m === null || at === undefined) unsupported();
    const raw = this.raw;
    let contentIndent = -1;
    const body: string[] = [];
    let last = at; // the last raw index (0-based) that belongs to the scalar's content
    for (let i = at; i < raw.length; i++) {
      const s = raw[i] ?? '';
      let sp = 0;
      while (s.charCodeAt(sp) === 32) sp++;
      if (sp === s.length) {
        if (contentIndent !== -1 ? sp > contentIndent : sp > indent) unsupported();
        body.push('');
        continue;
      }
      if (contentIndent === -1) {
        if (sp <= indent) break;
        contentIndent = sp;
        if (body.some((b, k) => (raw[at + k] ?? '').length > contentIndent)) unsupported();
      } else if (sp < contentIndent) break;
      body.push(s.slice(contentIndent));
      last = i;
    }
    if (contentIndent === -1) return ''; // no content line: an empty scalar
    if (last === raw.length - 1) unsupported(); // no line break after the last line
    const lines = body.slice(0, last - at + 1);
    while (this.pos < this.lines.length && (this.lines[this.pos]?.no ?? 0) <= last + 1) this.pos++;
    return lines.join('\n') + (m[1] === '-' ? '' : '\n');
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
