// Generates docs/configuration.md from the flag table and the ConfigMap tables (`node dist/src/docs/config-docs.js`).
import { fileURLToPath } from 'node:url';
import { COMMANDS, FLAGS } from '../config/flags.js';
import { COMPAT_FLAGS } from '../config/flags-without-setting.js';
import { CONFIGMAP_KEYS } from '../annotations/configmap.js';
import { CONFIGMAP_COMPAT } from '../annotations/configmap-without-setting.js';

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string): string => (s === '' ? '' : `\`${cell(s)}\``);

/** The flag sections: Portico's flags, then the ingress-nginx flags it accepts (docs/flags.md reuses them). */
export function flagSections(): string[] {
  const flags = Object.entries(FLAGS).sort(([a], [b]) => a.localeCompare(b));
  const compatFlags = Object.entries(COMPAT_FLAGS).sort(([a], [b]) => a.localeCompare(b));
  return [
    `## Flags (${flags.length})`,
    '',
    '| flag | type | default | what it does |',
    '|---|---|---|---|',
    ...flags.map(([name, f]) => `| \`--${name}\` | ${f.type === 'boolean' ? 'bool' : 'string'} | ${code(f.default)} | ${cell(f.doc)} |`),
    '',
    `## ingress-nginx flags accepted without a flag of their own (${compatFlags.length})`,
    '',
    "`mapped`: turned into Portico's own setting. `no-op`: accepted, changes nothing. `refused`: accepted so that Portico",
    'starts, with a Warning naming the flag when its value asks for what Portico does not give.',
    '',
    '| flag | type | status | what it does here |',
    '|---|---|---|---|',
    ...compatFlags.map(([name, f]) => `| \`--${name}\` | ${f.type === 'boolean' ? 'bool' : 'string'} | ${f.status} | ${cell(f.doc)} |`),
    '',
  ];
}

/** The ConfigMap sections: the keys Portico reads, then the ingress-nginx keys it recognises (docs/configmap.md reuses them). */
export function configmapSections(): string[] {
  const keys = [...CONFIGMAP_KEYS].sort((a, b) => a.key.localeCompare(b.key));
  const compat = [...CONFIGMAP_COMPAT].sort((a, b) => a.key.localeCompare(b.key));
  return [
    `## Global ConfigMap keys (\`--configmap namespace/name\`, ${keys.length})`,
    '',
    'A missing key takes the default. A refused value is logged (a Warning) and the key keeps its previous value; an',
    'unknown key is logged once and ignored.',
    '',
    '| key | default | what it does |',
    '|---|---|---|',
    ...keys.map((k) => `| \`${k.key}\` | ${code(k.default)} | ${cell(k.doc)} |`),
    '',
    `## ingress-nginx keys read without a setting of their own (${compat.length})`,
    '',
    "`no-op`: accepted and changes nothing, because the behaviour is already Portico's. `refused`: a Warning and an",
    'Event on the ConfigMap, and the key is not applied.',
    '',
    '| key | status | why |',
    '|---|---|---|',
    ...compat.map((k) => `| \`${k.key}\` | ${k.status} | ${cell(k.why)} |`),
    '',
  ];
}

/** The whole Markdown document. Pure: the same tables always give the same text. */
export function configurationMarkdown(): string {
  return [
    '# Configuration reference',
    '',
    '<!-- Generated from FLAGS in src/config/flags.ts and the ConfigMap tables in src/annotations/ by `node dist/src/docs/config-docs.js > docs/configuration.md`; a test fails when it is stale. -->',
    '',
    `Commands: \`portico\` (run the controller), ${COMMANDS.map((c) => `\`portico ${c}\``).join(', ')}. Flags take ingress-nginx's names and`,
    'forms (`--flag value`, `--flag=value`, `-flag=value`; booleans `--flag`, `--flag=false`); given twice, the last wins.',
    'Annotations: [annotations.md](annotations.md). Installing with kustomize: [install.md](install.md).',
    '',
    ...flagSections(),
    ...configmapSections(),
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) process.stdout.write(configurationMarkdown());
