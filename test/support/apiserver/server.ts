// ApiServerDouble: the HTTP server on 127.0.0.1, its request log, and the hooks tests use to seed and break it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Faults, type FaultSpec, type RequestMatch, type RequestRecord } from './faults.js';
import { handle, verbOf, type Answer } from './handlers.js';
import { apiVersionOf, kindByApiVersion, resolveKind, type KindInfo } from './kinds.js';
import { omit, type KubeObject } from './object.js';
import { route } from './routes.js';
import { ApiError, expired } from './status.js';
import { Store } from './store.js';
import { WatchHub } from './watch.js';

export interface ApiServerDoubleOptions {
  /** How many events the watch history keeps; a watch from before the window gets 410 Gone. Default 1000. */
  readonly historyLimit?: number;
  /** Interval of BOOKMARK events on watches that allow them; 0 disables them. Default 1000 ms. */
  readonly bookmarkIntervalMs?: number;
  /** Clock for creationTimestamp. Default: the system clock. */
  readonly now?: () => Date;
  /** Refuse creates in a namespace that has no Namespace object (404), as the NamespaceLifecycle admission does. */
  readonly requireNamespaces?: boolean;
}

const WRITE_VERBS = new Set(['create', 'update', 'patch', 'delete', 'deletecollection']);
const MAX_BODY = 3 * 1024 * 1024;

function infoOf(kind: string): KindInfo {
  const info = resolveKind(kind);
  if (info === undefined) throw new Error(`the API server double does not serve kind "${kind}"`);
  return info;
}

export class ApiServerDouble {
  private readonly store: Store;
  private readonly hub: WatchHub;
  private readonly log: RequestRecord[] = [];
  private readonly faults = new Faults();
  private readonly requireNamespaces: boolean;
  private server: Server | undefined;
  private port = 0;

  constructor(opts: ApiServerDoubleOptions = {}) {
    this.store = new Store(opts.historyLimit ?? 1000, opts.now ?? (() => new Date()));
    this.hub = new WatchHub(this.store, opts.bookmarkIntervalMs ?? 1000);
    this.requireNamespaces = opts.requireNamespaces ?? false;
  }

  /** Listen on 127.0.0.1 (a free port the first time, the same port after stopAcceptingConnections()). */
  async start(): Promise<{ url: string }> {
    if (this.server !== undefined) return { url: this.url };
    const server = createServer((req, res) => {
      void this.onRequest(req, res);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        server.off('error', reject);
        resolve();
      });
    });
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return { url: this.url };
  }

  /** Close every connection (open watches included) and stop listening. Safe to call twice. */
  async stop(): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    this.server = undefined;
    this.hub.dropAll('reset');
    const closed = new Promise<void>((resolve) => {
      server.close(() => {
        resolve();
      });
    });
    server.closeAllConnections();
    await closed;
  }

  /** An API outage: connections are cut and refused until restart(). Objects and resourceVersions are kept. */
  async stopAcceptingConnections(): Promise<void> {
    await this.stop();
  }

  /**
   * Come back on the same port, as a restarted apiserver: etcd is kept, so resourceVersions continue, but the new
   * watch cache starts empty, so a watch from an older resourceVersion gets 410. `wipe` starts from an empty etcd.
   */
  async restart(opts: { wipe?: boolean; keepHistory?: boolean } = {}): Promise<{ url: string }> {
    await this.stop();
    if (opts.wipe === true) this.store.wipe();
    else if (opts.keepHistory !== true) this.store.compact(false);
    return this.start();
  }

  get url(): string {
    if (this.port === 0) throw new Error('ApiServerDouble: call start() first');
    return `http://127.0.0.1:${this.port}`;
  }

  /**
   * A kubeconfig (YAML) pointing at the double over plain HTTP, no auth: `kc.loadFromString(double.kubeconfig())`.
   * client-node 1.x refuses an http:// server unless insecure-skip-tls-verify is set, so it is (there is no TLS).
   */
  kubeconfig(namespace = 'default'): string {
    return [
      'apiVersion: v1',
      'kind: Config',
      'preferences: {}',
      'clusters:',
      '- name: double',
      '  cluster:',
      `    server: ${this.url}`,
      '    insecure-skip-tls-verify: true',
      'users:',
      '- name: double',
      '  user: {}',
      'contexts:',
      '- name: double',
      '  context:',
      '    cluster: double',
      '    user: double',
      `    namespace: ${namespace}`,
      'current-context: double',
      '',
    ].join('\n');
  }

  /** Write kubeconfig() to a file (in a fresh temp dir unless dir is given) and return its path. */
  async writeKubeconfig(dir?: string): Promise<string> {
    const where = dir ?? (await mkdtemp(join(tmpdir(), 'portico-apiserver-')));
    const path = join(where, 'kubeconfig');
    await writeFile(path, this.kubeconfig(), 'utf8');
    return path;
  }

  /** The current (newest) resourceVersion. */
  get resourceVersion(): string {
    return this.store.resourceVersion;
  }

  /**
   * Create or replace an object, status included, through the store's write path (watch events fire). The kind comes
   * from obj.apiVersion + obj.kind. Returns the stored (frozen) object.
   */
  put(obj: KubeObject): KubeObject {
    const info = kindByApiVersion(obj.apiVersion ?? '', obj.kind ?? '');
    if (info === undefined) throw new Error(`the API server double does not serve ${obj.apiVersion ?? '?'}/${obj.kind ?? '?'}`);
    const ns = info.namespaced ? (obj.metadata.namespace ?? 'default') : '';
    const name = obj.metadata.name ?? '';
    const body: KubeObject = { ...obj, metadata: omit(obj.metadata, ['resourceVersion']) };
    return this.store.get(info, ns, name) === undefined ? this.store.create(info, ns, body, 'all') : this.store.update(info, ns, name, body, 'all');
  }

  /** Delete an object through the store's write path; false if it did not exist. */
  remove(kind: string, namespace: string, name: string): boolean {
    const info = infoOf(kind);
    if (this.store.get(info, namespace, name) === undefined) return false;
    this.store.delete(info, namespace, name, {});
    return true;
  }

  /** The stored object (frozen), or undefined. */
  get(kind: string, namespace: string, name: string): KubeObject | undefined {
    return this.store.get(infoOf(kind), namespace, name);
  }

  /** Stored objects of a kind, in one namespace or all. */
  list(kind: string, namespace?: string): KubeObject[] {
    return this.store.list(infoOf(kind), namespace);
  }

  /** Close every open watch: 'end' finishes the stream cleanly, 'reset' cuts the socket. Returns how many. */
  dropWatches(how: 'end' | 'reset' = 'end'): number {
    return this.hub.dropAll(how);
  }

  /**
   * Compact: every resourceVersion handed out so far becomes too old (watches and Exact lists or continue tokens
   * from them get 410). Open watches receive an ERROR event with a 410 Status and are closed, unless keepOpenWatches.
   */
  expireResourceVersions(opts: { keepOpenWatches?: boolean } = {}): number {
    const before = this.store.resourceVersion;
    this.store.compact(true);
    if (opts.keepOpenWatches === true) return 0;
    return this.hub.failAll(expired(`too old resource version: ${before} (${this.store.resourceVersion})`));
  }

  /** How many watch streams are open now. */
  get openWatches(): number {
    return this.hub.count;
  }

  /** Resolve once at least n watches are open (an informer is caught up and watching). */
  async waitForWatches(n: number, timeoutMs = 5000): Promise<void> {
    await this.hub.waitFor(n, timeoutMs);
  }

  /** Every request answered so far, oldest first. */
  requests(): readonly RequestRecord[] {
    return [...this.log];
  }

  /** The write requests (create/update/patch/delete), optionally of one kind ("Ingress", "leases", ...). */
  writes(kind?: string): RequestRecord[] {
    const info = kind === undefined ? undefined : infoOf(kind);
    return this.log.filter((r) => WRITE_VERBS.has(r.verb) && (info === undefined || (r.kind === info.kind && r.apiVersion === apiVersionOf(info))));
  }

  clearRequests(): void {
    this.log.length = 0;
  }

  /** Make the next spec.times (default 1) requests matching `match` fail with spec.code and a Status body. */
  failRequests(match: RequestMatch, spec: FaultSpec): void {
    this.faults.add(match, spec);
  }

  clearFaults(): void {
    this.faults.clear();
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const method = req.method ?? 'GET';
    const record = {
      method,
      path: url.pathname,
      query: url.search,
      verb: 'unknown',
      kind: undefined as string | undefined,
      apiVersion: undefined as string | undefined,
      namespace: undefined as string | undefined,
      name: undefined as string | undefined,
      subresource: undefined as string | undefined,
    };
    let answer: Answer;
    try {
      const body = await readBody(req);
      const r = route(url.pathname);
      if (r.type === 'discovery') {
        record.verb = 'discovery';
        answer = { code: 200, body: r.body };
      } else {
        Object.assign(record, { verb: verbOf(method, r, url.searchParams), kind: r.info.kind, apiVersion: apiVersionOf(r.info), namespace: r.namespace, name: r.name, subresource: r.subresource });
        const fault = this.faults.take(record);
        if (fault !== undefined) throw fault;
        answer = handle(this.store, this.hub, this.requireNamespaces, { method, route: r, query: url.searchParams, body, contentType: req.headers['content-type'] ?? '' }, res);
      }
    } catch (e) {
      const err = e instanceof ApiError ? e : new ApiError(500, 'InternalError', `internal error: ${String(e)}`);
      answer = { code: err.code, body: err.toStatus() };
    }
    this.log.push({ ...record, code: answer === 'streaming' ? 200 : answer.code });
    if (answer !== 'streaming') {
      res.writeHead(answer.code, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    }
  }
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > MAX_BODY) throw new ApiError(413, 'RequestEntityTooLarge', 'the request body is too large');
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}
