// The text of docs/configmap.md and docs/flags.md: the sections of docs/configuration.md (src/docs/config-docs.ts), each
// under its own title, so the flag and ConfigMap tables have one generator and three pages.
import { configmapSections, flagSections } from './config-docs.js';

/** docs/configmap.md: every key Portico reads, then every ingress-nginx key it recognises without a setting. */
export function configmapMarkdown(): string {
  return [
    '# Global ConfigMap keys',
    '',
    '<!-- Generated from src/annotations/configmap*.ts by `npm run docs`; a unit test fails when it is stale. -->',
    '',
    "Every key of ingress-nginx's final ConfigMap documentation is in one of these tables (test/unit/configmap-coverage).",
    'A refused key is a Warning and an Event on the ConfigMap. The admin snippets (`main-snippet`, `http-snippet`,',
    '`server-snippet`, `location-snippet`, `global-auth-snippet`) are checked by `--snippet-mode`',
    '([adr/0012](adr/0012-safe-snippets.md)); a refused one is left out with a Warning. Flags: [flags.md](flags.md).',
    '',
    ...configmapSections(),
  ].join('\n');
}

/** docs/flags.md: Portico's flags, then ingress-nginx's flags it accepts and what each does here. */
export function flagsMarkdown(): string {
  return [
    '# Flags',
    '',
    '<!-- Generated from src/config/flags.ts and src/config/flags-without-setting.ts by `npm run docs`; a unit test fails when it is stale. -->',
    '',
    "Every flag of ingress-nginx's final release is accepted, so an existing ingress-nginx Deployment's arguments start",
    'Portico (test/unit/configmap-coverage parses one). ConfigMap keys: [configmap.md](configmap.md).',
    '',
    ...flagSections(),
  ].join('\n');
}
