// A Kubernetes label selector in its string form (--watch-namespace-selector), for local mode, where no API server
// selects: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`, comma-separated and ANDed.

type Labels = Readonly<Record<string, string>>;
export type LabelMatcher = (labels: Labels) => boolean;

const KEY = '[A-Za-z0-9]([-A-Za-z0-9_./]{0,251}[A-Za-z0-9])?';
const VALUE = '([A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?)?';
const SET = new RegExp(`^(${KEY})\\s+(in|notin)\\s+\\(\\s*(${VALUE}(\\s*,\\s*${VALUE})*)\\s*\\)$`);
const EQUALS = new RegExp(`^(${KEY})\\s*(=|==|!=)\\s*(${VALUE})$`);
const EXISTS = new RegExp(`^(!?)\\s*(${KEY})$`);

/** Splits on the commas outside parentheses. */
function requirements(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '(') depth += 1;
    else if (text[i] === ')') depth -= 1;
    else if (text[i] === ',' && depth === 0) {
      out.push(text.slice(start, i).trim());
      start = i + 1;
    }
  }
  out.push(text.slice(start).trim());
  return out;
}

function requirement(r: string): LabelMatcher | undefined {
  const set = SET.exec(r);
  if (set) {
    const [key, op, list] = [set[1] ?? '', set[3], set[4] ?? ''];
    const values = new Set(list.split(',').map((v) => v.trim()));
    return op === 'in' ? (l) => l[key] !== undefined && values.has(l[key]) : (l) => l[key] === undefined || !values.has(l[key]);
  }
  const eq = EQUALS.exec(r);
  if (eq) {
    const [key, op, value] = [eq[1] ?? '', eq[3], eq[4] ?? ''];
    return op === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  const ex = EXISTS.exec(r);
  if (ex) {
    const [not, key] = [ex[1] === '!', ex[2] ?? ''];
    return (l) => (l[key] !== undefined) !== not;
  }
  return undefined;
}

/** The matcher of a selector string; throws naming the flag and the requirement it cannot read. */
export function parseLabelSelector(text: string, flag = '--watch-namespace-selector'): LabelMatcher {
  const matchers = requirements(text).map((r) => {
    const m = r === '' ? undefined : requirement(r);
    if (!m) throw new Error(`${flag}: ${JSON.stringify(r.slice(0, 80))} is not a label selector requirement (k=v, k!=v, k, !k, k in (a,b), k notin (a,b))`);
    return m;
  });
  return (labels) => matchers.every((m) => m(labels));
}
