// nginx's configuration syntax read as ngx_conf_read_token (src/core/ngx_conf_file.c) reads it: words, quoted strings
// with their escapes, `;`, `{`, `}`, `#` comments; and statements built from them, with the line each starts on.

export interface Token {
  readonly kind: 'word' | 'string' | ';' | '{' | '}';
  /** The value nginx passes to the directive (escapes of quoted strings applied; a word keeps its backslashes). */
  readonly value: string;
  readonly line: number;
}

export interface Statement {
  readonly name: string;
  readonly args: readonly Token[];
  readonly block?: readonly Statement[];
  readonly line: number;
}

export class SnippetSyntaxError extends Error {
  constructor(
    message: string,
    readonly line: number,
  ) {
    super(`${message} at line ${line}`);
  }
}

const SPACE = new Set([' ', '\t', '\n']);

/** The escapes nginx applies inside quoted strings (and to words): \" \' \\ \t \r \n; others keep the backslash. */
function unescape(raw: string): string {
  return raw.replace(/\\(["'\\tnr])/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : c === 'r' ? '\r' : c));
}

/** A quoted string from the quote at `i`: [token, next index, line after it]. */
function quoted(text: string, i: number, line: number): [Token, number, number] {
  const q = text[i];
  let j = i + 1;
  let at = line;
  while (j < text.length && text[j] !== q) {
    if (text[j] === '\n') at += 1;
    j += text[j] === '\\' ? 2 : 1;
  }
  if (j >= text.length) throw new SnippetSyntaxError('a quoted string is not closed', line);
  const next = text[j + 1];
  if (next !== undefined && !SPACE.has(next) && next !== ';' && next !== '{' && next !== ')') throw new SnippetSyntaxError(`unexpected ${JSON.stringify(next)} after a quoted string`, at);
  return [{ kind: 'string', value: unescape(text.slice(i + 1, j)), line }, j + 1, at];
}

/** The end of the word starting at `i`: `;`, `{` or a space ends it; `\` makes the next character ordinary; `${` continues it. */
function wordEnd(text: string, i: number): number {
  let j = i;
  let variable = false;
  while (j < text.length) {
    const c = text[j] ?? '';
    if (c === '{' && variable) {
      j += 1;
      continue;
    }
    variable = c === '$';
    if (c === '\\') {
      j += 2;
      continue;
    }
    if (SPACE.has(c) || c === ';' || (c === '{' && !variable)) break;
    j += 1;
  }
  return Math.min(j, text.length);
}

/**
 * Tokens of `text`. Control characters other than tab and newline are refused (nginx reads CR as a separator, which
 * a reader of the snippet does not see). A quote opens a string only at the start of a token, as in nginx; after the
 * closing quote nginx wants a space, `;`, `{` or `)`. Inside a word `}` and `#` are ordinary characters, `\` makes the
 * next character ordinary, and `${` continues the word; `;`, `{` and spaces end it.
 */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  let line = 1;
  let i = 0;
  const bad = /[\u0000-\u0008\u000b-\u001f\u007f]/.exec(text);
  if (bad) throw new SnippetSyntaxError('a control character (only newline and tab are allowed)', text.slice(0, bad.index).split('\n').length);
  while (i < text.length) {
    const ch = text[i] ?? '';
    if (SPACE.has(ch)) {
      if (ch === '\n') line += 1;
      i += 1;
      continue;
    }
    if (ch === '#') {
      while (i < text.length && text[i] !== '\n') i += 1;
      continue;
    }
    if (ch === ';' || ch === '{' || ch === '}') {
      out.push({ kind: ch, value: ch, line });
      i += 1;
      continue;
    }
    if (ch === '"' || ch === "'") {
      const [t, next, at] = quoted(text, i, line);
      out.push(t);
      [i, line] = [next, at];
      continue;
    }
    const end = wordEnd(text, i);
    out.push({ kind: 'word', value: unescape(text.slice(i, end)), line });
    i = end;
  }
  return out;
}

/** Statements of a token list: `name args ;` or `name args { statements }`; a `}` closes only a block it opened. */
export function statements(tokens: readonly Token[]): Statement[] {
  let k = 0;
  const read = (depth: number): Statement[] => {
    const list: Statement[] = [];
    while (k < tokens.length) {
      const t = tokens[k];
      if (!t) break;
      if (t.kind === '}') {
        if (depth === 0) throw new SnippetSyntaxError('"}" closes a block the snippet did not open', t.line);
        k += 1;
        return list;
      }
      if (t.kind !== 'word') throw new SnippetSyntaxError(`${JSON.stringify(t.value)} where a directive name belongs`, t.line);
      const args: Token[] = [];
      k += 1;
      while (k < tokens.length && (tokens[k]?.kind === 'word' || tokens[k]?.kind === 'string')) {
        args.push(tokens[k] as Token);
        k += 1;
      }
      const end = tokens[k];
      if (end === undefined) throw new SnippetSyntaxError(`directive ${t.value} is not ended by ";" (it would swallow the next line Portico writes)`, t.line);
      k += 1;
      if (end.kind === ';') {
        list.push({ name: t.value, args, line: t.line });
        continue;
      }
      if (end.kind !== '{') throw new SnippetSyntaxError(`unexpected "}" in directive ${t.value}`, end.line);
      const block = read(depth + 1);
      if (tokens[k - 1]?.kind !== '}') throw new SnippetSyntaxError(`the block of ${t.value} is not closed`, t.line);
      list.push({ name: t.value, args, block, line: t.line });
    }
    if (depth > 0) throw new SnippetSyntaxError('a block is not closed', tokens.at(-1)?.line ?? 1);
    return list;
  };
  return read(0);
}
