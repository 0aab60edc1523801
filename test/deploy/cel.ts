// Just enough CEL to evaluate the webhook's matchConditions (deploy/base/webhook.yaml) on sample Ingresses: string
// literals, identifiers, field selection, ['key'] indexing, has(), ==, !=, in, !, && and || with parentheses.
// Stricter than CEL: && and || evaluate left to right and an error on the side they read is an error (CEL would
// forgive `error || true`), so an expression that passes here cannot fail on the API server, where an error under
// failurePolicy Fail refuses the request.

type Value = string | boolean | Readonly<Record<string, unknown>> | undefined;

const TOKEN = /\s*(?:('(?:[^'\\]|\\.)*')|([A-Za-z_][A-Za-z0-9_]*)|(&&|\|\||==|!=|[().[\]!]))/y;

function tokenize(text: string): string[] {
  const out: string[] = [];
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < text.trimEnd().length) {
    const m = TOKEN.exec(text);
    if (!m) throw new Error(`CEL: cannot read ${JSON.stringify(text.slice(TOKEN.lastIndex, TOKEN.lastIndex + 20))}`);
    out.push(m[1] ?? m[2] ?? m[3] ?? '');
  }
  return out;
}

type Node =
  | { readonly k: 'lit'; readonly v: string }
  | { readonly k: 'var'; readonly name: string }
  | { readonly k: 'sel'; readonly of: Node; readonly name: string }
  | { readonly k: 'index'; readonly of: Node; readonly key: Node }
  | { readonly k: 'has'; readonly of: Extract<Node, { k: 'sel' }> }
  | { readonly k: 'not'; readonly of: Node }
  | { readonly k: '==' | '!=' | 'in' | '&&' | '||'; readonly l: Node; readonly r: Node };

function parse(expr: string): Node {
  const t = tokenize(expr);
  let i = 0;
  const peek = (): string | undefined => t[i];
  const eat = (want?: string): string => {
    const tok = t[i++];
    if (tok === undefined || (want !== undefined && tok !== want)) throw new Error(`CEL: expected ${want ?? 'a token'}, got ${tok ?? 'the end'}`);
    return tok;
  };
  const primary = (): Node => {
    const tok = eat();
    if (tok.startsWith("'")) return { k: 'lit', v: tok.slice(1, -1).replace(/\\(.)/g, '$1') };
    if (tok === '(') {
      const n = or();
      eat(')');
      return n;
    }
    if (tok === 'has' && peek() === '(') {
      eat('(');
      const of = primary();
      eat(')');
      if (of.k !== 'sel') throw new Error('CEL: has() takes a field selection');
      return { k: 'has', of };
    }
    let n: Node = { k: 'var', name: tok };
    while (peek() === '.' || peek() === '[') {
      if (eat() === '.') n = { k: 'sel', of: n, name: eat() };
      else {
        n = { k: 'index', of: n, key: or() };
        eat(']');
      }
    }
    return n;
  };
  const unary = (): Node => (peek() === '!' ? (eat(), { k: 'not', of: unary() }) : primary());
  const relation = (): Node => {
    const l = unary();
    const op = peek();
    if (op !== '==' && op !== '!=' && op !== 'in') return l;
    eat();
    return { k: op, l, r: unary() };
  };
  const chain = (op: '&&' | '||', next: () => Node) => (): Node => {
    let n = next();
    while (peek() === op) {
      eat();
      n = { k: op, l: n, r: next() };
    }
    return n;
  };
  const and = chain('&&', relation);
  const or = chain('||', and);
  const n = or();
  if (i !== t.length) throw new Error(`CEL: unexpected ${t[i] ?? ''}`);
  return n;
}

function field(base: Value, name: string): Value {
  if (typeof base !== 'object' || !(name in base)) throw new Error(`CEL: no such key: ${name}`);
  return base[name] as Value;
}

function evaluate(n: Node, vars: Readonly<Record<string, unknown>>): Value {
  const ev = (x: Node): Value => evaluate(x, vars);
  switch (n.k) {
    case 'lit':
      return n.v;
    case 'var':
      return field(vars, n.name);
    case 'sel':
      return field(ev(n.of), n.name);
    case 'index':
      return field(ev(n.of), String(ev(n.key)));
    case 'has': {
      const base = ev(n.of.of);
      return typeof base === 'object' && n.of.name in base;
    }
    case 'not':
      return !bool(ev(n.of));
    case 'in': {
      const [l, r] = [ev(n.l), ev(n.r)];
      return typeof r === 'object' && typeof l === 'string' && l in r;
    }
    case '==':
      return ev(n.l) === ev(n.r);
    case '!=':
      return ev(n.l) !== ev(n.r);
    case '&&':
      return bool(ev(n.l)) && bool(ev(n.r));
    case '||':
      return bool(ev(n.l)) || bool(ev(n.r));
  }
}

/** Evaluates `expr` with the variables of `vars` (e.g. { object }); throws where CEL would give an error. */
export function evalCel(expr: string, vars: Readonly<Record<string, unknown>>): boolean {
  return bool(evaluate(parse(expr), vars));
}

function bool(v: Value): boolean {
  if (typeof v !== 'boolean') throw new Error(`CEL: expected a bool, got ${JSON.stringify(v)}`);
  return v;
}
