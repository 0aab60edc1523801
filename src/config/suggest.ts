// What the command line says when a word is wrong: one clean sentence, and the nearest known word when one is close.

/** Edit distance (insert, delete, substitute, swap of two neighbours) between two short words. */
function distance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] ?? [];
      const up = d[i - 1] ?? [];
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((up[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (up[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j] ?? 0, (d[i - 2]?.[j - 2] ?? 0) + 1);
    }
  }
  return d[a.length]?.[b.length] ?? Math.max(a.length, b.length);
}

/** The known word nearest to `word` when it is close enough to be a typo of it (a third of its length at most), else undefined. */
function closest(word: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const k of known) {
    const dist = distance(word, k);
    if (dist < bestD) [best, bestD] = [k, dist];
  }
  const prefix = known.filter((k) => k.startsWith(word) && word.length >= 3);
  if (prefix.length === 1) return prefix[0];
  return bestD <= Math.max(1, Math.floor(word.length / 3)) ? best : undefined;
}

/**
 * node:util parseArgs's error as one sentence: an unknown flag is named with the nearest known flag; other errors
 * keep parseArgs's own words up to the first sentence (its advice about positionals quotes half a command line).
 */
export function flagError(err: unknown, known: readonly string[]): string {
  const e = err as { code?: string; message?: string };
  const message = e.message ?? String(err);
  const m = /^Unknown option '([^']*)'/.exec(message);
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && m?.[1] !== undefined) {
    const name = m[1].replace(/^-+/, '').split('=')[0] ?? '';
    const near = closest(name, known);
    return `unknown flag ${m[1]}${near !== undefined ? `; did you mean --${near}?` : ''}`;
  }
  return message.split(/\.\s/)[0]?.replace(/\.$/, '') ?? message;
}

/** An unknown command word, named with the nearest command. */
export function commandError(word: string, commands: readonly string[]): string {
  const near = closest(word, commands);
  return `unknown command ${JSON.stringify(word)}${near !== undefined ? `; did you mean ${near}?` : ''} (commands: ${commands.join(', ')})`;
}
