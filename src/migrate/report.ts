// migrate-check's report: the JSON for scripts, the table for people, the summary, and whether everything maps.
import { VERDICTS, type ConfigMapReport, type IngressReport, type IngressVerdict, type Item, type Verdict } from './check.js';

export interface ControllerReport {
  readonly deployment: string;
  readonly flags: readonly Item[];
}

export interface Report {
  /** The class judged, and the Portico flags the verdicts were evaluated with. */
  readonly controllerClass: string;
  readonly ingressClass: string;
  readonly evaluatedWith: readonly string[];
  readonly ingresses: readonly IngressReport[];
  readonly configMap: ConfigMapReport | null;
  readonly controllers: readonly ControllerReport[];
  /** Things the reader should know that are not verdicts (e.g. the Deployments could not be listed). */
  readonly notes: readonly string[];
  readonly summary: {
    readonly annotations: Readonly<Record<Verdict, number>>;
    readonly configMapKeys: Readonly<Record<Verdict, number>>;
    readonly flags: Readonly<Record<Verdict, number>>;
    readonly ingresses: Readonly<Record<IngressVerdict, number>>;
  };
  /** True only when nothing is refused or unknown and no Ingress is skipped: migrate-check then exits 0. */
  readonly ok: boolean;
}

const count = (items: readonly Item[]): Record<Verdict, number> => Object.fromEntries(VERDICTS.map((v) => [v, items.filter((i) => i.verdict === v).length])) as Record<Verdict, number>;

export function makeReport(r: Omit<Report, 'summary' | 'ok'>): Report {
  const ing = { served: 0, 'served-differently': 0, skipped: 0 };
  for (const i of r.ingresses) ing[i.verdict] += 1;
  const summary = { annotations: count(r.ingresses.flatMap((i) => i.annotations)), configMapKeys: count(r.configMap?.keys ?? []), flags: count(r.controllers.flatMap((c) => c.flags)), ingresses: ing };
  const bad = [summary.annotations, summary.configMapKeys, summary.flags].reduce((n, c) => n + c.refused + c.unknown, 0) + ing.skipped;
  return { ...r, summary, ok: bad === 0 };
}

/** A value on one line, at most 40 characters. */
function short(value: string): string {
  const one = JSON.stringify(value).slice(1, -1);
  return one.length > 40 ? `${one.slice(0, 37)}...` : one;
}

/** Rows as aligned columns; the last column is never padded. */
function table(head: readonly string[], rows: readonly (readonly string[])[]): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (r: readonly string[]): string =>
    r
      .map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)];
}

const counts = (c: Readonly<Record<string, number>>): string =>
  Object.entries(c)
    .map(([k, n]) => `${n} ${k}`)
    .join(', ');

/** The report as people read it. */
export function reportText(r: Report): string {
  const out = [
    `portico migrate-check: Ingresses of controller ${r.controllerClass} (class ${r.ingressClass})`,
    `evaluated as: portico ${r.evaluatedWith.join(' ')}`.trimEnd(),
    ...r.notes.map((n) => `note: ${n}`),
    '',
    ...table(
      ['INGRESS', 'VERDICT', 'REASONS'],
      r.ingresses.map((i) => [`${i.namespace}/${i.name}`, i.verdict, i.reasons.join('; ')]),
    ),
    '',
    ...table(
      ['INGRESS', 'ANNOTATION', 'VALUE', 'VERDICT', 'DETAIL'],
      r.ingresses.flatMap((i) => i.annotations.map((a) => [`${i.namespace}/${i.name}`, a.key, short(a.value), a.verdict, a.detail])),
    ),
  ];
  if (r.configMap) {
    out.push('', `ConfigMap ${r.configMap.ref}${r.configMap.found ? '' : ' (not found)'}`);
    out.push(
      ...table(
        ['KEY', 'VALUE', 'VERDICT', 'DETAIL'],
        r.configMap.keys.map((k) => [k.key, short(k.value), k.verdict, k.detail]),
      ),
    );
  }
  for (const c of r.controllers) {
    out.push('', `flags of the ingress-nginx Deployment ${c.deployment}`);
    out.push(
      ...table(
        ['FLAG', 'VALUE', 'VERDICT', 'DETAIL'],
        c.flags.map((f) => [f.key, short(f.value), f.verdict, f.detail]),
      ),
    );
  }
  const s = r.summary;
  out.push('', `summary: Ingresses: ${counts(s.ingresses)}; annotations: ${counts(s.annotations)}; ConfigMap keys: ${counts(s.configMapKeys)}; flags: ${counts(s.flags)}`);
  out.push(r.ok ? 'everything maps (exit 0)' : 'not everything maps: see the refused, unknown and skipped rows above (exit 1)', '');
  return out.join('\n');
}
