// migrate-check's judgement: the controller's own annotation stage, model and renderer on one snapshot, read back
// per Ingress, annotation and ConfigMap key. Nothing here decides anything the controller does not.
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { AnnotationStage } from '../controller/annotations.js';
import { buildAndRender, modelOptions, renderOptions } from '../controller/controller.js';
import { parseConfigMap } from '../annotations/configmap.js';
import { BY_KEY } from '../annotations/table.js';
import { COMPAT_ANNOTATION_BY_KEY, compatVerdict } from '../annotations/table-compat.js';
import { REMOVED_ANNOTATIONS } from '../annotations/ingress-nginx-lists.js';
import { classSelector } from '../model/classes.js';
import type { Ingress, Snapshot } from '../model/input.js';
import type { Problem } from '../model/types.js';
import { errorMessage } from '../errors.js';
import { ANNOTATION_DIFFERENCES, CONFIGMAP_DIFFERENCES } from './differences.js';

export type Verdict = 'same' | 'different' | 'refused' | 'unknown';
export const VERDICTS: readonly Verdict[] = ['same', 'different', 'refused', 'unknown'];

/** One annotation, ConfigMap key or flag, and what Portico does with it. */
export interface Item {
  readonly key: string;
  readonly value: string;
  readonly verdict: Verdict;
  readonly detail: string;
}

export type IngressVerdict = 'served' | 'served-differently' | 'skipped';

export interface IngressReport {
  readonly namespace: string;
  readonly name: string;
  readonly verdict: IngressVerdict;
  /** Why it is skipped or served differently: the model's problems on it, then the annotations that differ. */
  readonly reasons: readonly string[];
  readonly annotations: readonly Item[];
}

export interface ConfigMapReport {
  readonly ref: string;
  readonly found: boolean;
  readonly keys: readonly Item[];
}

const KEEPS = /; the Ingress (is not served|keeps its last valid form|is served without this annotation)$/;

/** One annotation's verdict: the stage's refusal, else the table's row, else the compatibility table's word on it. */
function annotationItem(key: string, name: string, value: string, problems: readonly Problem[]): Item {
  // Dropped, or left out of a served Ingress (an annotation that fails open, docs/adr/0016): refused either way.
  const refused = problems.find((p) => p.field === `metadata.annotations[${key}]` && (p.severity === 'dropped' || p.reason.endsWith('; the Ingress is served without this annotation')));
  if (refused) return { key, value, verdict: 'refused', detail: refused.reason.replace(KEEPS, '') };
  if (BY_KEY.has(name)) {
    const diff = ANNOTATION_DIFFERENCES[name];
    return diff !== undefined ? { key, value, verdict: 'different', detail: diff } : { key, value, verdict: 'same', detail: '' };
  }
  const compat = compatVerdict(name, value);
  if (compat.error !== undefined) return { key, value, verdict: 'refused', detail: compat.error };
  const row = COMPAT_ANNOTATION_BY_KEY.get(name);
  if (row) return { key, value, verdict: 'different', detail: `${row.status}: ${row.why}` };
  if (REMOVED_ANNOTATIONS[name] !== undefined) return { key, value, verdict: 'different', detail: compat.warning ?? 'removed from ingress-nginx' };
  return { key, value, verdict: 'unknown', detail: 'neither Portico nor ingress-nginx knows this annotation (a typo?); both ignore it' };
}

function annotationItems(ing: Ingress, prefix: string, problems: readonly Problem[]): Item[] {
  const annotations = ing.metadata?.annotations ?? {};
  return Object.keys(annotations)
    .filter((k) => k.startsWith(`${prefix}/`))
    .sort()
    .map((key) => annotationItem(key, key.slice(prefix.length + 1), annotations[key] ?? '', problems));
}

/** What a sync on `snap` serves (the controller's own buildAndRender), or the renderer's refusal. */
function served(snap: Snapshot, config: Config, log: Logger): { ingresses: ReadonlySet<string>; problems: readonly Problem[]; renderError?: string } {
  const stage = new AnnotationStage(config, log);
  try {
    const { model } = buildAndRender(stage, snap, config, renderOptions(config, undefined));
    return { ingresses: new Set(model.ingresses.map((r) => `${r.namespace}/${r.name}`)), problems: model.problems };
  } catch (err) {
    // The controller would hold one Ingress out and retry; here the refusal is reported on every Ingress.
    return { ingresses: new Set(), problems: [], renderError: errorMessage(err) };
  }
}

/** Every Ingress of the configured class, judged as a sync on `snap` would serve it. */
export function checkIngresses(snap: Snapshot, config: Config, log: Logger): IngressReport[] {
  const ours = classSelector(snap.ingressClasses, modelOptions(config));
  const m = served(snap, config, log);
  const mine = snap.ingresses.filter(ours).map((ing) => ({ ing, namespace: ing.metadata?.namespace ?? 'default', name: ing.metadata?.name ?? '' }));
  mine.sort((a, b) => `${a.namespace}/${a.name}`.localeCompare(`${b.namespace}/${b.name}`));
  return mine.map(({ ing, namespace, name }) => {
    const problems = m.problems.filter((p) => p.object.kind === 'Ingress' && p.object.namespace === namespace && p.object.name === name);
    const annotations = annotationItems(ing, config.annotationsPrefix, problems);
    const said = new Set(problems.map((p) => p.field));
    const differs = annotations.filter((a) => (a.verdict === 'different' || a.verdict === 'unknown') && !said.has(`metadata.annotations[${a.key}]`)).map((a) => `${a.key}: ${a.verdict}`);
    const reasons = [...(m.renderError !== undefined ? [`render: ${m.renderError}`] : []), ...problems.map((p) => `${p.field}: ${p.reason}`), ...differs];
    const verdict: IngressVerdict = !m.ingresses.has(`${namespace}/${name}`) ? 'skipped' : reasons.length > 0 ? 'served-differently' : 'served';
    return { namespace, name, verdict, reasons, annotations };
  });
}

/** The global ConfigMap (--configmap) key by key; undefined when no --configmap is set. */
export function checkConfigMap(snap: Snapshot, config: Config): ConfigMapReport | undefined {
  const ref = config.configmap;
  if (ref === undefined) return undefined;
  const [ns, name] = ref.split('/');
  const cm = snap.configMaps.find((c) => c.metadata?.namespace === ns && c.metadata?.name === name);
  const data = cm?.data ?? {};
  const parsed = parseConfigMap(data);
  const keys = Object.keys(data)
    .sort()
    .map((key): Item => {
      const value = data[key] ?? '';
      if (parsed.unknown.includes(key)) return { key, value, verdict: 'unknown', detail: 'neither Portico nor ingress-nginx reads this key' };
      const bad = parsed.errors.find((e) => e.key === key) ?? parsed.refused.find((e) => e.key === key);
      if (bad) return { key, value, verdict: 'refused', detail: bad.reason };
      const noop = parsed.noops.find((e) => e.key === key);
      if (noop) return { key, value, verdict: 'different', detail: noop.reason };
      const diff = CONFIGMAP_DIFFERENCES[key];
      return diff !== undefined ? { key, value, verdict: 'different', detail: diff } : { key, value, verdict: 'same', detail: '' };
    });
  return { ref, found: cm !== undefined, keys };
}
