// The controller: wires source → store → model → render → apply, and owns the one sync function.
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { buildModel } from '../model/build.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../model/input.js';
import type { Model } from '../model/types.js';
import { renderNginxConf, type RenderOptions, type RenderedConf } from '../render/nginx-conf.js';
import { backendsText, gatewayJson } from '../render/lua-payload.js';
import type { DataPlaneState } from '../apply/plan.js';
import { Executor, type Candidate, type Counters } from '../apply/executor.js';
import type { Nginx } from '../nginx/process.js';
import { rejectedProblems } from './rejected.js';
import { Store } from '../store/store.js';
import { SyncLoop } from './sync-loop.js';
import { Offload } from '../worker/offload.js';
import { ProblemReporter } from './problems.js';
import { ClassNotice } from './class-notice.js';
import { TlsSync } from '../tls/sync.js';
import { pruneAuthFiles, warmAuthFiles, writeAuthFiles } from './auth-files.js';
import { pruneL4Tables, writeL4Tables } from './l4-peers.js';
import type { L4JsOptions } from '../render/stream-l4-js.js';
import { refreshEndpoints } from '../model/refresh.js';
import { modelMemo } from '../model/memo.js';
import { targetPolicy } from '../pipeline/target-policy.js';
import { endpointsOnly } from '../apply/stream.js';
import { modelOptions } from '../pipeline/build.js';
import { startupHead, type HeadLimits } from './startup-head.js';
import { HeadBeside } from './head-beside.js';
import { NamedSnapshots } from './named-snapshots.js';
import { BackendIds } from './backend-ids.js';
import type { StampedFile } from '../sources/manifest-files.js';

/** A sync that left nginx serving `model` (plan noop included), for status and Events. */
export interface AppliedSync {
  readonly model: Model;
  readonly plan: 'noop' | 'dynamic' | 'reload';
  readonly reloaded: boolean;
}

/** Keeps nginx in step with the store: decides what a sync needs; src/apply/executor.ts carries it out. */
export class Controller {
  readonly store = new Store<Snapshot>();
  readonly loop: SyncLoop;
  private current: Candidate | undefined;
  /** The last sync ended applied (or equal): only then may an EndpointSlice-only change skip the full build. */
  private lastOk = false;
  readonly problems: ProblemReporter;
  private readonly classes: ClassNotice;
  readonly tls: TlsSync;
  /** The worker thread the CPU work of a sync runs on (offload.ts): /healthz and the webhook never wait for it. */
  private readonly offload: Offload;
  /** The executor's builder: the offload worker, and the startup head built on this thread beside the whole (head-beside.ts). */
  private readonly builds: HeadBeside;
  private readonly exec: Executor;
  /** EndpointSlices already read by refreshEndpoints: an endpoint change reads only the slices that changed. */
  private readonly endpointsMemo = modelMemo();
  /** The snapshot the current model's endpoints were read from: a refresh reads only the Services changed since. */
  private endpointsFrom: Snapshot | undefined;
  /** The ids of the candidates' backends in DataPlaneState (a new one whenever an entry changes). */
  private readonly backendIds = new BackendIds();
  /** Called after every sync whose configuration nginx serves. */
  readonly applied: ((sync: AppliedSync) => void)[] = [];
  /** The store's snapshots with ExternalName Services' answers (--disable-svc-external-name: the store's own). */
  private readonly snapshots: NamedSnapshots;
  /** nginx serves the head of the first sync only (startup-head.ts): the next sync builds all, and /healthz waits for it. */
  private headOnly = false;
  /** The first sync is applying its head (startup-head.ts): the whole's model may arrive meanwhile (onAhead). */
  private headApplying = false;
  private readonly headLimits: HeadLimits;
  /** nginx's stream njs module is there: Gateway TCP/UDP peers are tables in the work directory (docs/adr/0041). */
  private readonly l4Js: L4JsOptions | undefined;

  constructor(
    private readonly config: Config,
    nginx: Nginx,
    render: RenderOptions,
    private readonly log: Logger,
  ) {
    this.l4Js = render.l4Js;
    this.loop = new SyncLoop(config.syncPeriodMs, (causes) => this.sync(causes), log);
    this.store.onChange((kind) => {
      this.loop.mark(kind);
    });
    this.problems = new ProblemReporter(log);
    this.snapshots = new NamedSnapshots(this.store, config.disableSvcExternalName, log, () => {
      this.loop.mark('ExternalName');
    });
    this.classes = new ClassNotice(log, modelOptions(config));
    this.headLimits = { stream: config.tcpServicesConfigmap !== undefined || config.udpServicesConfigmap !== undefined, defaultBackendNamespace: config.defaultBackendService?.namespace };
    this.tls = new TlsSync(config.workDir, log);
    // the self-signed certificate made while the source reads; the first sync awaits it, and reports a failure
    this.tls.prepare().catch(() => undefined);
    // A build worker that dies (out of memory, a crash) is replaced, and the sync it took with it is run again.
    this.offload = new Offload(config, render, (why) => {
      log.error({ err: why }, 'the build worker died; starting a new one and syncing again in a second');
      setTimeout(() => {
        this.loop.mark('build-worker-restart');
      }, 1000).unref();
    });
    // A whole build's model arrived while the worker still renders it: its backends serialized meanwhile (BackendIds.warm),
    // and while nginx serves the startup head, pushed to Lua beside the render, none removed; what the sync gathers
    // from it (certificates, htpasswd files, other classes) gathered meanwhile too (docs/adr/0067).
    this.offload.onAhead = (model) => {
      if (!(this.headOnly || this.headApplying)) {
        this.backendIds.warm(model);
        return;
      }
      this.exec.backendsAhead(this.backendIds.of(model, this.current?.entries).entries);
      // once the push is on its way (nginx then decodes it while this thread gathers)
      setImmediate(() => {
        try {
          this.tls.state(model);
          warmAuthFiles(model);
          // the store's own snapshot (the same Ingress list): NamedSnapshots.current() would take the resolver's answers
          this.classes.warm(this.store.snapshot());
        } catch {
          /* the sync gathers them itself, and reports what fails */
        }
      });
    };
    this.builds = new HeadBeside(this.offload, config, render, log);
    this.exec = new Executor(nginx, {
      tls: this.tls,
      builder: this.builds,
      log,
      retry: () => {
        setTimeout(() => {
          this.loop.mark('retry');
        }, 1000).unref();
      },
      empty: () => renderNginxConf(buildModel(EMPTY_SNAPSHOT, modelOptions(config)), render),
    });
  }

  /** reloads, dynamic updates, failed updates, syncs... (metrics). */
  get counters(): Counters {
    return this.exec.counters;
  }

  /** True once nginx serves the configuration of the latest successful sync. */
  get healthy(): boolean {
    return this.exec.serving && !this.headOnly;
  }

  /**
   * What nginx serves: nginx.conf, the backends JSON, the route table JSON ('' without dynamic routes) and the hosts
   * it routes ('_' included; none without dynamic routes), the model.
   */
  get debug(): { conf: string; backends: string; routes: string; routed: ReadonlySet<string>; model: Model | undefined } {
    const current = this.current;
    const conf = current?.conf;
    // getters: a metrics scrape reads the model only, not the backends (5 MiB at 10,000) or the route table's text
    return {
      conf: conf?.text ?? '',
      get backends(): string {
        return current?.backends ?? '[]';
      },
      get routes(): string {
        return conf?.routes ?? '';
      },
      get routed(): ReadonlySet<string> {
        return new Set(conf?.routeHosts?.keys());
      },
      model: current?.model,
    };
  }

  /** Files of a folder's first read, read, parsed and stamped by the build worker meanwhile (Offload.readAhead). */
  readAhead(dir: string, names: readonly string[]): Promise<StampedFile[]> | undefined {
    return this.offload.readAhead(dir, names);
  }

  /** Objects a source just read, not yet in the store: the build worker parses them ahead of the first sync (Offload.preload). */
  preload(objects: readonly object[]): void {
    this.offload.preload(objects);
  }

  /** Ends the build worker and the name resolver (after the sync loop stopped). */
  async close(): Promise<void> {
    this.snapshots.stop();
    await this.offload.close();
  }

  /** Called when nginx restarted on its own: its shared dicts are empty, so everything is pushed again. */
  nginxRestarted(): void {
    this.exec.nginxRestarted();
    this.loop.mark('nginx-restart');
  }

  private report(model: Model): void {
    const d = this.exec.dropped;
    this.problems.report([...model.problems, ...this.exec.quarantineProblems(), ...rejectedProblems(model, d.backends, d.certificates)]);
  }

  /** The TCP/UDP peers tables of `model` written (with njs only): the number of files that changed. */
  private async writeL4(model: Model): Promise<number> {
    return this.l4Js ? writeL4Tables(this.l4Js, model) : 0;
  }

  /** The tables of listeners `model` (now served) no longer has, removed. */
  private async pruneL4(model: Model): Promise<void> {
    if (this.l4Js) await pruneL4Tables(this.l4Js, model);
  }

  /** One info line when peers tables changed: with plan noop, an endpoint or weight change applied without a reload. */
  private l4Written(tables: number, cause: Record<string, number>, plan: string): void {
    if (tables > 0) this.log.info({ cause, plan, tables, counters: this.counters }, 'rewrote TCP/UDP peers tables (njs reads them per connection: no reload for endpoints or weights)');
  }

  /** One sync: snapshot → model → render → skip if equal → plan → apply. */
  async sync(causes: ReadonlyMap<string, number>): Promise<void> {
    const started = Date.now();
    this.headApplying = false; // until take() below builds a head
    if (!(await this.snapshots.resolve(causes))) return;
    this.exec.counters.syncs += 1;
    await this.tls.prepare();
    // Endpoint churn is the common change: it only needs the upstreams' endpoints again (model/refresh.ts).
    // Everything but the upstreams' endpoints (nginx.conf, certificates, htpasswd files) is then the running one.
    // Stream upstreams are static in nginx.conf (no stream Lua): with a stream section, endpoints need the full build.
    const last = this.lastOk && !this.headOnly && endpointsOnly(causes, this.current) ? this.current : undefined;
    this.lastOk = false;
    let snap = this.snapshots.current();
    // The first sync of a large cluster builds its head, served at once; the next one the whole (docs/adr/0034).
    const first = this.current === undefined;
    let head = false;
    const take = (): Snapshot => {
      const whole = this.snapshots.current();
      const part = first ? startupHead(whole, this.headLimits) : undefined;
      head = part !== undefined;
      this.headApplying = head;
      if (part) this.builds.split(part, whole);
      return (snap = part ?? whole);
    };
    const { model, conf } = last
      ? { model: refreshEndpoints(last.model, snap, targetPolicy(this.config), this.endpointsMemo, this.endpointsFrom), conf: last.conf }
      : await this.exec.buildTested(take);
    // Problems, class notices, Events and status wait for the whole: the head leaves most Ingresses out on purpose.
    if (!head) this.report(model);
    if (!last && !head) this.classes.check(snap);
    this.tls.warnExpiring(model, started);
    if (!last) {
      const authWritten = await writeAuthFiles(this.config.workDir, model);
      if (authWritten > 0) this.log.info({ files: authWritten }, 'wrote htpasswd files (nginx reads them per request: no reload)');
    }
    // Before the plan is applied: a reload's new listeners find their tables; without a reload, this is the change.
    const l4Tables = await this.writeL4(model);
    // The plan compares an id of the backends, not their text (5 MB at 10,000): the same id while every entry is the same.
    const backends = this.backendIds.of(model, this.current?.entries);
    const { entries } = backends;
    const certs = last?.certs ?? this.tls.state(model);
    const next: DataPlaneState = {
      confHash: conf.hash,
      backends: backends.id,
      certificates: certs.digest,
      clientFiles: certs.clientFilesDigest,
      routes: routesState(conf),
      gateway: gatewayJson(model),
    };
    const plan = this.exec.plan(next);
    const cause = Object.fromEntries(causes);
    const candidate: Candidate = {
      model,
      conf,
      entries,
      certs,
      // built when asked for (a whole push, /debug/backends) and not kept: 50 MiB at 100,000 Ingresses, held for as
      // long as this state served (docs/adr/0059)
      get backends(): string {
        return backendsText(entries);
      },
    };
    const reloads = this.counters.reloads;
    if (plan !== 'noop') {
      // nginx serves the startup head: the whole's new hosts may go before its reload (apply/executor.ts)
      if (!(await this.exec.apply(plan, candidate, next, this.current, { cause, fromHead: this.headOnly }))) return;
      const d = this.exec.dropped;
      if (!head && rejectedProblems(model, d.backends, d.certificates).length > 0) this.report(model);
      this.log.info(
        { cause, plan, ms: Date.now() - started, servers: model.servers.length, upstreams: model.upstreams.length, counters: this.counters, ...(head ? { head: model.ingresses.length } : {}) },
        'sync',
      );
    } else {
      this.log.debug({ cause, plan, ms: Date.now() - started }, 'sync');
    }
    this.l4Written(l4Tables, cause, plan);
    this.current = candidate;
    this.backendIds.served(backends);
    this.endpointsFrom = snap;
    this.lastOk = true;
    this.headOnly = head;
    this.headApplying = false;
    if (head) {
      this.loop.mark('startup');
      return;
    }
    for (const l of this.applied) l({ model, plan, reloaded: this.counters.reloads > reloads });
    if (!last) this.offload.synced();
    if (!last) await pruneAuthFiles(this.config.workDir, model);
    await this.pruneL4(model);
  }
}

/** What the plan compares of the route table: its id when the build worker gave one (not its 2.8 MiB text at 10,000 hosts), else its text; '' without one. */
function routesState(conf: RenderedConf): string {
  return conf.routeHosts === undefined ? '' : (conf.routesId ?? conf.routes ?? '');
}
