// Checks a snippet under --snippet-mode: parsed by src/model/snippets/tokenize.ts; `safe` applies the allowlist, `any` only
// the structure (complete statements, balanced blocks, none of Portico's variables), `refuse` takes none.
import { ALLOWED, assignmentRefusal, variableRefusal, type Context } from './allowlist.js';
import { SnippetSyntaxError, statements, tokenize, type Statement } from './tokenize.js';

export type SnippetMode = 'refuse' | 'safe' | 'any';
const SNIPPET_MAX = 65_536;

const refused = (why: string): string => `snippet refused: ${why}`;

/** `$name` and `${name}` read by one argument. */
function variablesOf(value: string): string[] {
  return [...value.matchAll(/\$(?:\{([A-Za-z0-9_]*)\}|([A-Za-z0-9_]+))/g)].map((m) => m[1] ?? m[2] ?? '');
}

function checkMap(s: Statement, own: Set<string>): string | undefined {
  for (const entry of s.block ?? []) {
    if (entry.block || entry.args.length !== 1 || ['include', 'hostnames', 'volatile'].includes(entry.name)) {
      return `line ${entry.line}: a map entry is "key value;" (${entry.name} is not one)`;
    }
    for (const v of [entry.name, ...entry.args.map((a) => a.value)].flatMap(variablesOf)) {
      const why = variableRefusal(v, own);
      if (why) return `line ${entry.line}: ${why}`;
    }
  }
  return undefined;
}

/** Walks the statements in `context` against the allowlist; the first refusal, with the directive and its line. */
function walk(list: readonly Statement[], context: Context, own: Set<string>): string | undefined {
  for (const s of list) {
    const rule = ALLOWED[s.name];
    if (!rule) return `directive ${s.name} at line ${s.line} is not on the allowlist of safe snippets (docs/adr/0012)`;
    if (!rule.contexts.includes(context)) return `directive ${s.name} at line ${s.line} is not allowed in ${context === 'if' ? 'an if block' : `a ${context} snippet`}`;
    if ((rule.block !== undefined) !== (s.block !== undefined)) return `directive ${s.name} at line ${s.line} ${s.block ? 'takes no block' : 'needs a block'}`;
    const args = s.args.map((a) => a.value);
    const bad = rule.check(args);
    if (bad) return `directive ${s.name} at line ${s.line}: ${bad}`;
    const target = s.name === 'set' ? 0 : s.name === 'map' ? 1 : -1;
    for (const [i, a] of args.entries()) {
      for (const v of variablesOf(a)) {
        const why = i === target ? assignmentRefusal(v) : variableRefusal(v, own);
        if (why) return `directive ${s.name} at line ${s.line}: ${why}`;
      }
    }
    if (target >= 0) own.add((args[target] ?? '').slice(1));
    const inner = rule.block === 'map' ? checkMap(s, own) : s.block ? walk(s.block, 'if', own) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

/** Structure only (`any`): Portico's own variables stay out, whatever the directive. */
function portico(list: readonly Statement[]): string | undefined {
  for (const s of list) {
    const hit = [s.name, ...s.args.map((a) => a.value)].flatMap(variablesOf).find((v) => /^portico_/i.test(v));
    if (hit !== undefined) return `directive ${s.name} at line ${s.line}: $${hit} is Portico's own (it picks the backend and the log line)`;
    const inner = s.block ? portico(s.block) : undefined;
    if (inner) return inner;
  }
  return undefined;
}

/** Pure: why `text` may not be placed in `context` under `mode`, or undefined when it may. */
export function snippetRefusal(text: string, mode: SnippetMode = 'safe', context: Context = 'location'): string | undefined {
  if (mode === 'refuse') return refused('--snippet-mode=refuse takes no snippets');
  if (text.length > SNIPPET_MAX) return refused(`it is longer than ${SNIPPET_MAX} characters`);
  let parsed: Statement[];
  try {
    parsed = statements(tokenize(text));
  } catch (err) {
    if (err instanceof SnippetSyntaxError) return refused(err.message);
    throw err;
  }
  const why = mode === 'any' ? portico(parsed) : walk(parsed, context, new Set());
  return why === undefined ? undefined : refused(why);
}
