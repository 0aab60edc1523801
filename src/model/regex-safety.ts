// Regular expressions from tenants: refuses the shapes that backtrack exponentially (star height > 1, ambiguous alternation under a repeat).

/** A set of first characters: ASCII 0-127, and 128 for every other character. */
type Chars = Uint8Array;

interface Quant {
  readonly min: number;
  readonly max: number;
}
type Node = { readonly kind: 'atom'; readonly first: Chars; readonly q: Quant | undefined } | { readonly kind: 'group'; readonly alts: Node[][]; readonly q: Quant | undefined; readonly text: string };

const ALL: Chars = new Uint8Array(129).fill(1);

function chars(codes: Iterable<number>): Chars {
  const set = new Uint8Array(129);
  for (const c of codes) {
    set[c < 128 ? c : 128] = 1;
    // Folded: use-regex paths match case-insensitively (`~*`); for case-sensitive patterns this only refuses more.
    if (c >= 65 && c <= 90) set[c + 32] = 1;
    if (c >= 97 && c <= 122) set[c - 32] = 1;
  }
  return set;
}

const range = (a: number, b: number): number[] => Array.from({ length: b - a + 1 }, (_, i) => a + i);
const DIGITS = range(48, 57);
const WORD = [...DIGITS, ...range(65, 90), ...range(97, 122), 95];
const SPACE = [9, 10, 11, 12, 13, 32];

/** First characters of an escape `\x` (after the backslash); the negated classes are taken as anything. */
function escapeChars(c: string): Chars {
  if (c === 'd') return chars(DIGITS);
  if (c === 'w') return chars(WORD);
  if (c === 's') return chars(SPACE);
  if (c === 'n') return chars([10]);
  if (c === 't') return chars([9]);
  if (/[DWSbB]/.test(c)) return ALL;
  return chars([c.charCodeAt(0)]);
}

/** A bracket class starting at `i` ('['): its characters and the index after its ']'. Negated: anything. */
function bracket(re: string, i: number): [Chars, number] {
  let j = i + 1;
  const negated = re[j] === '^';
  if (negated) j++;
  const codes: number[] = [];
  let out: Chars | undefined;
  for (let first = true; j < re.length && (first || re[j] !== ']'); first = false) {
    const code = re.charCodeAt(j);
    if (re[j] === '\\') {
      const e = escapeChars(re[j + 1] ?? '\\');
      out = out ? union(out, e) : e;
      j += 2;
      continue;
    }
    j++;
    if (re[j] === '-' && re[j + 1] !== undefined && re[j + 1] !== ']' && re[j + 1] !== '\\') {
      codes.push(...range(code, Math.max(code, re.charCodeAt(j + 1))));
      j += 2;
      continue;
    }
    codes.push(code);
  }
  const set = out ? union(out, chars(codes)) : chars(codes);
  return [negated ? ALL : set, j + 1];
}

function union(a: Chars, b: Chars): Chars {
  return a.map((x, k) => x | (b[k] ?? 0));
}

/** The quantifier at `i`, if any, and the index after it (a lazy `?` or possessive `+` suffix included). */
function quantifier(re: string, i: number): [Quant | undefined, number] {
  const c = re[i];
  let q: Quant | undefined;
  let end = i + 1;
  if (c === '*') q = { min: 0, max: Infinity };
  else if (c === '+') q = { min: 1, max: Infinity };
  else if (c === '?') q = { min: 0, max: 1 };
  else if (c === '{') {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(re.slice(i));
    if (!m) return [undefined, i];
    const min = Number(m[1]);
    q = { min, max: m[2] === undefined ? min : m[3] === '' ? Infinity : Number(m[3]) };
    end = i + m[0].length;
  }
  if (!q) return [undefined, i];
  return [q, re[end] === '?' || re[end] === '+' ? end + 1 : end];
}

/** The index where the body of the group opened at `i` starts: after `(`, `(?:`, `(?=`, `(?<=`, `(?<name>`, `(?i:`. */
function groupBody(re: string, i: number): number {
  if (re[i + 1] !== '?') return i + 1;
  const rest = re.slice(i + 2);
  const named = /^P?<(?![=!])[^>]*>/.exec(rest);
  const other = named ?? /^(?:<[=!]|[:=!>|]|[a-zA-Z-]*:?)/.exec(rest);
  return i + 2 + (other?.[0].length ?? 0);
}

/** Parses alternatives from `i` up to the ')' closing the group (or the end): the alternatives and the index of that ')'. */
function parse(re: string, i: number): [Node[][], number] {
  const alts: Node[][] = [[]];
  while (i < re.length && re[i] !== ')') {
    const start = i;
    const c = re[i] ?? '';
    if (c === '|') {
      alts.push([]);
      i++;
      continue;
    }
    let atom: Chars | Node[][];
    if (c === '(') {
      i = groupBody(re, i);
      if (re[i] === ')' && re[i - 1] !== '(') {
        i++;
        continue;
      } // an option setting like (?i): no group
      const [inner, close] = parse(re, i);
      atom = inner;
      i = close + 1;
    } else if (c === '[') {
      [atom, i] = bracket(re, i);
    } else if (c === '\\') {
      atom = escapeChars(re[i + 1] ?? '\\');
      i += 2;
    } else {
      atom = c === '.' || c === '^' || c === '$' ? ALL : chars([c.charCodeAt(0)]);
      i++;
    }
    const [q, after] = quantifier(re, i);
    i = after;
    alts[alts.length - 1]?.push(atom instanceof Uint8Array ? { kind: 'atom', first: atom, q } : { kind: 'group', alts: atom, q, text: re.slice(start, i) });
  }
  return [alts, i];
}

/** Characters an alternative can start with; anything when it can start empty (conservative). */
function firstOf(alt: readonly Node[]): Chars {
  const head = alt[0];
  if (!head || (head.q && head.q.min === 0)) return ALL;
  return head.kind === 'atom' ? head.first : head.alts.map(firstOf).reduce(union, new Uint8Array(129));
}

const repeats = (q: Quant | undefined): boolean => q !== undefined && q.max > 1;
const varies = (q: Quant | undefined): boolean => q !== undefined && q.max > 1 && q.max > q.min;
const show = (text: string): string => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

function hasVarying(alts: readonly (readonly Node[])[]): boolean {
  return alts.some((alt) => alt.some((n) => varies(n.q) || (n.kind === 'group' && hasVarying(n.alts))));
}

function overlap(alts: readonly (readonly Node[])[]): number | undefined {
  const firsts = alts.map(firstOf);
  for (let a = 0; a < firsts.length; a++) {
    for (let b = a + 1; b < firsts.length; b++) {
      const k = firsts[a]?.findIndex((x, c) => x === 1 && firsts[b]?.[c] === 1) ?? -1;
      if (k >= 0) return k;
    }
  }
  return undefined;
}

function check(alts: readonly (readonly Node[])[], underRepeat: boolean): string | undefined {
  for (const n of alts.flat()) {
    if (n.kind !== 'group') continue;
    const repeated = repeats(n.q);
    if (repeated && hasVarying(n.alts)) {
      return `nested quantifier in ${show(n.text)}: a repeated group that holds a repeat (star height 2) can backtrack exponentially; repeat one level only (for (a+)+ write a+, for (ab+)* write (ab)* or a+b*)`;
    }
    const k = n.alts.length > 1 && (underRepeat || repeated) ? overlap(n.alts) : undefined;
    if (k !== undefined) {
      const c = k < 128 && k > 32 ? ` (${JSON.stringify(String.fromCharCode(k).toLowerCase())})` : '';
      return `alternatives in ${show(n.text)} under a repeat can start with the same character${c}, which can backtrack exponentially; make each alternative start differently (for (a|ab)* write (ab?)*)`;
    }
    const inner = check(n.alts, underRepeat || repeated);
    if (inner) return inner;
  }
  return undefined;
}

/**
 * Undefined when `re` has no shape known to backtrack exponentially, else what to write instead. Refused: a group
 * repeated by `*`, `+`, `{n}`/`{n,}`/`{n,m}` (more than once) that holds a varying repeat (`*`, `+`, `{n,}`, `{n,m}`
 * with m > n) at any depth, e.g. `(a+)+`, `(a*)*`, `(.*a){20}`, `((ab)*)+`, `(x+x+)+y`; and, inside or on a repeated
 * group, alternatives that can start with the same character (letters folded; an alternative that can start empty,
 * with `.`, a negated class or an assertion counts as any character), e.g. `(a|a)*`, `(a|ab)+`. Not caught: `?`
 * inside a repeat (`(a?a)+`); nginx's PCRE match limit and Lua's lua_regex_match_limit bound those at run time.
 */
export function regexSafety(re: string): string | undefined {
  for (let i = 0; i < re.length; i++) {
    // a stray ')' ends a parse: the rest is checked on its own (the compile check refuses it anyway)
    const [alts, end] = parse(re, i);
    const reason = check(alts, false);
    if (reason) return reason;
    i = end;
  }
  return undefined;
}
