// The text of docs/configmap.md and docs/flags.md, from the ConfigMap and flag tables (docs.ts writes them).
import { tmpdir } from 'node:os';
import { CONFIGMAP_KEYS } from './configmap.js';
import { CONFIGMAP_COMPAT } from './configmap-compat.js';
import { FLAGS } from '../cli/flags.js';
import { COMPAT_FLAGS } from '../cli/flags-compat.js';

const cell = (s: string): string => s.replace(/\|/g, '\\|').replace(/\n/g, ' ');
const code = (s: string): string => (s === '' ? '' : `\`${cell(s)}\``);

/** docs/configmap.md: every key Portico reads, then every ingress-nginx key it recognises without a setting. */
export function configmapMarkdown(): string {
  return [
    '# Global ConfigMap keys',
    '',
    '<!-- Generated from src/annotations/configmap*.ts by `npm run docs`; a unit test fails when it is stale. -->',
    '',
    'The ConfigMap named by `--configmap namespace/name` takes ingress-nginx\'s keys. Every key of ingress-nginx\'s final',
    'documentation is in one of the tables below (a unit test checks it). A value that does not parse is a Warning with an',
    'Event on the ConfigMap, and the key keeps its previous value; a refused key is a Warning and an Event and is not',
    'applied; a no-op is logged once. Any other key is logged as unknown. The admin snippets are checked by',
    '`--snippet-mode` ([adr/0010](adr/0010-safe-snippets.md)).',
    '',
    '## Implemented',
    '',
    '| key | default | what it does |',
    '|---|---|---|',
    ...CONFIGMAP_KEYS.map((k) => `| \`${k.key}\` | ${code(k.default)} | ${cell(k.doc)} |`),
    '',
    '## Recognised: refused or no-op',
    '',
    '| key | status | why |',
    '|---|---|---|',
    ...CONFIGMAP_COMPAT.map((k) => `| \`${k.key}\` | ${k.status}${k.when ? ' (when its value asks for it)' : ''} | ${cell(k.why)} |`),
    '',
  ].join('\n');
}

/** docs/flags.md: Portico's flags, then ingress-nginx's flags it accepts and what each does here. */
export function flagsMarkdown(): string {
  return [
    '# Flags',
    '',
    '<!-- Generated from src/cli/flags.ts and src/cli/flags-compat.ts by `npm run docs`; a unit test fails when it is stale. -->',
    '',
    '`--flag value`, `--flag=value` and Go\'s `-flag=value` all work. Every flag of ingress-nginx\'s final release is',
    'accepted, so an existing ingress-nginx Deployment\'s arguments start Portico; a refused one logs a Warning at start',
    'naming what is not given (a unit test starts the parser on all of them).',
    '',
    '## Portico\'s flags',
    '',
    '| flag | type | default | what it does |',
    '|---|---|---|---|',
    ...Object.entries(FLAGS).map(([name, f]) => `| \`--${name}\` | ${f.type} | ${code(f.default.replace(tmpdir(), '$TMPDIR'))} | ${cell(f.doc)} |`),
    '',
    '## ingress-nginx flags accepted for compatibility',
    '',
    '`mapped`: turned into Portico\'s own setting; `no-op`: accepted, changes nothing, for the reason given; `refused`:',
    'accepted so that Portico starts, with a Warning at start, the behaviour is not given.',
    '',
    '| flag | type | status | what it does here |',
    '|---|---|---|---|',
    ...Object.entries(COMPAT_FLAGS).map(([name, f]) => `| \`--${name}\` | ${f.type} | ${f.status} | ${cell(f.doc)} |`),
    '',
  ].join('\n');
}
