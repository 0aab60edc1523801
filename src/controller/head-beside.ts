// The startup head (startup-head.ts) built on the main thread while the build worker builds the whole beside it
// (docs/adr/0064). Before, the worker built the head and only then the whole: at 10,000 Ingresses the whole's build
// started 0.6-0.7 s after the files were read, with the machine's second core idle while the head was built and pushed.
import type { Builder } from '../apply/executor.js';
import type { Config } from '../config/config.js';
import { BuildError, errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import type { Model } from '../model/types.js';
import { AnnotationStage } from '../pipeline/annotations.js';
import { buildAndRender } from '../pipeline/build.js';
import type { RenderOptions, RenderedConf } from '../render/nginx-conf.js';
import type { Offload } from '../worker/offload.js';

/**
 * Up to this many Ingresses in the whole. Above, the head goes through the worker before the whole, as before: the
 * whole's crossing to the worker came before the head's build, and at 100,000 the head was served 1.3-2.3 s later
 * and the whole 0.8-5.7 s later in three pairs of runs (docs/adr/0064).
 */
export const AHEAD_MAX_INGRESSES = 20_000;

/** The executor's builder: the build worker, but for a startup head, which is built here. */
export class HeadBeside implements Builder {
  private head: Snapshot | undefined;

  constructor(
    private readonly offload: Offload,
    private readonly config: Config,
    private readonly render: RenderOptions,
    private readonly log: Logger,
  ) {}

  /** The first sync took `head` of `whole`: the worker starts on `whole` now, and `head` is built here when asked. */
  split(head: Snapshot, whole: Snapshot): void {
    if (whole.ingresses.length > AHEAD_MAX_INGRESSES) return;
    this.head = head;
    this.offload.ahead(whole);
  }

  build(snapshot: Snapshot, trial = false): Promise<{ model: Model; conf: RenderedConf }> {
    if (snapshot !== this.head) return this.offload.build(snapshot, trial);
    this.head = undefined;
    try {
      // A stage of its own, run as a trial (nothing kept for a next build) and silent: the worker's stage reports the
      // ConfigMap's warnings once, with the whole.
      const stage = new AnnotationStage(this.config, this.log.child({}, { level: 'silent' }));
      const { model, conf } = buildAndRender(stage, snapshot, this.config, this.render, true);
      this.log.debug({ head: 'on the main thread, the whole beside it in the build worker' }, 'build');
      return Promise.resolve({ model, conf });
    } catch (err) {
      // as the worker's refusals come back: the executor looks for the Ingress that caused it
      return Promise.reject(new BuildError(errorMessage(err)));
    }
  }
}
