// Generates docs/annotations.md, docs/configmap.md and docs/flags.md from the code's tables (pure; `npm run docs`
// writes them through src/docs/write-docs.ts).
import { ANNOTATIONS } from '../annotations/table.js';
import { COMPAT_ANNOTATIONS } from '../annotations/table-without-setting.js';
import { REMOVED_ANNOTATIONS } from '../annotations/ingress-nginx-lists.js';
import { configmapMarkdown, flagsMarkdown } from './configuration.js';
import { configurationMarkdown } from './config-docs.js';
import { refusalRule } from '../annotations/refusal.js';

const cell = (s: string): string => s.replace(/\|/g, '\\|');

/** The whole Markdown document. Pure: the same table always gives the same text. */
function annotationsMarkdown(): string {
  const lines = [
    '# Annotations and ConfigMap keys',
    '',
    '<!-- Generated from src/annotations/table*.ts by `npm run docs`; a unit test fails when it is stale. -->',
    '',
    'Annotations carry the prefix given by `--annotations-prefix` (default `nginx.ingress.kubernetes.io`). An annotation',
    'rated above `--annotations-risk-level` (default `High`) is refused; snippets (Critical) also need',
    '`--allow-snippet-annotations`.',
    '',
    '## When an annotation is refused',
    '',
    'A refused annotation (an invalid value, a risk above the level, a target the policy refuses, a ConfigMap it names',
    'that is missing) gets a Warning and an Event naming the Ingress, the annotation and why. What it costs the Ingress',
    'is the column **if refused** below (docs/adr/0016):',
    '',
    '- **served without it**: the Ingress is served as if the annotation were absent, as ingress-nginx does. Most',
    '  annotations tune or route, and leaving one out weakens nothing.',
    '- **not served**: the annotation protects something (authentication, client certificates, access lists, limits, a',
    '  WAF, snippets, which may hold access rules, transport security, the CORS values whose default is permissive,',
    '  custom-headers) or decides which backend answers (canary). Serving without it would weaken that, so the Ingress',
    '  keeps its last valid form, or is not served if it never had one (fail closed).',
    '',
    '| annotation | type | default | risk | scope | if refused | what it does |',
    '|---|---|---|---|---|---|---|',
    ...ANNOTATIONS.map((a) => `| \`${a.key}\` | ${a.type} | ${a.default === '' ? '' : `\`${cell(a.default)}\``} | ${a.risk} | ${a.scope} | ${refusalRule(a.key)} | ${cell(a.doc)} |`),
    '',
    '## Recognised, not implemented: refused or no-op',
    '',
    'A refused annotation costs its Ingress what **if refused** says (above). A no-op is accepted and changes nothing, for',
    'the reason given.',
    '',
    '| annotation | status | if refused | why |',
    '|---|---|---|---|',
    ...COMPAT_ANNOTATIONS.map((a) => `| \`${a.key}\` | ${a.status}${a.when ? ' (when it asks for it)' : ''} | ${a.status === 'refused' ? refusalRule(a.key) : ''} | ${cell(a.why)} |`),
    '',
    '## Removed from ingress-nginx in earlier releases',
    '',
    'A Warning (and an Event) names the replacement; the Ingress is served (`secure-backends` too: ingress-nginx ignores it',
    'since 0.21). `secure-verify-ca-secret`, `lua-resty-waf` and `lua-resty-waf-extra-rules` asked for a protection, so',
    'they are refused and the Ingress is not served (fail closed).',
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
