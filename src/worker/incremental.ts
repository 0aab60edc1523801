// The build worker's sync build (docs/adr/0039): after a change of a few Ingresses (and the Services, EndpointSlices
// and Secrets of their namespaces), only their host neighbourhood is translated and spliced into the last model;
// any other change, and any part the splice cannot take, builds the whole, as every build did before.
import type { Config } from '../config/config.js';
import type { Snapshot } from '../model/input.js';
import type { Model } from '../model/types.js';
import type { RenderedConf, RenderOptions } from '../render/nginx-conf.js';
import type { AnnotationStage } from '../pipeline/annotations.js';
import { buildAndRender, buildStaged, modelOptions, renderBuilt } from '../pipeline/build.js';
import { scopeOf, type LastBuild } from './incremental-scope.js';
import { spliceModel } from './splice.js';

/** A build's result; `part`: the Ingress versions translated when the build was incremental, `why`: else why not. */
export interface SyncBuild {
  readonly model: Model;
  readonly conf: RenderedConf;
  readonly part?: number;
  readonly why?: string;
}

/** Builds syncs for one annotation stage, keeping the last whole-equivalent model to splice the next part into. */
export class IncrementalBuilder {
  private last: (LastBuild & { readonly model: Model }) | undefined;

  constructor(
    private readonly stage: AnnotationStage,
    private readonly config: Config,
    private readonly render: RenderOptions,
    /** False: every build is whole (--incremental-sync=false). */
    private readonly enabled: boolean,
  ) {}

  /**
   * The model and nginx.conf of `snap`; a trial (quarantine's search) is always whole and changes nothing kept.
   * `modelFirst`: told of a whole build's model before its nginx.conf is rendered (offload-worker.ts sends it ahead).
   */
  build(snap: Snapshot, trial = false, modelFirst?: (model: Model) => void): SyncBuild {
    if (trial) return buildAndRender(this.stage, snap, this.config, this.render, true);
    const part = this.enabled && this.last ? this.part(this.last, snap) : undefined;
    if (part && typeof part !== 'string') return part;
    const built = buildAndRender(this.stage, snap, this.config, this.render, { built: modelFirst });
    // Kept only to splice into: a whole model at 10,000 Ingresses is tens of MiB of the worker's heap (docs/adr/0044).
    if (this.enabled) this.last = { raw: snap, served: built.served, model: built.model };
    return { model: built.model, conf: built.conf, ...(part === undefined ? {} : { why: part }) };
  }

  /**
   * After a whole build of `snap`: the incremental path run twice, to `snap` with its last Ingress as a copy of itself
   * (the same content, another object) and back to `snap`, the results thrown away. The first incremental builds after
   * a whole one otherwise pay for the JIT's first runs of the scope, splice and identity memos and for the host index:
   * at 10,000 Ingresses the first took 0.49 s and the second 0.29 s, against 0.15 s from the fourth on. What it leaves
   * (the last model, the memos) is what a build of `snap` leaves. Nothing is done (false) when the last build was not
   * of `snap` or the part would be the whole.
   */
  warm(snap: Snapshot): boolean {
    const last = this.last;
    const ing = snap.ingresses.at(-1);
    if (!this.enabled || last?.raw !== snap || ing === undefined) return false;
    const copy: Snapshot = { ...snap, ingresses: [...snap.ingresses.slice(0, -1), { ...ing }] };
    if (scopeOf(last, copy, modelOptions(this.config)).kind === 'whole') return false;
    if (typeof this.part(last, copy) === 'string' || this.last === undefined) return false;
    return typeof this.part(this.last, snap) !== 'string';
  }

  /** The incremental build of `snap` after `last`, or why there is none. */
  private part(last: LastBuild & { readonly model: Model }, snap: Snapshot): SyncBuild | string {
    const opts = modelOptions(this.config);
    const scope = scopeOf(last, snap, opts);
    if (scope.kind === 'whole') return scope.why;
    // A trial run first: the stage keeps the last valid forms only once the splice is taken.
    const trial = this.stage.run(scope.snapshot, opts, true, scope.namespaces);
    const model = spliceModel(last.model, buildStaged(this.stage, trial, this.config), scope);
    if (typeof model === 'string') return model;
    const st = this.stage.run(scope.snapshot, opts, false, scope.namespaces);
    const conf = renderBuilt(this.stage, st, model, { config: this.config, render: this.render });
    const inPart = (ns: string): boolean => scope.namespaces.has(ns);
    const served = [...last.served.filter((i) => !inPart(i.metadata?.namespace || 'default')), ...st.snapshot.ingresses];
    this.last = { raw: snap, served, model };
    return { model, conf, part: scope.size };
  }
}
