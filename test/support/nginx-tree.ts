// A small nginx.conf tokenizer and parser (as ngx_conf_file.c reads it), for comparing directive trees in tests.

export interface Directive {
  readonly name: string;
  readonly args: readonly string[];
  readonly block?: readonly Directive[];
  /** Raw text of a `*_by_lua_block { ... }` body. */
  readonly lua?: string;
}

type Token = { kind: 'word'; value: string } | { kind: ';' | '{' | '}' };

/** Reads one quoted string starting at `i` (the quote), with nginx's escapes; returns [value, next index]. */
function quoted(text: string, i: number): [string, number] {
  const q = text[i];
  let out = '';
  let j = i + 1;
  while (j < text.length && text[j] !== q) {
    if (text[j] === '\\' && j + 1 < text.length) {
      const n = text[j + 1]!;
      out += n === q || n === '\\' ? n : n === 'n' ? '\n' : n === 't' ? '\t' : n === 'r' ? '\r' : `\\${n}`;
      j += 2;
      continue;
    }
    out += text[j] ?? '';
    j += 1;
  }
  if (j >= text.length) throw new Error(`unterminated quote at ${i}`);
  return [out, j + 1];
}

function luaBody(text: string, i: number): [string, number] {
  let depth = 0;
  let j = i;
  for (; j < text.length; j++) {
    const ch = text[j];
    if (ch === '"' || ch === "'") {
      j = quoted(text, j)[1] - 1;
      continue;
    }
    if (ch === '{') depth += 1;
    if (ch === '}') {
      depth -= 1;
      if (depth === 0) break;
    }
  }
  return [text.slice(i + 1, j).trim(), j + 1];
}

/** Parses nginx.conf text into a directive tree; throws on anything nginx would reject syntactically. */
export function parseNginx(text: string): Directive[] {
  let i = 0;
  const next = (): Token | undefined => {
    while (i < text.length) {
      const ch = text[i]!;
      if (/\s/.test(ch)) {
        i += 1;
        continue;
      }
      if (ch === '#') {
        while (i < text.length && text[i] !== '\n') i += 1;
        continue;
      }
      if (ch === ';' || ch === '{' || ch === '}') {
        i += 1;
        return { kind: ch };
      }
      if (ch === '"' || ch === "'") {
        const [value, j] = quoted(text, i);
        i = j;
        return { kind: 'word', value };
      }
      let j = i;
      while (j < text.length && !/[\s;{}]/.test(text[j]!)) j += 1;
      const value = text.slice(i, j);
      i = j;
      return { kind: 'word', value };
    }
    return undefined;
  };
  const block = (nested: boolean): Directive[] => {
    const out: Directive[] = [];
    let words: string[] = [];
    for (;;) {
      const t = next();
      if (!t) {
        if (nested || words.length > 0) throw new Error('unexpected end of file');
        return out;
      }
      if (t.kind === 'word') {
        words.push(t.value);
        continue;
      }
      if (t.kind === '}') {
        if (!nested || words.length > 0) throw new Error(`unexpected } at ${i}`);
        return out;
      }
      const [name, ...args] = words;
      if (name === undefined) throw new Error(`empty directive at ${i}`);
      words = [];
      if (t.kind === ';') {
        out.push({ name, args });
        continue;
      }
      if (name.endsWith('_by_lua_block')) {
        const [lua, j] = luaBody(text, i - 1);
        i = j;
        out.push({ name, args, lua });
        continue;
      }
      out.push({ name, args, block: block(true) });
    }
  };
  return block(false);
}

/** Every directive with its path of parent block names, depth first. */
export function walk(tree: readonly Directive[], parents: readonly string[] = []): { d: Directive; path: readonly string[] }[] {
  return tree.flatMap((d) => [{ d, path: parents }, ...(d.block ? walk(d.block, [...parents, d.name]) : [])]);
}
