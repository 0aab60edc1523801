// The annotation stage of a sync: global ConfigMap, header ConfigMaps and last valid Ingresses, kept across syncs.
import { RenderMemo } from '../render/memo.js';
import { modelMemo, type ModelMemo } from '../model/memo.js';
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { parseConfigMap } from '../annotations/configmap.js';
import { checkAdminSnippets } from '../model/snippets/admin.js';
import { headersFrom, selectIngresses, type Accepted } from '../annotations/select.js';
import { classSelector } from '../model/classes.js';
import type { ModelOptions, Snapshot } from '../model/input.js';
import { GLOBAL_DEFAULTS, type AnnotationInput, type GlobalSettings, type ResolvedHeaders } from '../model/settings.js';
import type { Problem } from '../model/types.js';

export interface StageResult {
  readonly snapshot: Snapshot;
  readonly input: AnnotationInput;
  readonly problems: readonly Problem[];
  readonly global: GlobalSettings;
  readonly headers: ResolvedHeaders;
}

/** Holds what must survive between syncs: the last parsed global settings and the last valid Ingresses. */
export class AnnotationStage {
  private global: GlobalSettings = GLOBAL_DEFAULTS;
  private lastValid: ReadonlyMap<string, Accepted> = new Map();
  private readonly logged = new Set<string>();
  private configProblems: readonly Problem[] = [];
  /** What the model keeps between this stage's builds (model/memo.ts): the builds of one worker share it. */
  readonly memo: ModelMemo = modelMemo();
  /** Server blocks this stage's last full build rendered (render/memo.ts); trial builds neither use nor change it. */
  readonly renderMemo = new RenderMemo();

  constructor(
    private readonly config: Config,
    private readonly log: Logger,
  ) {}

  private once(key: string, fn: () => void): void {
    if (this.logged.has(key)) return;
    this.logged.add(key);
    fn();
  }

  /** Parses the global ConfigMap (--configmap); a refused value keeps its previous one, unknown keys are logged once. */
  private globals(snap: Snapshot, trial: boolean): GlobalSettings {
    const ref = this.config.configmap;
    if (ref === undefined) return this.global;
    const [ns, name] = ref.split('/');
    const cm = snap.configMaps.find((c) => c.metadata?.namespace === ns && c.metadata?.name === name);
    const r = parseConfigMap(cm?.data, this.global);
    for (const k of r.unknown)
      this.once(`unknown ${k}`, () => {
        this.log.warn({ configmap: ref, key: k }, `ConfigMap ${ref}: unknown key ${k} ignored`);
      });
    for (const e of r.errors) {
      this.once(`bad ${e.key} ${e.reason}`, () => {
        this.log.warn({ configmap: ref, key: e.key }, `ConfigMap ${ref} ${e.key}: ${e.reason}; keeping the previous value`);
      });
    }
    for (const e of r.noops)
      this.once(`noop ${e.key}`, () => {
        this.log.info({ configmap: ref, key: e.key }, `ConfigMap ${ref} ${e.key}: ${e.reason}`);
      });
    // Refused keys and refused values are Warnings with an Event on the ConfigMap (the problem reporter logs them).
    this.configProblems = [...r.refused, ...r.errors].map((e) => ({
      object: { kind: 'ConfigMap', namespace: ns ?? '', name: name ?? '' },
      field: `data.${e.key}`,
      reason: e.reason,
      severity: 'degraded' as const,
    }));
    const checked = checkAdminSnippets(r.settings, this.config.snippetMode);
    this.configProblems = [
      ...this.configProblems,
      ...checked.refused.map((e) => ({
        object: { kind: 'ConfigMap', namespace: ns ?? '', name: name ?? '' },
        field: `data.${e.key}`,
        reason: `${e.reason}; not applied`,
        severity: 'degraded' as const,
      })),
    ];
    if (!trial) this.global = checked.settings;
    return checked.settings;
  }

  private headers(snap: Snapshot, g: GlobalSettings): ResolvedHeaders {
    const read = (ref: string | undefined, key: string): [string, string][] => {
      if (ref === undefined) return [];
      const r = headersFrom(snap.configMaps, ref);
      if (r.error !== undefined)
        this.once(`${key} ${r.error}`, () => {
          this.log.warn({ key }, `ConfigMap ${key}: ${r.error ?? ''}; no headers added`);
        });
      return r.headers;
    };
    return { add: read(g.addHeaders, 'add-headers'), proxySet: read(g.proxySetHeaders, 'proxy-set-headers') };
  }

  /**
   * Runs the stage on one snapshot; a `trial` run (quarantine's search) changes nothing kept between syncs. `part`:
   * the snapshot holds only the Ingresses of these namespaces (an incremental sync, docs/adr/0039), so the last valid
   * forms of the others are kept as they are.
   */
  run(snap: Snapshot, opts: ModelOptions, trial = false, part?: ReadonlySet<string>): StageResult {
    const global = this.globals(snap, trial);
    const sel = selectIngresses(snap, this.lastValid, {
      prefix: this.config.annotationsPrefix,
      riskLevel: global.annotationsRiskLevel ?? this.config.annotationsRiskLevel,
      allowSnippets: global.allowSnippetAnnotations ?? this.config.allowSnippetAnnotations,
      snippetMode: this.config.snippetMode,
      strictPaths: global.strictValidatePathType,
      serviceUpstream: global.serviceUpstream,
      ours: classSelector(snap.ingressClasses, opts),
      auth: global,
      targets: opts.targets,
    });
    if (!trial) this.lastValid = part ? new Map([...[...this.lastValid].filter(([k]) => !part.has(k.slice(0, k.indexOf('/')))), ...sel.lastValid]) : sel.lastValid;
    return { snapshot: sel.snapshot, input: sel.input, problems: [...this.configProblems, ...sel.problems], global, headers: this.headers(snap, global) };
  }
}
