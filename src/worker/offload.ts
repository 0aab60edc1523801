// The main thread's side of offload-worker.ts: one worker per role (syncs, admission reviews), so a review never
// waits behind a sync and neither runs on the thread that answers /healthz.
import { Worker } from 'node:worker_threads';
import { BuildError } from '../errors.js';
import type { Config } from '../config/config.js';
import type { Snapshot } from '../model/input.js';
import type { Model } from '../model/types.js';
import type { RenderOptions, RenderedConf } from '../render/nginx-conf.js';
import type { ReviewOutcome } from '../webhook/review.js';
import type { ModelAhead, OffloadData, OffloadReply, OffloadRequest, ReadAhead } from './offload-worker.js';
import { AfterSyncCollections } from './main-collect.js';
import { unpack, type Packed } from './wire.js';
import { SNAPSHOT_REFUSED, SnapshotSender } from './snapshot-wire.js';
import { ModelReceiver, type ModelDelta } from './model-wire.js';
import { ConfReceiver, type ConfDelta } from './conf-wire.js';
import { PreloadQueue } from './preload-queue.js';
import { receiveBatch } from './split-read.js';
import type { StampedFile } from '../sources/manifest-files.js';
import { PLACEHOLDER } from '../sources/manifest-stamp.js';

/**
 * `open`: run on the value as its reply arrives, in the order replies arrive (a build's model delta), with the model
 * that crossed ahead of it (`ahead`, offload-worker.ts ModelAhead) if one did.
 */
type Pending = {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
  open?: (v: unknown, ahead: Model | undefined) => unknown;
  ahead?: Model;
  /** A read's files, as the worker sends them (readAhead). */
  read?: (files: readonly StampedFile[]) => void;
};
type Request = { op: 'build'; trial: boolean } | { op: 'review'; body: unknown } | { op: 'prepare' };

/** One worker thread and the requests in flight to it; a worker that dies is replaced on the next request. */
export class Offload {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private next = 1;
  private posted: Snapshot | undefined;
  /** What the worker holds of the snapshots posted so far: only changes cross (snapshot-wire.ts). */
  private readonly sender = new SnapshotSender();
  /** What this side holds of the models the worker sent back (model-wire.ts). */
  private models = new ModelReceiver();
  /** And of their nginx.conf (conf-wire.ts). */
  private confs = new ConfReceiver();
  private closed = false;
  /** Reviews waiting to cross together (Offload.review), and the turn that sends them. */
  private queued: { id: number; body: unknown }[] = [];
  private crossing: NodeJS.Immediate | undefined;
  /** The main thread's collections after a sync (main-collect.ts). */
  private readonly collections = new AfterSyncCollections();
  /** Workers started so far (the first included): a restart is logged by the caller through onDeath. */
  starts = 0;
  /** Objects read for the first snapshot, waiting to be sent ahead of it (preload). */
  private readonly preloads = new PreloadQueue((objects) => {
    this.sendPreload(objects);
  });
  /** Told of a whole build's model as it arrives ahead of its reply, while the worker still renders (Controller). */
  onAhead: ((model: Model) => void) | undefined;
  /** A build started ahead (Offload.ahead): the next build() of the same snapshot answers with it. */
  private early: { readonly snapshot: Snapshot; readonly result: Promise<{ model: Model; conf: RenderedConf }> } | undefined;

  constructor(
    private readonly config: Config,
    private readonly render: RenderOptions,
    private readonly onDeath?: (why: string) => void,
  ) {
    this.spawn();
  }

  private spawn(): Worker {
    const data: OffloadData = { config: this.config, render: this.render };
    const worker = new Worker(new URL('./offload-worker.js', import.meta.url), { workerData: data });
    this.starts += 1;
    this.worker = worker;
    this.posted = undefined; // a new worker holds no snapshot yet
    this.sender.forget();
    this.models = new ModelReceiver();
    this.confs = new ConfReceiver();
    worker.unref();
    worker.on('message', (m: OffloadReply | ModelAhead | ReadAhead | { readonly replies: readonly OffloadReply[] }) => {
      if ('ahead' in m) this.takeAhead(worker, m);
      else if ('batch' in m) this.takeRead(m);
      else for (const r of 'replies' in m ? m.replies : [m]) this.settle(worker, r);
    });
    let why = '';
    worker.on('error', (err: Error) => {
      why = err.stack ?? err.message;
    });
    worker.on('exit', (code) => {
      if (this.worker === worker) this.worker = undefined;
      const err = new Error(`the build worker exited (code ${code})${why ? `: ${why.split('\n')[0] ?? ''}` : ''}`);
      for (const p of this.pending.values()) p.reject(err);
      this.pending.clear();
      if (!this.closed) this.onDeath?.(err.message);
    });
    return worker;
  }

  /** A whole build's model, ahead of its reply: taken in now, while the worker renders nginx.conf. */
  private takeAhead(worker: Worker, m: ModelAhead): void {
    const p = this.pending.get(m.id);
    try {
      const model = this.models.apply(unpack<ModelDelta>(m.ahead));
      if (p) p.ahead = model;
      this.tellAhead(model);
    } catch (err) {
      this.pending.delete(m.id);
      this.lost(worker, p, err);
    }
  }

  /** Files the worker read for this side (split-read.ts): its objects as the store keeps them, those it holds adopted. */
  private takeRead(m: ReadAhead): void {
    const p = this.pending.get(m.id);
    try {
      p?.read?.(
        receiveBatch(m.batch, (o, id) => {
          this.sender.adopt(o, id);
        }),
      );
    } catch (err) {
      this.pending.delete(m.id);
      p?.reject(err instanceof Error ? err : new Error(String(err)));
    }
  }

  /**
   * Has the worker read `names` of the folder `dir` and send their objects, stamped as a first read stamps (the main
   * thread reads the other files meanwhile: docs/adr/0066). Undefined when no worker is there to ask, or after the
   * first snapshot. A failure (the worker died) leaves the files to be read here.
   */
  readAhead(dir: string, names: readonly string[]): Promise<StampedFile[]> | undefined {
    const worker = this.worker;
    if (this.closed || this.posted !== undefined || worker === undefined) return undefined;
    const id = this.next++;
    const files: StampedFile[] = [];
    return new Promise((resolve, reject) => {
      this.pending.set(id, {
        resolve: () => {
          resolve(files);
        },
        reject,
        read: (got) => {
          files.push(...got);
        },
      });
      worker.postMessage({ id, op: 'read', read: { dir, names, placeholder: PLACEHOLDER } } satisfies OffloadRequest);
    });
  }

  /** onAhead, whose failure is only a head start lost (the sync does the same work later). */
  private tellAhead(model: Model): void {
    try {
      this.onAhead?.(model);
    } catch {
      /* the sync that takes this model does it again, and reports what fails */
    }
  }

  /** `p` fails with `err`, which left this side not holding what the worker counts it as holding: a new worker starts both from nothing. */
  private lost(worker: Worker, p: Pending | undefined, err: unknown): void {
    p?.reject(err instanceof Error ? err : new Error(String(err)));
    void worker.terminate();
  }

  /** One reply from `worker`: its request's promise settles. */
  private settle(worker: Worker, r: OffloadReply): void {
    const p = this.pending.get(r.id);
    this.pending.delete(r.id);
    if (!r.ok) {
      // the worker refused a snapshot delta (it holds other lists than this side counts on): the next one is whole
      if (r.error.startsWith(SNAPSHOT_REFUSED)) {
        this.sender.forget();
        this.posted = undefined;
      }
      p?.reject(new BuildError(r.error));
      return;
    }
    try {
      p?.resolve(p.open ? p.open(r.value, p.ahead) : r.value);
    } catch (err) {
      this.lost(worker, p, err);
    }
  }

  /**
   * Objects just read, before the first snapshot is posted (a folder's first read): the worker parses their text while
   * this thread reads and stamps the rest, builds the head, and the whole snapshot's delta then names them by id. At
   * 10,000 Ingresses the worker's parse of the whole cluster's text (0.2-0.25 s with its collections) came after the
   * read, on the way to every route being served (docs/adr/0065). After the first snapshot, nothing is sent ahead.
   */
  preload(objects: readonly object[]): void {
    if (!this.closed && this.posted === undefined && this.worker !== undefined) this.preloads.offer(objects);
  }

  private sendPreload(objects: readonly object[]): void {
    // a worker that died meanwhile: none is counted as sent ahead (a new one starts from nothing)
    const worker = this.worker;
    if (this.posted !== undefined || worker === undefined) return;
    const items = this.sender.preload(objects);
    if (items.ids.length > 0) worker.postMessage({ id: 0, op: 'preload', items } satisfies OffloadRequest);
  }

  private ask(snapshot: Snapshot, req: Request, open?: Pending['open']): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the build worker is closed'));
    this.preloads.flush(); // what was read goes before the snapshot that names it
    this.sendQueued(); // reviews queued for the snapshot the worker holds go before a request that may change it
    const worker = this.worker ?? this.spawn();
    const id = this.next++;
    // The snapshot crosses only when it changed since the last request (the store freezes it), and then only the
    // objects the worker does not hold yet.
    const delta = snapshot === this.posted ? undefined : this.sender.delta(snapshot);
    this.posted = snapshot;
    const message: OffloadRequest = { id, ...req, ...(delta ? { delta } : {}) };
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, ...(open ? { open } : {}) });
      worker.postMessage(message);
    });
  }

  /**
   * Starts the build of `snapshot` now: the startup whole, while the main thread builds its head (controller/
   * head-beside.ts). The next build() of the same snapshot answers with it; one of another snapshot drops it (its reply
   * is still taken in, so this side keeps holding what the worker sent).
   */
  ahead(snapshot: Snapshot): void {
    if (this.early?.snapshot === snapshot) return;
    const result = this.build(snapshot);
    result.catch(() => undefined); // the build() that takes it sees the failure
    this.early = { snapshot, result };
  }

  /** Annotation stage → model → nginx.conf for `snapshot`, off the main thread. */
  async build(snapshot: Snapshot, trial = false): Promise<{ model: Model; conf: RenderedConf }> {
    const early = trial ? undefined : this.early;
    if (early) {
      this.early = undefined;
      if (early.snapshot === snapshot) return early.result;
    }
    this.collections.cancel(); // a sync is under way: its end schedules the collection again
    const built = await this.ask(snapshot, { op: 'build', trial }, (v, ahead) => {
      // the worker's build reply is pack()'s; without a model when it crossed ahead
      const { model, conf } = unpack<{ model?: ModelDelta; conf: ConfDelta }>(v as Packed);
      const got = model === undefined ? ahead : this.models.apply(model);
      if (got === undefined) throw new Error('the build reply has no model, and none came ahead of it');
      return { model: got, conf: this.confs.apply(conf) };
    });
    // open() above made it from the worker's { model, conf } reply.
    return built as { model: Model; conf: RenderedConf };
  }

  /**
   * A sync applied a build's result and let the previous model go (30-50 MiB at 10,000 Ingresses, which V8 left in the
   * old generation by the hundreds of MiB before collecting): one full collection once nothing follows for a second,
   * or now when the last one is overdue. The next build cancels a pending one.
   */
  synced(): void {
    this.worker?.postMessage({ id: 0, op: 'synced' } satisfies OffloadRequest);
    const models = this.models;
    setImmediate(() => {
      models.intern();
    }).unref();
    this.collections.schedule();
  }

  /**
   * The webhook's answer to one AdmissionReview body, judged against `snapshot`. Reviews of the snapshot the worker
   * already holds wait for the end of this turn of the event loop and cross together, in one message each way: under
   * many concurrent reviews a message per review cost the main thread more than the review itself.
   */
  async review(body: unknown, snapshot: Snapshot): Promise<ReviewOutcome> {
    if (this.closed || !this.worker || snapshot !== this.posted) return (await this.ask(snapshot, { op: 'review', body })) as ReviewOutcome;
    const id = this.next++;
    const answered = new Promise<unknown>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
    });
    this.queued.push({ id, body });
    this.crossing ??= setImmediate(() => {
      this.sendQueued();
    });
    return (await answered) as ReviewOutcome;
  }

  /** Posts the queued reviews (those still pending: a worker that died has rejected its own) in one message. */
  private sendQueued(): void {
    clearImmediate(this.crossing);
    this.crossing = undefined;
    const items = this.queued.filter((q) => this.pending.has(q.id));
    this.queued = [];
    if (items.length > 0) this.worker?.postMessage({ id: 0, op: 'reviews', items } satisfies OffloadRequest);
  }

  /**
   * Sends `snapshot` to the worker and has it index the snapshot for reviews, before any review asks: at 100,000
   * Ingresses the first crossing takes a minute or more, which the first review would otherwise wait for.
   */
  async prepare(snapshot: Snapshot): Promise<void> {
    await this.ask(snapshot, { op: 'prepare' });
  }

  async close(): Promise<void> {
    this.closed = true;
    this.collections.cancel();
    clearImmediate(this.crossing);
    this.preloads.close();
    await this.worker?.terminate();
  }
}
