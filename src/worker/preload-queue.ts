// The objects a folder's first read sends to the build worker ahead of the first snapshot (Offload.preload,
// docs/adr/0065), gathered into messages of PRELOAD_BATCH, and none once PRELOAD_MAX were offered.

/** Objects sent ahead in one message: a file's objects each were a thousand messages at 10,000 Ingresses. */
const PRELOAD_BATCH = 512;
/**
 * Objects sent ahead at most: about what 20,000 Ingresses make with their Services and EndpointSlices (head-beside.ts
 * AHEAD_MAX_INGRESSES). Sending all of 100,000 Ingresses' made their first read 3 s longer (15.8 s against 12.9 s:
 * the worker's parse took a core from it), and there the head goes through the worker first anyway.
 */
const PRELOAD_MAX = 64_000;

export class PreloadQueue {
  private queued: object[] = [];
  private turn: NodeJS.Immediate | undefined;
  /** Objects offered so far. */
  private offered = 0;

  /** `send`: one batch's objects, in the order offered. */
  constructor(private readonly send: (objects: readonly object[]) => void) {}

  /** Objects just read: sent once a batch is full, else at the next turn of the event loop (or at flush). */
  offer(objects: readonly object[]): void {
    this.offered += objects.length;
    if (this.offered > PRELOAD_MAX) {
      this.queued = []; // a large cluster: no more of it is sent ahead
      return;
    }
    for (const o of objects) this.queued.push(o);
    if (this.queued.length >= PRELOAD_BATCH) this.flush();
    else
      this.turn ??= setImmediate(() => {
        this.flush();
      });
  }

  /** What is queued, sent now. */
  flush(): void {
    clearImmediate(this.turn);
    this.turn = undefined;
    const objects = this.queued;
    this.queued = [];
    if (objects.length > 0) this.send(objects);
  }

  /** Nothing queued is sent. */
  close(): void {
    clearImmediate(this.turn);
    this.turn = undefined;
    this.queued = [];
  }
}
