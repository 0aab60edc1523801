// migrate-check's report: the JSON for scripts, the table for people, the summary, and whether everything maps.
import type { Unreadable } from './inputs.js';
import { VERDICTS, type ConfigMapReport, type IngressReport, type IngressVerdict, type Item, type Verdict } from './check.js';
import { refKey } from '../model/keys.js';

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
  /** --tcp-services-configmap and --udp-services-configmap, port by port. */
  readonly streamServices: readonly ConfigMapReport[];
  /** Files that could not be read (whole or in part): their objects are missing from every verdict above. */
  readonly unreadable: readonly Unreadable[];
  readonly controllers: readonly ControllerReport[];
  /** Things the reader should know that are not verdicts (e.g. the Deployments could not be listed). */
  readonly notes: readonly string[];
  readonly summary: {
    readonly annotations: Readonly<Record<Verdict, number>>;
    readonly configMapKeys: Readonly<Record<Verdict, number>>;
    readonly streamPorts: Readonly<Record<Verdict, number>>;
    readonly unreadableFiles: number;
    readonly flags: Readonly<Record<Verdict, number>>;
    readonly ingresses: Readonly<Record<IngressVerdict, number>>;
  };
  /** True only when every file was read, nothing is refused or unknown and no Ingress is skipped: migrate-check then exits 0. */
  readonly ok: boolean;
}

const count = (items: readonly Item[]): Record<Verdict, number> => Object.fromEntries(VERDICTS.map((v) => [v, items.filter((i) => i.verdict === v).length])) as Record<Verdict, number>;

export function makeReport(r: Omit<Report, 'summary' | 'ok'>): Report {
  const ing = { served: 0, 'served-differently': 0, skipped: 0 };
  for (const i of r.ingresses) ing[i.verdict] += 1;
  const summary = {
    annotations: count(r.ingresses.flatMap((i) => i.annotations)),
    configMapKeys: count(r.configMap?.keys ?? []),
    streamPorts: count(r.streamServices.flatMap((c) => c.keys)),
    flags: count(r.controllers.flatMap((c) => c.flags)),
    ingresses: ing,
    unreadableFiles: r.unreadable.length,
  };
  const bad = [summary.annotations, summary.configMapKeys, summary.streamPorts, summary.flags].reduce((n, c) => n + c.refused + c.unknown, 0) + ing.skipped + r.unreadable.length;
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
    ...r.unreadable.flatMap((u) => [`UNREADABLE ${u.file}: its objects are missing from this report`, ...u.errors.map((e) => `  ${e}`)]),
    '',
    ...table(
      ['INGRESS', 'VERDICT', 'REASONS'],
      r.ingresses.map((i) => [refKey(i.namespace, i.name), i.verdict, i.reasons.join('; ')]),
    ),
    '',
    ...table(
      ['INGRESS', 'ANNOTATION', 'VALUE', 'VERDICT', 'DETAIL'],
      r.ingresses.flatMap((i) => i.annotations.map((a) => [refKey(i.namespace, i.name), a.key, short(a.value), a.verdict, a.detail])),
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
  for (const c of r.streamServices.filter((x) => x.found)) {
    out.push('', `${c.protocol ?? ''} services ConfigMap ${c.ref}`);
    out.push(
      ...table(
        ['PORT', 'VALUE', 'VERDICT', 'DETAIL'],
        c.keys.map((k) => [k.key, short(k.value), k.verdict, k.detail]),
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
  const unread = s.unreadableFiles > 0 ? `unreadable files: ${s.unreadableFiles}; ` : '';
  const ports = r.streamServices.length > 0 ? `; TCP/UDP ports: ${counts(s.streamPorts)}` : '';
  out.push('', `summary: ${unread}Ingresses: ${counts(s.ingresses)}; annotations: ${counts(s.annotations)}; ConfigMap keys: ${counts(s.configMapKeys)}${ports}; flags: ${counts(s.flags)}`);
  const why = s.unreadableFiles > 0 ? 'the unreadable files, and the refused, unknown and skipped rows above' : 'the refused, unknown and skipped rows above';
  out.push(r.ok ? 'everything maps (exit 0)' : `not everything maps: see ${why} (exit 1)`, '');
  return out.join('\n');
}
