// The worker thread that does a sync's CPU work (annotation stage → model → nginx.conf) and the admission webhook's
// judgement, so that neither a long sync nor a review ever blocks /healthz, the webhook or the event loop.
import { parentPort, workerData } from 'node:worker_threads';
import type { Config } from '../config/config.js';
import { createLogger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import type { RenderOptions } from '../render/nginx-conf.js';
import { reviewBatch } from '../webhook/batch.js';
import { prepareReviews } from '../webhook/neighbours.js';
import { AnnotationStage } from '../pipeline/annotations.js';
import { admissionChecker } from '../pipeline/build.js';
import { IncrementalBuilder } from './incremental.js';
import { collect, collectCompacting, COMPACT_WHEN_IDLE_MS, heapIsLarge, settle } from './collect.js';
import { pack, type Packed } from './wire.js';
import type { Model } from '../model/types.js';
import { SnapshotReceiver, type Preload, type SnapshotDelta } from './snapshot-wire.js';
import { readForMain, type ReadBatch, type ReadRequest } from './split-read.js';
import { ModelSender } from './model-wire.js';
import { ConfSender } from './conf-wire.js';
import { AfterWhole } from './after-whole.js';

export interface OffloadData {
  readonly config: Config;
  readonly render: RenderOptions;
}

/** A request: build a snapshot (a trial changes nothing kept), review an AdmissionReview body, or take a snapshot and index it for reviews. */
export type OffloadRequest =
  | { readonly id: number; readonly op: 'build'; readonly delta?: SnapshotDelta; readonly trial: boolean }
  | { readonly id: number; readonly op: 'review'; readonly delta?: SnapshotDelta; readonly body: unknown }
  | { readonly id: number; readonly op: 'prepare'; readonly delta?: SnapshotDelta }
  /** Reviews of the snapshot the worker holds, sent together; answered as `{ replies }`, one message per batch. */
  | { readonly id: 0; readonly op: 'reviews'; readonly items: readonly { readonly id: number; readonly body: unknown }[] }
  /** The main thread applied the last build's result (Offload.synced): the idle compaction counts from now. No reply. */
  | { readonly id: 0; readonly op: 'synced' }
  /** Objects of the first snapshot, sent while the main thread still reads the rest (Offload.preload). No reply. */
  | { readonly id: 0; readonly op: 'preload'; readonly items: Preload }
  /** Files of a folder's first read, read here (split-read.ts): answered by ReadAhead messages, then a reply. */
  | { readonly id: number; readonly op: 'read'; readonly read: ReadRequest };

export type OffloadReply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly error: string };

/** Files read for the main thread (split-read.ts), sent as they are read, before the read's reply. */
export interface ReadAhead {
  readonly id: number;
  readonly batch: ReadBatch;
}

/** A whole build's model delta (pack()'s), sent before its reply, which then carries the nginx.conf alone. */
export interface ModelAhead {
  readonly id: number;
  readonly ahead: Packed;
}

const { config, render } = workerData as OffloadData;
const log = createLogger(config.logLevel);
// One stage for syncs: it keeps each Ingress's last valid annotations between syncs, as it did on the main thread.
const stage = new AnnotationStage(config, log);
/** Sync builds: after a change of a few Ingresses, their neighbourhood only (docs/adr/0039). */
const builder = new IncrementalBuilder(stage, config, render, config.incrementalSync);
const checker = admissionChecker(config, log.child({ component: 'webhook' }, { level: 'silent' }));
/** The last snapshot posted: the main thread sends its changes only when it changed. */
let snapshot: Snapshot | undefined;
const receiver = new SnapshotReceiver();
/** Each build's model goes back as changes against the last one sent (model-wire.ts). */
const models = new ModelSender();
/** And its nginx.conf as changes against the last one sent (conf-wire.ts). */
const confs = new ConfSender();

let collecting: NodeJS.Timeout | undefined;
/** When the last collection after a build ran (ms since the epoch). */
let collected = 0;
const COLLECT_PARTS_EVERY_MS = 5000;
/**
 * A part's collection waits this long after its reply: right after it, the collection (0.1 s of a core at 10,000
 * Ingresses) ran while the main thread applied the part and nginx took the push, on the same 2 cores (ADR 0046).
 */
const COLLECT_AFTER_PART_MS = 500;
/*
 * A compacting collection once no request came for COMPACT_WHEN_IDLE_MS (collect.ts) after a build: the collection after each build does not
 * compact (a build waiting behind it), and left the worker's heap at twice what was live (140 MiB committed for 67 at
 * 10,000 Ingresses, docs/adr/0044); compacting gives the pages back while nothing waits. A build that arrives while
 * it runs waits for it (0.25 s idle at 10,000, 0.8 s at load 6-8): after 2 s it fell on the second change of a
 * kubectl session or a rollout; a 10 s lull is rarer (docs/adr/0045).
 */
/**
 * With a large heap (collect.ts heapIsLarge) the compaction waits a minute of quiet instead: at 100,000 Ingresses it is
 * a pause of 1-2 s, and a change that came 10 s after a sync (bench/scale's, after its own nginx -t and SIGHUP) waited
 * for it: served in 2.9 s instead of 1.0-1.2 s.
 */
const COMPACT_WHEN_IDLE_LARGE_MS = 60_000;
/**
 * Counted from the sync's end, which the main thread posts ('synced'): from the build's reply, the compaction of a
 * 100,000-Ingress heap (1-1.5 GiB) fell in the middle of the reload and the pushes that follow it, a core taken from
 * nginx -t and the master's parse (docs/adr/0053). Without that word (a sync that failed), this long after the build.
 */
const APPLY_AT_MOST_MS = 60_000;
let compacting: NodeJS.Timeout | undefined;
/** How long after the main thread applied a whole build the incremental path is warmed (IncrementalBuilder.warm), unless a build came. */
const WARM_AFTER_MS = 200;
/** Whether the last build was whole (not a trial): a warm-up follows it. */
let wholeBuilt = false;
/** Builds answered so far: the first one's collection compacts (collect.ts). */
let builds = 0;

function answer(req: Exclude<OffloadRequest, { op: 'reviews' | 'synced' | 'preload' | 'read' }>): unknown {
  if (req.delta) snapshot = receiver.apply(req.delta);
  if (!snapshot) throw new Error('no snapshot was posted');
  if (req.op === 'build') {
    wholeBuilt = false; // until this build is done, and stays so if it throws
    // A whole build's model crosses before nginx.conf is rendered: the main thread takes it in (at 10,000 Ingresses
    // 0.2-0.25 s of structured clone and collection) while this thread renders, instead of after (docs/adr/0065).
    const sent = { ahead: false };
    const modelFirst = (model: Model): void => {
      try {
        parentPort?.postMessage({ id: req.id, ahead: pack(models.delta(model)) } satisfies ModelAhead);
        sent.ahead = true;
      } catch {
        models.forget(); // not sent: it goes whole with the reply
      }
    };
    const { model, conf, part, why } = builder.build(snapshot, req.trial, modelFirst); // a trial sends nothing ahead
    if (config.incrementalSync && !req.trial) log.debug(part === undefined ? { whole: why ?? 'first build' } : { part }, 'build');
    wholeBuilt = !req.trial && part === undefined;
    return pack({ ...(sent.ahead ? {} : { model: models.delta(model) }), conf: confs.delta(conf) });
  }
  if (req.op === 'prepare') {
    prepareReviews(snapshot);
    return null;
  }
  return reviewBatch([req.body], snapshot, checker)[0];
}

/**
 * Reviews that arrived while the worker was busy, judged together once the messages waiting now have been read
 * (webhook/batch.ts): under many concurrent reviews a model's fixed cost is paid once per batch, not per review.
 */
let reviews: { id: number; body: unknown }[] = [];
let reviewing: NodeJS.Immediate | undefined;
/** At most this many reviews in one batch, so that one batch's model stays small. */
const MAX_BATCH = 64;

/** A batch's replies in one message; one by one if that fails to clone, so only a reply that cannot be sent fails. */
function send(replies: readonly OffloadReply[]): void {
  try {
    parentPort?.postMessage({ replies });
  } catch {
    for (const reply of replies) {
      try {
        parentPort?.postMessage(reply);
      } catch (err) {
        parentPort?.postMessage({ id: reply.id, ok: false, error: `the result could not be sent: ${err instanceof Error ? err.message : String(err)}` });
      }
    }
  }
}

/** Judges the waiting reviews against the snapshot they were posted with (a delta or a build flushes them first). */
function flushReviews(): void {
  clearImmediate(reviewing);
  reviewing = undefined;
  // Each round takes up to MAX_BATCH reviews off the queue: it ends within queue length / MAX_BATCH rounds.
  while (reviews.length > 0) {
    const batch = reviews.slice(0, MAX_BATCH);
    reviews = reviews.slice(MAX_BATCH);
    let outcomes: unknown[] | undefined;
    try {
      if (!snapshot) throw new Error('no snapshot was posted');
      outcomes = reviewBatch(
        batch.map((r) => r.body),
        snapshot,
        checker,
      );
    } catch {
      // A body that throws before judging (never one the API server sends) fails alone: the batch is answered one by one.
    }
    send(batch.map((r, i): OffloadReply => (outcomes ? { id: r.id, ok: true, value: outcomes[i] } : alone(r))));
  }
}

/** One review judged by itself, its error its own reply. */
function alone(r: { id: number; body: unknown }): OffloadReply {
  try {
    if (!snapshot) throw new Error('no snapshot was posted');
    return { id: r.id, ok: true, value: reviewBatch([r.body], snapshot, checker)[0] };
  } catch (err) {
    return { id: r.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
}

/**
 * After a whole build (held until the main thread applied it: after-whole.ts): the incremental path's warm-up, then one
 * collection, compacting after the worker's first build. A review that comes meanwhile waits for them (0.2-0.5 s at
 * 10,000 Ingresses).
 */
const afterWhole = new AfterWhole(
  (first) => {
    if (config.incrementalSync) {
      const started = performance.now();
      try {
        if (snapshot && builder.warm(snapshot)) log.debug({ ms: Math.round(performance.now() - started) }, 'warmed the incremental build');
      } catch (err) {
        // a warm-up is only a head start: what fails here fails the next real build too, with its own reply
        log.debug({ err: err instanceof Error ? err.message : String(err) }, 'the incremental build could not be warmed');
      }
    }
    // one collection after both: the build's garbage and the warm-up's (one before the warm-up as well was a second
    // full collection back to back once both waited for the same word)
    collected = Date.now();
    if (first) collectCompacting();
    else void collect();
  },
  WARM_AFTER_MS,
  APPLY_AT_MOST_MS,
);

/** A folder's first read, its second half read here while the main thread reads the first (split-read.ts). */
function readAhead(req: Extract<OffloadRequest, { op: 'read' }>): void {
  let reply: OffloadReply = { id: req.id, ok: true, value: null };
  try {
    readForMain(
      req.read,
      (id, o) => {
        receiver.hold(id, o);
      },
      (batch) => {
        parentPort?.postMessage({ id: req.id, batch } satisfies ReadAhead);
      },
    );
  } catch (err) {
    // what was held stays unnamed (dropped after two deltas); the main thread reads these files itself
    reply = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  parentPort?.postMessage(reply);
}

parentPort?.on('message', (req: OffloadRequest) => {
  if (req.op === 'preload') {
    receiver.preload(req.items);
    return;
  }
  if (req.op === 'read') {
    readAhead(req);
    return;
  }
  if (req.op === 'synced') {
    afterWhole.synced();
    // the warm-up (if still pending) stays; the compaction counts its idle time from now, and after the first build
    // (compacted at once) the young generation's shrink alone
    compactLater(quietBeforeCompaction(), compacting !== undefined);
    return;
  }
  clearTimeout(compacting);
  compacting = undefined;
  if (req.op === 'build') afterWhole.drop();
  if (req.op === 'reviews' || (req.op === 'review' && !req.delta)) {
    reviews.push(...(req.op === 'reviews' ? req.items : [{ id: req.id, body: req.body }]));
    reviewing ??= setImmediate(flushReviews);
    return;
  }
  flushReviews();
  let reply: OffloadReply;
  try {
    reply = { id: req.id, ok: true, value: answer(req) };
  } catch (err) {
    // the main thread may not get the model whose parts the sender now counts as held
    models.forget();
    confs.forget();
    reply = { id: req.id, ok: false, error: err instanceof Error ? err.message : String(err) };
  }
  try {
    parentPort?.postMessage(reply);
  } catch (err) {
    models.forget();
    confs.forget();
    // A value that cannot be cloned must fail its request, not the worker (and every request after it).
    parentPort?.postMessage({ id: req.id, ok: false, error: `the result could not be sent: ${err instanceof Error ? err.message : String(err)}` });
  }
  // After a build only (a review allocates little), once the reply is on its way. A whole build leaves ~350 MiB of
  // garbage at 10,000 Ingresses, which V8 would collect late: it is collected (and the incremental path warmed) once the
  // main thread has applied the result (afterWhole, after-whole.ts). A part leaves little: its collection (~0.1 s of a core)
  // competed with the main thread applying it, so after parts one runs only every COLLECT_PARTS_EVERY_MS (under churn),
  // and none with a large heap (collect.ts heapIsLarge: a second's pause that the next change would wait for); the
  // compaction when idle takes the rest (ADR 0045). A trial's runs at once.
  if (req.op === 'build') {
    builds += 1;
    const first = builds === 1;
    if (wholeBuilt) afterWhole.hold(first);
    else if (req.trial || (Date.now() - collected >= COLLECT_PARTS_EVERY_MS && !heapIsLarge()))
      collecting ??= setTimeout(
        () => {
          collecting = undefined;
          collected = Date.now();
          if (first) collectCompacting();
          else void collect();
        },
        req.trial ? 0 : COLLECT_AFTER_PART_MS,
      );
    // The main thread says when it has applied the result ('synced'): the compaction waits for that, since until then
    // nginx -t, the reload and the pushes need the cores. A sync that never says so (it failed) gets it after a minute.
    if (!first) compactLater(APPLY_AT_MOST_MS);
  }
});

/** How long without a request the compaction waits, by the heap's size. */
function quietBeforeCompaction(): number {
  return heapIsLarge() ? COMPACT_WHEN_IDLE_LARGE_MS : COMPACT_WHEN_IDLE_MS;
}

/**
 * In `ms`, unless a request comes first (each one clears it): collect.ts settle(), with a compacting collection when
 * `compact`.
 */
function compactLater(ms: number, compact = true): void {
  clearTimeout(compacting);
  compacting = setTimeout(() => {
    compacting = settle(compact);
  }, ms);
  compacting.unref();
}
