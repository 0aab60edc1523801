// The conformance section of docs/gateway-api.md, generated from test/gateway-conformance/inventory.json: the report
// in upstream's ConformanceReport shape (YAML), then every upstream test with its status in Portico.
import { INVENTORY, profilesOf, reportYaml, type Inventory, type Row } from './inventory.js';

const SECTION_BEGIN = '<!-- conformance report: generated from test/gateway-conformance/inventory.json by `npm run docs`; do not edit by hand -->';
const SECTION_END = '<!-- end of the generated conformance report -->';

const LABEL: Record<Row['status'], string> = { passes: 'passed', skipped: 'skipped', failed: 'failed', 'not-yet-written': 'not yet written' };

function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** The generated section, markers included. */
export function renderSection(inv: Inventory, version: string): string {
  const count = (s: Row['status']): number => inv.rows.filter((r) => r.status === s).length;
  const out: string[] = [
    SECTION_BEGIN,
    '',
    `The upstream conformance suite (${inv.upstream.repository} \`${inv.upstream.folder}\` at \`${inv.upstream.tag}\`, commit`,
    `\`${inv.upstream.commit}\`) is reproduced in test/gateway-conformance/ against Portico in local mode, through real nginx:`,
    "each test carries the upstream ShortName, applies manifests of this repository's own with the names the upstream checks",
    'rely on, sends the same requests and expects the same answers (3 in a row within 30 s, as upstream does) from local echo',
    "backends that answer as upstream's echo server does (namespace, pod, path, host, headers). Route status is read from",
    '`/debug/gateway`, the status the leader writes. A test not written yet counts as skipped in the report below, as upstream',
    'counts a test it does not run; the table after it says which skips are unsupported features and which are not written yet.',
    '',
    `Totals: ${count('passes')} passed, ${count('skipped')} skipped (unsupported feature), ${count('failed')} failed, ${count('not-yet-written')} not yet written, of ${inv.rows.length} tests.`,
    '',
    '```yaml',
    reportYaml(inv, version).trimEnd(),
    '```',
    '',
    '| test | profiles | features | status | reason, defect or Portico test |',
    '|---|---|---|---|---|',
  ];
  for (const r of [...inv.rows].sort((a, b) => a.shortName.localeCompare(b.shortName))) {
    const why = r.reason ?? r.defect ?? (r.test === undefined ? '' : `\`${r.test}\``);
    const name = r.provisional === true ? `${r.shortName} (provisional)` : r.shortName;
    out.push(`| ${name} | ${profilesOf(inv, r).join(', ') || 'none (no profile holds all its features)'} | ${r.features.join(', ')} | ${LABEL[r.status]} | ${cell(why)} |`);
  }
  out.push(
    '',
    `Unsupported features, and why: ${Object.entries(inv.unsupportedFeatures)
      .map(([f, why]) => `\`${f}\` (${why})`)
      .join('; ')}.`,
    '',
    SECTION_END,
  );
  return out.join('\n');
}

/** `doc` with its generated section replaced by `section` (the markers must be there once). */
export function withSection(doc: string, section: string): string {
  const a = doc.indexOf(SECTION_BEGIN);
  const b = doc.indexOf(SECTION_END);
  if (a < 0 || b < a) throw new Error(`docs/gateway-api.md has no generated conformance section (markers from ${INVENTORY}'s generator)`);
  return doc.slice(0, a) + section + doc.slice(b + SECTION_END.length);
}

/** The generated section as it stands in `doc`. */
export function sectionOf(doc: string): string {
  const a = doc.indexOf(SECTION_BEGIN);
  const b = doc.indexOf(SECTION_END);
  return a < 0 || b < a ? '' : doc.slice(a, b + SECTION_END.length);
}
