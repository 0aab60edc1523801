// The ```console blocks of one section of a Markdown document: each `$ command` with the output shown under it, and
// the same document with other outputs written in (for UPDATE_FIXTURES=1).

export interface Step {
  readonly command: string;
  readonly output: readonly string[];
}

interface Block {
  /** Line numbers (0-based) of the block's first and last content lines, exclusive of the fences. */
  readonly from: number;
  readonly to: number;
  readonly steps: Step[];
}

/** The lines of `text` from the heading that starts with `heading` to the next heading of the same level. */
function sectionRange(lines: readonly string[], heading: string): [number, number] {
  const start = lines.findIndex((l) => l.startsWith(heading));
  if (start < 0) throw new Error(`no section ${JSON.stringify(heading)}`);
  const level = /^#+/.exec(heading)?.[0] ?? '##';
  const next = lines.findIndex((l, i) => i > start && l.startsWith(`${level} `));
  return [start, next < 0 ? lines.length : next];
}

function blocks(lines: readonly string[], heading: string): Block[] {
  const [start, end] = sectionRange(lines, heading);
  const out: Block[] = [];
  for (let i = start; i < end; i++) {
    if (lines[i] !== '```console') continue;
    const close = lines.findIndex((l, j) => j > i && l === '```');
    if (close < 0 || close > end) throw new Error(`unclosed console block at line ${i + 1}`);
    const steps: Step[] = [];
    for (const line of lines.slice(i + 1, close)) {
      if (line.startsWith('$ ')) steps.push({ command: line.slice(2), output: [] });
      else if (steps.length > 0) (steps.at(-1)?.output as string[]).push(line);
      else throw new Error(`output before any command at line ${i + 2}`);
    }
    out.push({ from: i + 1, to: close, steps });
    i = close;
  }
  return out;
}

/** Every step of the section's console blocks, in order. */
export function consoleSteps(text: string, heading: string): Step[] {
  return blocks(text.split('\n'), heading).flatMap((b) => b.steps);
}

/** The document with the section's outputs replaced by `outputs` (one per step, in order). */
export function withOutputs(text: string, heading: string, outputs: readonly (readonly string[])[]): string {
  const lines = text.split('\n');
  let k = 0;
  const edits = blocks(lines, heading).map((b) => ({ b, body: b.steps.flatMap((s) => [`$ ${s.command}`, ...(outputs[k++] ?? [])]) }));
  for (const { b, body } of edits.reverse()) lines.splice(b.from, b.to - b.from, ...body);
  return lines.join('\n');
}
