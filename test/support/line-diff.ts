// A readable line diff for whole-file comparisons: the changed lines with 3 lines of context, numbered like `diff -u`.

type Op = { kind: ' ' | '-' | '+'; text: string; a: number; b: number };

/** The edit script between two line lists (longest common subsequence; the lines of one nginx.conf are few thousand at most). */
function script(a: readonly string[], b: readonly string[]): Op[] {
  // Common head and tail first: a golden usually changes in one place, so the table stays small.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head += 1;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail += 1;
  const x = a.slice(head, a.length - tail);
  const y = b.slice(head, b.length - tail);
  const lcs: Uint32Array[] = Array.from({ length: x.length + 1 }, () => new Uint32Array(y.length + 1));
  for (let i = x.length - 1; i >= 0; i--) {
    for (let j = y.length - 1; j >= 0; j--) lcs[i]![j] = x[i] === y[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const ops: Op[] = a.slice(0, head).map((text, k) => ({ kind: ' ', text, a: k, b: k }));
  let i = 0;
  let j = 0;
  while (i < x.length || j < y.length) {
    if (i < x.length && j < y.length && x[i] === y[j]) {
      ops.push({ kind: ' ', text: x[i]!, a: head + i, b: head + j });
      i++;
      j++;
    } else if (i < x.length && (j === y.length || lcs[i + 1]![j]! >= lcs[i]![j + 1]!)) {
      ops.push({ kind: '-', text: x[i]!, a: head + i, b: head + j });
      i++;
    } else {
      ops.push({ kind: '+', text: y[j]!, a: head + i, b: head + j });
      j++;
    }
  }
  for (let k = 0; k < tail; k++) ops.push({ kind: ' ', text: a[a.length - tail + k]!, a: a.length - tail + k, b: b.length - tail + k });
  return ops;
}

/** `--- expected` / `+++ actual` hunks (at most `maxLines` lines of output), or '' when the texts are equal. */
export function lineDiff(expected: string, actual: string, maxLines = 200): string {
  if (expected === actual) return '';
  const ops = script(expected.split('\n'), actual.split('\n'));
  const keep = new Set<number>();
  ops.forEach((op, k) => {
    if (op.kind !== ' ') for (let c = Math.max(0, k - 3); c <= Math.min(ops.length - 1, k + 3); c++) keep.add(c);
  });
  const out = ['--- expected', '+++ actual'];
  let last = -2;
  for (const k of [...keep].sort((p, q) => p - q)) {
    const op = ops[k]!;
    if (k !== last + 1) out.push(`@@ expected line ${op.a + 1}, actual line ${op.b + 1} @@`);
    out.push(`${op.kind}${op.text}`);
    last = k;
  }
  return out.length > maxLines ? [...out.slice(0, maxLines), `... ${out.length - maxLines} more diff lines`].join('\n') : out.join('\n');
}
