// The worker thread that does a sync's CPU work (annotation stage → model → nginx.conf) and the admission webhook's
// judgement, so that neither a long sync nor a review ever blocks /healthz, the webhook or the event loop.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config/config.js';
import { createLogger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import type { RenderOptions } from '../render/nginx-conf.js';
import { reviewAdmission } from '../webhook/review.js';
import { AnnotationStage } from './annotations.js';
import { admissionChecker, buildAndRender } from './controller.js';
import { pack } from './wire.js';
import { SnapshotReceiver, type SnapshotDelta } from './snapshot-wire.js';

export interface OffloadData {
  readonly config: Config;
  readonly render: RenderOptions;
}

/** A request: build a snapshot (a trial changes nothing kept), or review an AdmissionReview body. */
export type OffloadRequest =
  | { readonly id: number; readonly op: 'build'; readonly delta?: SnapshotDelta; readonly trial: boolean }
  | { readonly id: number; readonly op: 'review'; readonly delta?: SnapshotDelta; readonly body: unknown };

export type OffloadReply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly error: string };

const { config, render } = workerData as OffloadData;
const log = createLogger(config.logLevel);
// One stage for syncs: it keeps each Ingress's last valid annotations between syncs, as it did on the main thread.
const stage = new AnnotationStage(config, log);
const checker = admissionChecker(config, log.child({ component: 'webhook' }, { level: 'silent' }));
/** The last snapshot posted: the main thread sends its changes only when it changed. */
let snapshot: Snapshot | undefined;
const receiver = new SnapshotReceiver();

/**
 * A full collection of this thread's heap, or nothing where gc cannot be had. A build at 10,000 Ingresses leaves
 * hundreds of MiB of garbage that V8 collects late (the heap grew to ~450 MiB for ~90 MiB live): collected after each
 * reply, while the main thread applies the result, the heap stays near what is live.
 */
const collect = ((): (() => void) => {
  try {
    setFlagsFromString('--expose-gc');
    // A new context is created with the flag set and carries gc(); it collects the whole isolate.
    const gc = runInNewContext('gc') as unknown;
    setFlagsFromString('--no-expose-gc'); // flags are the process's: contexts made later (vm, tests) stay as they were
    if (typeof gc === 'function') return gc as () => void;
  } catch {
    // no gc: the heap is left to V8's own schedule
  }
  return () => undefined;
})();
let collecting: NodeJS.Immediate | undefined;

function answer(req: OffloadRequest): unknown {
  if (req.delta) snapshot = receiver.apply(req.delta);
  if (!snapshot) throw new Error('no snapshot was posted');
  if (req.op === 'build') return pack(buildAndRender(stage, snapshot, config, render, req.trial));
  return reviewAdmission(req.body, snapshot, checker);
}

parentPort?.on('message', (req: OffloadRequest) => {
  let reply: OffloadReply;
  try {
    reply = { id: req.id, ok: true, value: answer(req) };
  } catch (err) {
    reply = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  try {
    parentPort?.postMessage(reply);
  } catch (err) {
    // A value that cannot be cloned must fail its request, not the worker (and every request after it).
    parentPort?.postMessage({ id: req.id, ok: false, error: `the result could not be sent: ${err instanceof Error ? err.message : String(err)}` });
  }
  // After a build only (a review allocates little), once the reply is on its way (a full collection of ~90 MiB live
  // takes the worker 0.1-0.3 s, which the main thread spends applying the result).
  if (req.op === 'build') {
    collecting ??= setImmediate(() => {
      collecting = undefined;
      collect();
    });
  }
});
