// Watch streams: chunked JSON lines of ADDED/MODIFIED/DELETED/BOOKMARK/ERROR, replay from a resourceVersion, hooks.
import type { ServerResponse } from 'node:http';
import { apiVersionOf, type KindInfo } from './kinds.js';
import type { KubeObject } from './object.js';
import type { Selector } from './selectors.js';
import { ApiError, badRequest } from './status.js';
import type { Store, StoreEvent } from './store.js';

/** What a watch asks for, parsed from its URL. */
export interface WatchRequest {
  readonly info: KindInfo;
  readonly namespace: string | undefined;
  readonly labels: Selector;
  readonly fields: Selector;
  /** null when the query had no resourceVersion (or ""), "0" when it asked for "any". */
  readonly resourceVersion: string | null;
  readonly bookmarks: boolean;
  readonly timeoutSeconds: number | undefined;
}

type WireType = StoreEvent['type'] | 'BOOKMARK' | 'ERROR';

/** One open watch stream. */
class Watcher {
  private readonly timers: NodeJS.Timeout[] = [];
  private unsubscribe: () => void = () => undefined;
  private closed = false;
  /** Events at or below this resourceVersion were already covered (a watch from a future RV skips up to it). */
  private after = 0;

  constructor(
    private readonly req: WatchRequest,
    private readonly res: ServerResponse,
    private readonly onClose: () => void,
  ) {
    res.on('close', () => {
      this.cleanup();
    });
  }

  start(store: Store, bookmarkIntervalMs: number): void {
    this.res.writeHead(200, { 'Content-Type': 'application/json', 'Transfer-Encoding': 'chunked', 'Cache-Control': 'no-cache' });
    this.res.flushHeaders();
    const rv = this.req.resourceVersion;
    if (rv === null || rv === '0') {
      // "start at most recent": synthetic ADDED events for everything that exists, then the live stream
      for (const obj of store.list(this.req.info, this.req.namespace)) {
        if (this.matches(obj)) this.send('ADDED', obj);
      }
    } else {
      let backlog: StoreEvent[];
      this.after = Number(rv);
      try {
        backlog = store.eventsSince(Number(rv));
      } catch (e) {
        if (!(e instanceof ApiError)) throw e;
        this.fail(e); // the real watch cache answers 200 and one ERROR event with the 410 Status, then closes
        return;
      }
      for (const e of backlog) this.deliver(e);
    }
    this.unsubscribe = store.subscribe((e) => {
      this.deliver(e);
    });
    if (this.req.bookmarks && bookmarkIntervalMs > 0) {
      this.timers.push(
        setInterval(() => {
          this.bookmark(store.resourceVersion);
        }, bookmarkIntervalMs),
      );
    }
    if (this.req.timeoutSeconds !== undefined) {
      this.timers.push(
        setTimeout(() => {
          this.close('end');
        }, this.req.timeoutSeconds * 1000),
      );
    }
  }

  /** Send one ERROR event carrying the Status, then end the stream. */
  fail(err: ApiError): void {
    this.send('ERROR', err.toStatus());
    this.close('end');
  }

  /** 'end' finishes the chunked body cleanly; 'reset' destroys the socket mid-stream. */
  close(how: 'end' | 'reset'): void {
    if (this.closed) return;
    this.cleanup();
    if (how === 'end') this.res.end();
    else this.res.destroy();
  }

  private cleanup(): void {
    if (this.closed) return;
    this.closed = true;
    this.unsubscribe();
    for (const t of this.timers) clearTimeout(t);
    this.onClose();
  }

  private matches(obj: KubeObject): boolean {
    if (this.req.namespace !== undefined && obj.metadata.namespace !== this.req.namespace) return false;
    return this.req.labels(obj) && this.req.fields(obj);
  }

  /** Translate a store event through the selectors: an object leaving the selection is DELETED, entering is ADDED. */
  private deliver(e: StoreEvent): void {
    if (e.info !== this.req.info || e.rv <= this.after) return;
    const now = this.matches(e.object);
    const before = e.prev !== undefined && this.matches(e.prev);
    if (e.type === 'ADDED' && now) this.send('ADDED', e.object);
    else if (e.type === 'DELETED' && (now || before)) this.send('DELETED', e.object);
    else if (e.type === 'MODIFIED') {
      if (now && before) this.send('MODIFIED', e.object);
      else if (now) this.send('ADDED', e.object);
      else if (before) this.send('DELETED', e.object);
    }
  }

  private bookmark(rv: string): void {
    const { info } = this.req;
    this.send('BOOKMARK', { kind: info.kind, apiVersion: apiVersionOf(info), metadata: { resourceVersion: rv } });
  }

  private send(type: WireType, object: unknown): void {
    if (this.closed) return;
    this.res.write(`${JSON.stringify({ type, object })}\n`);
  }
}

/** Every open watch, so tests can drop or expire them all at once. */
export class WatchHub {
  private readonly open = new Set<Watcher>();
  private readonly waiters = new Set<() => void>();

  constructor(
    private readonly store: Store,
    private readonly bookmarkIntervalMs: number,
  ) {}

  get count(): number {
    return this.open.size;
  }

  serve(req: WatchRequest, res: ServerResponse): void {
    if (req.resourceVersion !== null && !/^\d+$/.test(req.resourceVersion)) {
      throw badRequest(`resourceVersion: Invalid value: "${req.resourceVersion}": must be a number`);
    }
    const w = new Watcher(req, res, () => {
      this.open.delete(w);
    });
    this.open.add(w);
    w.start(this.store, this.bookmarkIntervalMs);
    for (const wake of [...this.waiters]) wake();
  }

  /** Close every open watch; returns how many were open. */
  dropAll(how: 'end' | 'reset'): number {
    const all = [...this.open];
    for (const w of all) w.close(how);
    return all.length;
  }

  /** Send every open watch an ERROR event with this Status (a 410 to expire them), then close it. */
  failAll(error: ApiError): number {
    const all = [...this.open];
    for (const w of all) w.fail(error);
    return all.length;
  }

  /** Resolve once at least n watches are open; reject after timeoutMs. */
  async waitFor(n: number, timeoutMs: number): Promise<void> {
    if (this.open.size >= n) return;
    await new Promise<void>((resolve, reject) => {
      const check = (): void => {
        if (this.open.size < n) return;
        this.waiters.delete(check);
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${n} open watches (have ${this.open.size})`));
      }, timeoutMs);
      this.waiters.add(check);
    });
  }
}
