// One informer (client-node ListWatch) for one resource: paged lists, and a restart with backoff after any error.
import { ADD, DELETE, ERROR, ListWatch, UPDATE, V1ListMeta, V1ObjectMeta, Watch } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesListObject, KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../log.js';
import { watchPath, type Apis, type ListPage, type Resource } from './resources.js';

const PAGE_SIZE = 500;
const MAX_PAGES = 1000;
const BACKOFF_FIRST_MS = 250;
const BACKOFF_MAX_MS = 10_000;
/** An informer that ran this long since its last restart starts its backoff over. */
const BACKOFF_RESET_MS = 60_000;
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

export type Change = 'add' | 'update' | 'delete';

/** What a feed reports. Both only store objects; neither does any work. */
export interface FeedHandlers {
  /** A complete list (the first one, or a relist after 410 Gone or an outage), before per-object callbacks. */
  listed(items: readonly KubernetesObject[]): void;
  changed(change: Change, obj: KubernetesObject): void;
}

export interface FeedOptions {
  readonly resource: Resource;
  readonly kc: KubeConfig;
  readonly apis: Apis;
  readonly namespace: string | undefined;
  readonly labelSelector: string | undefined;
  /**
   * Once the handlers have an object, the informer's copy keeps only its names and resourceVersion (lighten): what
   * client-node's cache itself reads. Off when something reads the cached objects whole again (KubeSource with
   * --watch-namespace-selector brings a namespace's objects back from the caches when it starts matching).
   */
  readonly lighten?: boolean;
}

/** The HTTP status and message of whatever client-node threw or passed to `error` callbacks. */
function describeError(err: unknown): string {
  const e = err as { code?: unknown; statusCode?: unknown; body?: unknown; message?: unknown } | undefined;
  const status = typeof e?.code === 'number' ? e.code : typeof e?.statusCode === 'number' ? e.statusCode : undefined;
  let detail = typeof e?.message === 'string' ? e.message : String(err);
  if (typeof e?.body === 'string') {
    try {
      const m = (JSON.parse(e.body) as { message?: unknown }).message;
      if (typeof m === 'string') detail = m;
    } catch {
      /* not a Status */
    }
  }
  return status === undefined ? detail : `HTTP ${status}: ${detail}`;
}

/** How long the API server keeps one watch open: 5-10 minutes, randomised so that watches do not all end together. */
function watchTimeoutSeconds(): number {
  return 300 + Math.floor(Math.random() * 300);
}
const WATCH_GRACE_MS = 30_000;

export interface WatchLimits {
  /** The timeoutSeconds asked of the API server for each watch. */
  readonly timeoutSeconds: () => number;
  /** How long after timeoutSeconds a watch the server has not ended is taken as a dead connection. */
  readonly graceMs: number;
}

/**
 * client-node's Watch with two guards:
 * - it prepares credentials (exec plugins, token files) outside its try block, so a failure there rejects a promise
 *   nobody awaits: the process would die, or the informer would stop without an `error` event. Here every failure
 *   reaches `done`, so the informer reports it and the feed restarts;
 * - a watch on a connection that died without a FIN or RST (a half-open TCP connection: a NAT or an API server
 *   host gone) would wait forever. Each watch asks the server to end it after `timeoutSeconds` (client-go does the
 *   same), and one still open `graceMs` later is aborted and reported as an error, so the feed lists again.
 */
export class SafeWatch extends Watch {
  constructor(
    config: KubeConfig,
    private readonly limits: WatchLimits = { timeoutSeconds: watchTimeoutSeconds, graceMs: WATCH_GRACE_MS },
  ) {
    super(config);
  }

  override async watch(
    path: string,
    queryParams: Record<string, string | number | boolean | undefined>,
    callback: (phase: string, apiObj: unknown, watchObj?: unknown) => void,
    done: (err: unknown) => void,
  ): Promise<AbortController> {
    const timeoutSeconds = this.limits.timeoutSeconds();
    let ended = false;
    let controller: AbortController | undefined;
    const finish = (err: unknown): void => {
      if (ended) return;
      ended = true;
      clearTimeout(timer);
      done(err);
    };
    const timer = setTimeout(
      () => {
        finish(
          new Error(
            `watch ${path}: still open ${timeoutSeconds}s + ${this.limits.graceMs / 1000}s after it began although the API server was asked to end it after ${timeoutSeconds}s; the connection is taken as dead`,
          ),
        );
        controller?.abort(); // after finish: the abort's own error is not the one reported
      },
      timeoutSeconds * 1000 + this.limits.graceMs,
    );
    timer.unref();
    try {
      controller = await super.watch(path, { ...queryParams, timeoutSeconds }, callback, finish);
      if (ended) controller.abort(); // given up on while the response headers were awaited
      return controller;
    } catch (err) {
      finish(err);
      return new AbortController();
    }
  }
}

/**
 * Drops the two biggest fields Portico never reads from the informer's own cache (it keeps what it is handed, and
 * reads only name, namespace and resourceVersion), so a big cluster's objects are not held twice at full size.
 */
function slim<T extends KubernetesObject>(obj: T): T {
  const meta = obj.metadata;
  if (meta) {
    delete meta.managedFields;
    if (meta.annotations?.[LAST_APPLIED] !== undefined) meta.annotations = omitKey(meta.annotations, LAST_APPLIED);
  }
  return obj;
}

/**
 * `obj` reduced in place to its names and resourceVersion, which is all client-node's ListWatch reads of the objects it
 * caches (to key them, to tell an update from the same version, and to name what a relist no longer has). At 10,000
 * Ingresses the caches held 58 MiB of objects the store had copied already (docs/adr/0055).
 */
function lighten(obj: KubernetesObject): void {
  const meta = obj.metadata;
  for (const key of Object.keys(obj)) if (key !== 'metadata') Reflect.deleteProperty(obj, key);
  obj.metadata = Object.assign(new V1ObjectMeta(), { name: meta?.name, namespace: meta?.namespace, resourceVersion: meta?.resourceVersion });
}

function omitKey(record: Record<string, string>, key: string): Record<string, string> {
  return Object.fromEntries(Object.entries(record).filter(([k]) => k !== key));
}

/** Lists every page (limit/continue); every page belongs to the first page's resourceVersion. */
async function listAll(list: ListPage, namespace: string | undefined, sel: { fieldSelector?: string; labelSelector?: string }): Promise<KubernetesListObject<KubernetesObject>> {
  const items: KubernetesObject[] = [];
  let resourceVersion = '';
  let next: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const res = await list(namespace, { ...sel, limit: PAGE_SIZE, ...(next ? { _continue: next } : {}) });
    for (const item of res.items) items.push(slim(item));
    if (page === 0) resourceVersion = res.metadata?.resourceVersion ?? '';
    next = res.metadata?._continue;
    if (!next) return { apiVersion: res.apiVersion ?? 'v1', kind: res.kind ?? 'List', metadata: Object.assign(new V1ListMeta(), { resourceVersion }), items };
  }
  throw new Error(`more than ${PAGE_SIZE * MAX_PAGES} objects in one list`);
}

/** Keeps one resource in step: list, watch, and after any error start again (client-node relists after 410). */
export class Feed {
  private readonly informer: ListWatch<KubernetesObject>;
  private readonly name: string;
  private stopped = false;
  private listed = false;
  private lastError: unknown;
  private failures = 0;
  private lastRestart = Date.now();
  private timer: NodeJS.Timeout | undefined;
  private starting: Promise<void> = Promise.resolve();
  /** Objects the handlers had whole (and lightened since): the informer's own add after a list is not handled again. */
  private readonly handed = new WeakSet<object>();

  constructor(
    opts: FeedOptions,
    private readonly handlers: FeedHandlers,
    private readonly log: Logger,
  ) {
    const { resource, namespace, labelSelector } = opts;
    this.name = resource.feed;
    const list = resource.list(opts.apis);
    const selectors = { ...(resource.fieldSelector ? { fieldSelector: resource.fieldSelector } : {}), ...(labelSelector ? { labelSelector } : {}) };
    const listFn = async (): Promise<KubernetesListObject<KubernetesObject>> => {
      if (this.stopped) throw new Error('stopped');
      const all = await listAll(list, namespace, selectors);
      if (this.stopped) throw new Error('stopped');
      this.listed = true;
      this.log.debug({ feed: this.name, objects: all.items.length, resourceVersion: all.metadata?.resourceVersion }, 'listed');
      handlers.listed(all.items);
      // the informer then adds each listed object, which the handlers above had already
      if (opts.lighten === true) for (const o of all.items) this.lightened(o);
      return all;
    };
    this.informer = new ListWatch(watchPath(resource, namespace), new SafeWatch(opts.kc), listFn, false, labelSelector, resource.fieldSelector);
    // an object the handlers had whole already (listed, and lightened since) is not handled again
    const take = (change: 'add' | 'update') => (o: KubernetesObject) => {
      if (this.handed.has(o)) return;
      handlers.changed(change, slim(o));
      if (opts.lighten === true) this.lightened(o);
    };
    this.informer.on(ADD, take('add'));
    this.informer.on(UPDATE, take('update'));
    this.informer.on(DELETE, (o) => {
      handlers.changed('delete', o);
    });
    this.informer.on(ERROR, (err: unknown) => {
      this.onError(err);
    });
  }

  /** Lists once and starts watching; throws (with the API's reason) when the first list fails. */
  async start(): Promise<void> {
    this.starting = this.informer.start();
    await this.starting;
    if (!this.listed) throw new Error(`cannot list ${this.name}: ${describeError(this.lastError)}`);
  }

  /** `o`, which the handlers have, lightened and noted as handed. */
  private lightened(o: KubernetesObject): void {
    lighten(o);
    this.handed.add(o);
  }

  /**
   * The objects the informer holds now (class instances or raw JSON; convert before use). With `lighten`, their names
   * and resourceVersion only: the store holds the same versions whole.
   */
  cached(): readonly KubernetesObject[] {
    return this.informer.list();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    void this.informer.stop();
    // A watch that was still connecting when stop() came is only known once start() settles.
    void this.starting.then(
      () => this.informer.stop(),
      () => undefined,
    );
  }

  private onError(err: unknown): void {
    this.lastError = err;
    if (this.stopped || !this.listed) return; // before the first list, start() reports it
    if (Date.now() - this.lastRestart > BACKOFF_RESET_MS) this.failures = 0;
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** this.failures);
    this.failures += 1;
    this.log.warn({ feed: this.name, err: describeError(err), retryMs: delay }, 'watch failed; nginx keeps serving the last state');
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped) return;
      this.lastRestart = Date.now();
      this.starting = this.informer.start();
    }, delay);
  }
}
