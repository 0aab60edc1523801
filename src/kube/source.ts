// The Kubernetes API source: one feed per watched resource, scoped by namespace, mirrored into the store.
import type { KubernetesObject } from '@kubernetes/client-node';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { KINDS, type Kind, type KubeObject } from '../store/kinds.js';
import { loadConnection, probe, type ConnectOptions } from './connect.js';
import { namespaceOf, toPlain } from './convert.js';
import { Feed, type Change, type FeedOptions } from './feed.js';
import { NAMESPACES, RESOURCES, makeApis, type Resource } from './resources.js';

const GATEWAY_GROUP = 'gateway.networking.k8s.io';

/** An optional feed whose first list failed, and why. */
interface OptionalFailure {
  readonly resource: Resource;
  readonly err: string;
}

export interface KubeSourceOptions extends ConnectOptions {
  readonly watchNamespace: string | undefined;
  readonly watchNamespaceSelector: string | undefined;
  /** --enable-gateway-api: also watch the Gateway API kinds (kube/gateway-resources.ts); absent: off. */
  readonly enableGatewayApi?: boolean;
}

/**
 * Lists and watches the API into the store. Handlers only convert and store; the sync loop does the work. A relist
 * replaces a kind whole (idempotent); with --watch-namespace-selector only objects of matching namespaces are kept,
 * and a namespace whose labels start or stop matching brings its objects in or takes them out.
 */
/** Gateway API kinds whose CRDs older releases lack: missing alone, they are an info line, not a Warning. */
const LATE_KINDS: ReadonlySet<string> = new Set(['BackendTLSPolicy', 'TLSRoute', 'TCPRoute', 'UDPRoute', 'ListenerSet']);

export class KubeSource {
  private readonly feeds = new Map<Resource, Feed>();
  private namespaces: Feed | undefined;
  /** Namespaces whose objects are kept; undefined when there is no selector (all of them). */
  private allowed: ReadonlySet<string> | undefined;

  constructor(
    private readonly opts: KubeSourceOptions,
    private readonly store: Store,
    private readonly log: Logger,
  ) {
    if (opts.watchNamespaceSelector !== undefined) this.allowed = new Set();
  }

  /** Checks that the API answers, then lists everything once; throws API_UNREACHABLE or the failed list's reason. */
  async start(): Promise<void> {
    const conn = loadConnection(this.opts);
    const version = await probe(conn);
    this.log.info(
      { server: conn.server, from: conn.from, version, namespace: this.opts.watchNamespace ?? '(all)', namespaceSelector: this.opts.watchNamespaceSelector },
      'connected to the Kubernetes API',
    );
    const apis = makeApis(conn.kc);
    const base = { kc: conn.kc, apis, namespace: this.opts.watchNamespace };
    if (this.opts.watchNamespaceSelector !== undefined) {
      this.namespaces = new Feed(
        { ...base, resource: NAMESPACES, namespace: undefined, labelSelector: this.opts.watchNamespaceSelector },
        {
          listed: (items) => {
            this.setAllowed(items);
          },
          changed: () => {
            this.setAllowed(this.namespaces?.cached() ?? []);
          },
        },
        this.log,
      );
      await this.namespaces.start();
    }
    // Gateway listeners' allowedRoutes Selector reads Namespace labels: every Namespace, whatever --watch-namespace-selector says.
    const gatewayNamespaces: Resource[] = this.opts.enableGatewayApi === true ? [{ ...NAMESPACES, feed: 'Namespace/labels', optional: true }] : [];
    for (const resource of [...RESOURCES.filter((r) => r.optional !== true || this.opts.enableGatewayApi === true), ...gatewayNamespaces]) {
      this.feeds.set(resource, this.feedOf(resource, base));
    }
    const failed: (OptionalFailure | undefined)[] = await Promise.all([...this.feeds].map(([r, f]) => (r.optional === true ? this.startOptional(r, f, base) : f.start().then(() => undefined))));
    this.reportOptional(failed.filter((x) => x !== undefined));
    const counts = Object.fromEntries((Object.keys(KINDS) as Kind[]).map((k) => [k, this.store.count(k)]));
    this.log.info({ objects: counts }, 'initial lists done; watching');
  }

  private feedOf(resource: Resource, base: Omit<FeedOptions, 'resource' | 'labelSelector'>): Feed {
    return new Feed(
      // with a namespace selector, setAllowed reads the caches whole again (a namespace that starts matching)
      { ...base, resource, labelSelector: undefined, lighten: this.opts.watchNamespaceSelector === undefined },
      {
        listed: (items) => {
          this.replace(resource.kind, resource, items);
        },
        changed: (change, obj) => {
          this.apply(resource.kind, change, obj);
        },
      },
      this.log,
    );
  }

  /**
   * An optional feed whose first list fails (Gateway API CRDs not installed, or not allowed) stays off until Portico
   * restarts. A version the cluster does not serve (404) is tried again at the resource's fallback version, if any
   * (ReferenceGrant: v1, else v1beta1).
   */
  private async startOptional(resource: Resource, feed: Feed, base: Omit<FeedOptions, 'resource' | 'labelSelector'>): Promise<OptionalFailure | undefined> {
    try {
      await feed.start();
      return undefined;
    } catch (err) {
      feed.stop();
      this.feeds.delete(resource);
      const message = err instanceof Error ? err.message : String(err);
      const fallback = resource.fallback;
      if (fallback === undefined || !/\bHTTP 404\b/.test(message)) return { resource, err: message };
      const next = this.feedOf(fallback, base);
      this.feeds.set(fallback, next);
      const failed = await this.startOptional(fallback, next, base);
      if (!failed) this.log.info({ feed: resource.feed, version: fallback.version }, `${resource.group}/${resource.version} ${resource.plural} is not served; reading ${fallback.version}`);
      return failed;
    }
  }

  /**
   * One line for the optional feeds that could not start. No Gateway API kind at all, each answering 404, is a cluster
   * without the CRDs, a normal state for Ingress users: info. Some kinds only, or another error: a Warning.
   */
  private reportOptional(failed: readonly OptionalFailure[]): void {
    const ns = failed.find((f) => f.resource.kind === 'Namespace');
    if (ns) {
      this.log.warn(
        { feed: ns.resource.feed, err: ns.err },
        'cannot list namespaces: Gateway listeners with allowedRoutes Selector allow no namespace until Portico restarts (grant list and watch on namespaces)',
      );
    }
    const optional = failed.filter((f) => f.resource.kind !== 'Namespace');
    const everyOne = optional.length === RESOURCES.filter((r) => r.optional === true).length;
    // Kinds served at v1 only by newer Gateway API releases (BackendTLSPolicy from v1.4; TLSRoute, TCPRoute, UDPRoute
    // later): a cluster whose CRDs predate them serves the rest, and says so in one info line per kind.
    const late = everyOne ? [] : optional.filter((f) => LATE_KINDS.has(f.resource.kind) && /\bHTTP 404\b/.test(f.err));
    for (const f of late) this.log.info({ feed: f.resource.feed }, `${f.resource.kind} (gateway.networking.k8s.io/v1) is not installed: ${f.resource.kind}s are not watched until Portico restarts`);
    const gw = optional.filter((f) => !late.includes(f));
    if (gw.length === 0) return;
    const names = gw.map((f) => f.resource.feed);
    const fields = { feed: names.join(', '), err: [...new Set(gw.map((f) => f.err.replace(/^cannot list \S+: /, '')))].join('; ') };
    const all = everyOne && gw.every((f) => /\bHTTP 404\b/.test(f.err));
    const fix = 'install deploy/gateway-api/ to serve them, or pass --enable-gateway-api=false to stop looking';
    if (all) this.log.info(fields, `the Gateway API CRDs are not installed (${GATEWAY_GROUP}): ${names.join(', ')} are not watched until Portico restarts; ${fix}`);
    else
      this.log.warn(
        fields,
        `cannot list ${gw.map((f) => `${f.resource.group}/${f.resource.version} ${f.resource.plural}`).join(', ')}: no ${names.join(', ')} is served until Portico restarts; ${fix}`,
      );
  }

  stop(): void {
    this.namespaces?.stop();
    for (const f of this.feeds.values()) f.stop();
  }

  private inScope(kind: Kind, obj: KubeObject): boolean {
    return this.allowed === undefined || !KINDS[kind].namespaced || this.allowed.has(namespaceOf(obj));
  }

  private apply(kind: Kind, change: Change, raw: KubernetesObject): void {
    const obj = toPlain(kind, raw);
    if (!obj) return;
    if (change === 'delete') this.store.remove(kind, obj);
    else if (this.inScope(kind, obj)) this.store.upsert(kind, obj);
  }

  /** A (re)list of one feed: the kind becomes that list plus what the kind's other feeds hold, in scope. */
  private replace(kind: Kind, listed: Resource | undefined, items: readonly KubernetesObject[]): void {
    const all: KubeObject[] = [];
    for (const [resource, feed] of this.feeds) {
      if (resource.kind !== kind) continue;
      for (const raw of resource === listed ? items : feed.cached()) {
        const obj = toPlain(kind, raw);
        if (obj && this.inScope(kind, obj)) all.push(obj);
      }
    }
    this.store.replaceKind(kind, all);
  }

  /** New set of matching namespaces; when it differs, every namespaced kind is filtered again. */
  private setAllowed(namespaces: readonly KubernetesObject[]): void {
    const next = new Set(namespaces.map((n) => n.metadata?.name ?? ''));
    const prev = this.allowed;
    if (prev && prev.size === next.size && [...next].every((n) => prev.has(n))) return;
    this.allowed = next;
    this.log.info({ namespaces: [...next].sort() }, 'namespaces matching --watch-namespace-selector changed');
    for (const kind of Object.keys(KINDS) as Kind[]) if (KINDS[kind].namespaced) this.replace(kind, undefined, []);
  }
}
