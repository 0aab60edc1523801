// Generates docs/annotations.md from the annotation table and the ConfigMap keys (`node dist/src/annotations/docs.js`).
import { fileURLToPath } from 'node:url';
import { CONFIGMAP_KEYS } from './configmap.js';
import { ANNOTATIONS, NOT_YET } from './table.js';

const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** The whole Markdown document. Pure: the same table always gives the same text. */
export function annotationsMarkdown(): string {
  const lines = [
    '# Annotations and ConfigMap keys',
    '',
    '<!-- Generated from src/annotations/table.ts and src/annotations/configmap.ts by `node dist/src/annotations/docs.js > docs/annotations.md`; a unit test fails when it is stale. -->',
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
    '## Not implemented yet (refused, so nothing is served without the behaviour it asked for)',
    '',
    NOT_YET.map((k) => `\`${k}\``).join(', '),
    '',
    '## Global ConfigMap (`--configmap namespace/name`)',
    '',
    'Unknown keys are logged once and ignored. A refused value is logged and the key keeps its previous value.',
    '',
    '| key | default | what it does |',
    '|---|---|---|',
    ...CONFIGMAP_KEYS.map((k) => `| \`${k.key}\` | ${k.default === '' ? '' : `\`${cell(k.default)}\``} | ${cell(k.doc)} |`),
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(annotationsMarkdown());
