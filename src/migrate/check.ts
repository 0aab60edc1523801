// migrate-check's judgement: the controller's own annotation stage, model and renderer on one snapshot, read back
// per Ingress, annotation and ConfigMap key. Nothing here decides anything the controller does not.
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { AnnotationStage } from '../pipeline/annotations.js';
import { buildAndRender, modelOptions, renderOptions } from '../pipeline/build.js';
import { parseConfigMap } from '../annotations/configmap.js';
import { BY_KEY } from '../annotations/table.js';
import { COMPAT_ANNOTATION_BY_KEY, compatVerdict } from '../annotations/table-without-setting.js';
import { REMOVED_ANNOTATIONS } from '../annotations/ingress-nginx-lists.js';
import { classSelector } from '../model/classes.js';
import type { Ingress, Snapshot } from '../model/input.js';
import type { Model, ObjectRef, Problem } from '../model/types.js';
import { ingressVerdict } from '../model/verdicts.js';
import { errorMessage } from '../errors.js';
import { ANNOTATION_DIFFERENCES, CONFIGMAP_DIFFERENCES, USE_REGEX_DIFFERENCE } from './differences.js';
import { SNIPPETS_OFF } from '../annotations/parse.js';
import { HOST_CONFLICT } from '../model/hosts.js';
import { refKey } from '../model/keys.js';

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
  /** The stream ConfigMaps only: which of --tcp-services-configmap and --udp-services-configmap it is. */
  readonly protocol?: 'TCP' | 'UDP';
  readonly found: boolean;
  readonly keys: readonly Item[];
}

const KEEPS = /; the Ingress (is not served|keeps its last valid form|is served without this annotation)$/;

/** One annotation's verdict: the stage's refusal, else the table's row, else the compatibility table's word on it. */
function annotationItem(key: string, name: string, value: string, problems: readonly Problem[], regexShared: boolean): Item {
  // Dropped, or left out of a served Ingress (an annotation that fails open, docs/adr/0016): refused either way.
  const refused = problems.find((p) => p.field === `metadata.annotations[${key}]` && (p.severity === 'dropped' || p.reason.endsWith('; the Ingress is served without this annotation')));
  if (refused) return { key, value, verdict: 'refused', detail: refused.reason.replace(KEEPS, '') };
  // Served without it (a snippet while allow-snippet-annotations is false, a host-wide setting of a non-owner): different.
  const ignored = problems.find((p) => (p.field === `metadata.annotations[${key}]` || p.field === `metadata.annotations.${name}`) && (p.reason === SNIPPETS_OFF || p.reason.includes(HOST_CONFLICT)));
  if (ignored) return { key, value, verdict: 'different', detail: ignored.reason };
  if (BY_KEY.has(name)) {
    const diff = name === 'use-regex' ? (regexShared ? USE_REGEX_DIFFERENCE : undefined) : ANNOTATION_DIFFERENCES[name];
    return diff !== undefined ? { key, value, verdict: 'different', detail: diff } : { key, value, verdict: 'same', detail: '' };
  }
  const compat = compatVerdict(name, value);
  if (compat.error !== undefined) return { key, value, verdict: 'refused', detail: compat.error };
  const row = COMPAT_ANNOTATION_BY_KEY.get(name);
  if (row) return { key, value, verdict: 'different', detail: `${row.status}: ${row.why}` };
  if (REMOVED_ANNOTATIONS[name] !== undefined) return { key, value, verdict: 'different', detail: compat.warning ?? 'removed from ingress-nginx' };
  return { key, value, verdict: 'unknown', detail: 'neither Portico nor ingress-nginx knows this annotation (a typo?); both ignore it' };
}

function annotationItems(ing: Ingress, prefix: string, problems: readonly Problem[], regexShared: boolean): Item[] {
  const annotations = ing.metadata?.annotations ?? {};
  return Object.keys(annotations)
    .filter((k) => k.startsWith(`${prefix}/`))
    .sort()
    .map((key) => annotationItem(key, key.slice(prefix.length + 1), annotations[key] ?? '', problems, regexShared));
}

/** What a sync on `snap` serves (the controller's own buildAndRender), or the renderer's refusal. */
export function served(snap: Snapshot, config: Config, log: Logger): { model?: Model; renderError?: string } {
  const stage = new AnnotationStage(config, log);
  try {
    return { model: buildAndRender(stage, snap, config, renderOptions(config, undefined)).model };
  } catch (err) {
    // The controller would hold one Ingress out and retry; here the refusal is reported on every Ingress.
    return { renderError: errorMessage(err) };
  }
}

const hostsOf = (ing: Ingress): string[] => (ing.spec?.rules ?? []).map((r) => (r.host ?? '').toLowerCase());

/**
 * Whether a use-regex Ingress shares a host with another Ingress of ours that does not ask for regex paths: only then
 * does ingress-nginx's host-wide `~*` route differently from Portico (docs/migration.md).
 */
function regexSharesHost(ing: Ingress, ours: readonly Ingress[], prefix: string): boolean {
  const asks = (i: Ingress): boolean => i.metadata?.annotations?.[`${prefix}/use-regex`]?.trim() === 'true';
  // rewrite-target makes an Ingress's own paths regex too (in both controllers), so its paths are not the others'.
  const regex = (i: Ingress): boolean => asks(i) || i.metadata?.annotations?.[`${prefix}/rewrite-target`] !== undefined;
  if (!asks(ing)) return false;
  const hosts = new Set(hostsOf(ing));
  return ours.some((o) => o !== ing && !regex(o) && hostsOf(o).some((h) => hosts.has(h)));
}

/** Every Ingress of the configured class, judged as a sync on `snap` would serve it (`m`: from `served`). */
export function checkIngresses(snap: Snapshot, config: Config, m: ReturnType<typeof served>): IngressReport[] {
  const ours = snap.ingresses.filter(classSelector(snap.ingressClasses, modelOptions(config)));
  const mine = ours.map((ing) => ({ ing, namespace: ing.metadata?.namespace ?? 'default', name: ing.metadata?.name ?? '' }));
  mine.sort((a, b) => refKey(a.namespace, a.name).localeCompare(refKey(b.namespace, b.name)));
  return mine.map(({ ing, namespace, name }) => {
    const ref: ObjectRef = { kind: 'Ingress', namespace, name };
    const judged = m.model ? ingressVerdict(m.model, ref) : { verdict: 'skipped' as const, problems: [] };
    const annotations = annotationItems(ing, config.annotationsPrefix, judged.problems, regexSharesHost(ing, ours, config.annotationsPrefix));
    const said = new Set(judged.problems.map((p) => p.field));
    const differs = annotations.filter((a) => (a.verdict === 'different' || a.verdict === 'unknown') && !said.has(`metadata.annotations[${a.key}]`)).map((a) => `${a.key}: ${a.verdict}`);
    const reasons = [...(m.renderError !== undefined ? [`render: ${m.renderError}`] : []), ...judged.problems.map((p) => `${p.field}: ${p.reason}`), ...differs];
    const verdict: IngressVerdict = judged.verdict === 'skipped' ? 'skipped' : reasons.length > 0 ? 'served-differently' : 'served';
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

/**
 * The entries of --tcp-services-configmap and --udp-services-configmap, each judged by the model's stream section: a
 * port it serves is `same` (with its Warning, if any, e.g. no ready endpoint); a port it skips is `refused`, with why.
 */
export function checkStream(snap: Snapshot, config: Config, model: Model | undefined): ConfigMapReport[] {
  const refs = [
    ['TCP', config.tcpServicesConfigmap],
    ['UDP', config.udpServicesConfigmap],
  ] as const;
  return refs.flatMap(([protocol, ref]) => {
    if (!ref) return [];
    const id = refKey(ref.namespace, ref.name);
    const cm = snap.configMaps.find((c) => c.metadata?.namespace === ref.namespace && c.metadata.name === ref.name);
    const data = cm?.data ?? {};
    const keys = Object.keys(data)
      .sort()
      .map((key): Item => {
        const value = data[key] ?? '';
        const said = model?.problems.find((p) => p.object.kind === 'ConfigMap' && refKey(p.object.namespace, p.object.name) === id && `data.${key}`.startsWith(p.field));
        const servedHere = model?.stream?.services.some((s) => s.protocol === protocol.toLowerCase() && s.source.configMap === id && s.source.key === key) === true;
        if (servedHere) return { key, value, verdict: 'same', detail: said?.reason ?? '' };
        return { key, value, verdict: 'refused', detail: said?.reason ?? 'not served' };
      });
    return [{ ref: id, protocol, found: cm !== undefined, keys }];
  });
}
