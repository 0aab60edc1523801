// Generates docs/annotations.md, docs/configmap.md and docs/flags.md from the code's tables (pure; `npm run docs`
// writes them through src/cli/write-docs.ts).
import { ANNOTATIONS } from './table.js';
import { COMPAT_ANNOTATIONS } from './table-compat.js';
import { REMOVED_ANNOTATIONS } from './ingress-nginx-lists.js';
import { configmapMarkdown, flagsMarkdown } from './docs-config.js';
import { configurationMarkdown } from '../cli/config-docs.js';

const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** The whole Markdown document. Pure: the same table always gives the same text. */
export function annotationsMarkdown(): string {
  const lines = [
    '# Annotations and ConfigMap keys',
    '',
    '<!-- Generated from src/annotations/table*.ts by `npm run docs`; a unit test fails when it is stale. -->',
    '',
    'Annotations carry the prefix given by `--annotations-prefix` (default `nginx.ingress.kubernetes.io`). An annotation',
    'rated above `--annotations-risk-level` (default `High`) is refused; snippets (Critical) also need',
    '`--allow-snippet-annotations`. An Ingress with a refused or invalid annotation keeps its last valid form, or is not',
    'served if it never had one; a warning names the Ingress, the annotation and why.',
    '',
    '| annotation | type | default | risk | scope | what it does |',
    '|---|---|---|---|---|---|',
    ...ANNOTATIONS.map((a) => `| \`${a.key}\` | ${a.type} | ${a.default === '' ? '' : `\`${cell(a.default)}\``} | ${a.risk} | ${a.scope} | ${cell(a.doc)} |`),
    '',
    '## Recognised, not implemented: refused or no-op',
    '',
    'A refused annotation is an error: the Ingress keeps its last valid form, or is not served, rather than served without',
    'the protection or behaviour it asked for. A no-op is accepted and changes nothing, for the reason given.',
    '',
    '| annotation | status | why |',
    '|---|---|---|',
    ...COMPAT_ANNOTATIONS.map((a) => `| \`${a.key}\` | ${a.status}${a.when ? ' (when it asks for it)' : ''} | ${cell(a.why)} |`),
    '',
    '## Removed from ingress-nginx in earlier releases',
    '',
    'A Warning (and an Event) names the replacement; the Ingress is served. `secure-backends: "true"`, `secure-verify-ca-secret`',
    'and the `lua-resty-waf` names asked for a protection, so they are refused instead.',
    '',
    '| annotation | use instead |',
    '|---|---|',
    ...Object.entries(REMOVED_ANNOTATIONS).map(([k, r]) => `| \`${k}\` | ${cell(r)} |`),
    '',
    'Any other name with the prefix gets a Warning that calls it unknown (a typo?); the Ingress is served.',
    '',
    'ConfigMap keys: [configmap.md](configmap.md). Flags: [flags.md](flags.md).',
    '',
  ];
  return lines.join('\n');
}

/** The generated documents, by path from the repository root. */
export function generatedDocs(): Record<string, string> {
  return { 'docs/annotations.md': annotationsMarkdown(), 'docs/configmap.md': configmapMarkdown(), 'docs/flags.md': flagsMarkdown(), 'docs/configuration.md': configurationMarkdown() };
}
