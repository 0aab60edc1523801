// The inventory of ingress-nginx's end-to-end suite (inventory.json): every upstream `It`, its status in Portico,
// and the Portico test that covers it; renders docs/ingress-nginx-e2e.md and reads test titles out of test files.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const STATUSES = ['passes', 'deliberate', 'not-applicable', 'open-gap', 'not-yet-written'] as const;
export type Status = (typeof STATUSES)[number];

export interface Row {
  readonly folder: string;
  readonly file: string;
  readonly title: string;
  readonly status: Status;
  /** Why a row is a deliberate difference or not applicable. */
  readonly reason?: string;
  /** The name of an open gap. */
  readonly gap?: string;
  /** The Portico test file (repository path) that holds a test named exactly `title`. */
  readonly test?: string;
}

export interface Inventory {
  readonly upstream: { readonly repository: string; readonly tag: string; readonly commit: string; readonly folder: string };
  readonly rows: readonly Row[];
}

export function loadInventory(repo: string): Inventory {
  return JSON.parse(readFileSync(join(repo, 'test/ingress-nginx/inventory.json'), 'utf8')) as Inventory;
}

/** The test file a row belongs in: test/ingress-nginx/<upstream folder>/<upstream file>.test.ts. */
export function testFileFor(row: Pick<Row, 'folder' | 'file'>): string {
  return `test/ingress-nginx/${row.folder}/${row.file.replace(/\.go$/, '')}.test.ts`;
}

export interface FoundTest {
  readonly title: string;
  readonly todo: boolean;
}

/** The tests a file declares: calls of test()/it() (or .todo) whose first argument is a string literal. */
export function testsIn(source: string, fileName: string): FoundTest[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, true);
  const found: FoundTest[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node)) {
      const callee = node.expression;
      const name = ts.isIdentifier(callee) ? callee.text : ts.isPropertyAccessExpression(callee) && ts.isIdentifier(callee.expression) ? `${callee.expression.text}.${callee.name.text}` : '';
      const first = node.arguments[0];
      if (['test', 'it', 'test.todo', 'it.todo'].includes(name) && first !== undefined && ts.isStringLiteralLike(first)) {
        const opts = node.arguments[1];
        const todoOpt = opts !== undefined && ts.isObjectLiteralExpression(opts) && opts.properties.some((p) => p.name !== undefined && ts.isIdentifier(p.name) && p.name.text === 'todo');
        found.push({ title: first.text, todo: name.endsWith('.todo') || todoOpt });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

const LABEL: Record<Status, string> = { passes: 'passes', deliberate: 'deliberate difference', 'not-applicable': 'not applicable', 'open-gap': 'open gap', 'not-yet-written': 'not yet written' };

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

function counts(rows: readonly Row[]): string {
  return STATUSES.map((s) => String(rows.filter((r) => r.status === s).length)).join(' | ');
}

/** docs/ingress-nginx-e2e.md: totals per upstream folder, then every `It` per folder and file. */
export function renderDoc(inv: Inventory): string {
  const folders = [...new Set(inv.rows.map((r) => r.folder))];
  const out: string[] = [
    '# ingress-nginx end-to-end suite, reproduced',
    '',
    '<!-- Generated from test/ingress-nginx/inventory.json by `npm run docs`; do not edit by hand. -->',
    '',
    `Every ginkgo \`It\` of ${inv.upstream.repository} \`${inv.upstream.folder}\` at \`${inv.upstream.tag}\` (commit \`${inv.upstream.commit}\`),`,
    'and what Portico does about it. A test of Portico in local mode, through real nginx, carries the `It` title exactly, in',
    '`test/ingress-nginx/<upstream folder>/<upstream file>.test.ts`. Statuses:',
    '',
    '- **passes**: the test asserts what ingress-nginx does, on real requests, and passes;',
    "- **deliberate difference**: Portico does otherwise on purpose; the test asserts Portico's behaviour (docs/migration.md);",
    "- **not applicable**: nothing to observe, ingress-nginx internals, a module Debian's nginx does not ship, or a cluster;",
    '- **open gap**: Portico lacks the behaviour; the test is `todo` with the gap named;',
    '- **not yet written**: no Portico test yet.',
    '',
    '## Totals',
    '',
    '| upstream folder | passes | deliberate | not applicable | open gap | not yet written | total |',
    '|---|---|---|---|---|---|---|',
  ];
  for (const f of folders) {
    const rows = inv.rows.filter((r) => r.folder === f);
    out.push(`| ${f} | ${counts(rows)} | ${rows.length} |`);
  }
  out.push(`| **all** | ${counts(inv.rows)} | ${inv.rows.length} |`, '');
  for (const f of folders) {
    out.push(`## ${f}`, '');
    const rows = inv.rows.filter((r) => r.folder === f);
    for (const file of [...new Set(rows.map((r) => r.file))]) {
      const fileRows = rows.filter((r) => r.file === file);
      const test = fileRows.find((r) => r.test !== undefined)?.test;
      out.push(`### ${file}`, '', test === undefined ? '' : `Portico test: \`${test}\``, '', '| It | status | reason or gap |', '|---|---|---|');
      for (const r of fileRows) out.push(`| ${cell(r.title)} | ${LABEL[r.status]} | ${cell(r.reason ?? r.gap ?? '')} |`);
      out.push('');
    }
  }
  return out.join('\n').replace(/\n\n\n+/g, '\n\n');
}
