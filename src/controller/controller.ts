// The controller: wires source → store → model → render → apply, and owns the one sync function.
import type { Config } from '../config/config.js';
import { errorMessage, NginxTestError } from '../errors.js';
import type { Logger } from '../log.js';
import { buildModel } from '../model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../model/input.js';
import type { Model } from '../model/types.js';
import { renderNginxConf, type RenderedConf, type RenderOptions } from '../render/nginx-conf.js';
import { backendsPayload } from '../render/lua-payload.js';
import { clientFilesChanged, planApply, type DataPlaneState } from '../apply/plan.js';
import { Nginx, type Rejected } from '../nginx/process.js';
import { rejectedProblems } from './rejected.js';
import { Store } from '../store/store.js';
import { SyncLoop } from './sync-loop.js';
import { AnnotationStage } from './annotations.js';
import { Offload, OffloadError } from './offload.js';
import { ProblemReporter } from './problems.js';
import { TlsSync, type CertificatesState } from './tls-sync.js';
import { pruneAuthFiles, writeAuthFiles } from './auth-files.js';
import { DEFAULT_TLS_SETTINGS, type TlsSettings } from '../model/tls-types.js';
import { tlsSettingsOf } from '../model/settings.js';
import { refreshEndpoints } from '../model/refresh.js';
import { targetPolicy } from './target-policy.js';
import { countStreamReload, endpointsOnly, streamOptions } from './stream.js';
import { Quarantine, blame, culprit, ingressKey, keyOf } from './quarantine.js';
import type { Checker } from '../webhook/review.js';

export function modelOptions(config: Config, tls: TlsSettings = DEFAULT_TLS_SETTINGS): ModelOptions {
  return {
    controllerClass: config.controllerClass,
    ingressClass: config.ingressClass,
    watchIngressWithoutClass: config.watchIngressWithoutClass,
    defaultBackendService: config.defaultBackendService,
    loadBalance: config.defaultLoadBalance,
    strictHostOwnership: config.strictHostOwnership,
    tls: { annotationsPrefix: config.annotationsPrefix, defaultCertificate: config.defaultSslCertificate, settings: tls },
    targets: targetPolicy(config),
    gateway: config.enableGatewayApi ? { controllerName: config.gatewayControllerName } : undefined,
    ...streamOptions(config),
  };
}

export function renderOptions(config: Config, user: RenderOptions['user']): RenderOptions {
  return {
    workDir: config.workDir, luaDir: config.luaDir, httpPort: config.httpPort, httpsPort: config.httpsPort,
    statusPort: config.statusPort, defaultServerPort: config.defaultServerPort, listenAddress: config.listenAddress,
    user, workerProcesses: config.workerProcesses, metrics: config.enableMetrics,
  };
}

/** Snapshot → annotation stage → model → nginx.conf; the model's problems include the annotation stage's. */
export function buildAndRender(stage: AnnotationStage, snap: Snapshot, config: Config, render: RenderOptions, trial = false): { model: Model; conf: RenderedConf } {
  const opts = modelOptions(config);
  const st = stage.run(snap, opts, trial);
  const built = buildModel(st.snapshot, { ...modelOptions(config, tlsSettingsOf(st.global)), loadBalance: st.global.loadBalance ?? opts.loadBalance }, st.input);
  const model: Model = { ...built, problems: [...st.problems, ...built.problems] };
  const dbs = config.defaultBackendService;
  const defaultUpstream = dbs ? model.upstreams.find((u) => u.service.namespace === dbs.namespace && u.service.name === dbs.name)?.name : undefined;
  const conf = renderNginxConf(model, { ...render, global: st.global, headers: st.headers, defaultUpstream });
  return { model, conf };
}

/**
 * The webhook's judge: the annotation stage (fresh, so nothing is remembered between reviews) and the model, exactly
 * as a sync runs them, without rendering anything.
 */
export function admissionChecker(config: Config, log: Logger): Checker {
  const options = modelOptions(config);
  return {
    options,
    problems: (snap) => {
      const st = new AnnotationStage(config, log).run(snap, options);
      return [...st.problems, ...buildModel(st.snapshot, options, st.input).problems];
    },
  };
}

/** Rounds of hold-and-rebuild one sync may take (each finds one bad Ingress). */
const MAX_ROUNDS = 6;


/** streamReloads: reloads (also) caused by the stream section, endpoint changes of TCP/UDP/passthrough backends included (docs/adr/0013). */
export interface Counters { reloads: number; dynamicUpdates: number; failedUpdates: number; syncs: number; clientCaReloads: number; streamReloads: number }

/** A sync that left nginx serving `model` (plan noop included), for status and Events. */
export interface AppliedSync { readonly model: Model; readonly plan: 'noop' | 'dynamic' | 'reload'; readonly reloaded: boolean }

/** Keeps nginx in step with the store. */
export class Controller {
  readonly store = new Store();
  readonly loop: SyncLoop;
  readonly counters: Counters = { reloads: 0, dynamicUpdates: 0, failedUpdates: 0, syncs: 0, clientCaReloads: 0, streamReloads: 0 };
  private running: DataPlaneState | undefined;
  private current: { model: Model; rendered: RenderedConf; backends: string; certs: CertificatesState } | undefined;
  /** The last sync ended applied (or equal): only then may an EndpointSlice-only change skip the full build. */
  private lastOk = false;
  readonly problems: ProblemReporter;
  readonly tls: TlsSync;
  /** The worker thread the CPU work of a sync runs on (offload.ts): /healthz and the webhook never wait for it. */
  private readonly offload: Offload;
  private readonly quarantine = new Quarantine();
  /** What Lua dropped from the last push of each payload (reported as Problems; empty while TS and Lua agree). */
  private readonly dropped: { backends: Rejected[]; certificates: Rejected[] } = { backends: [], certificates: [] };
  /** Called after every sync whose configuration nginx serves. */
  readonly applied: ((sync: AppliedSync) => void)[] = [];

  constructor(private readonly config: Config, private readonly nginx: Nginx, private readonly render: RenderOptions, private readonly log: Logger) {
    this.loop = new SyncLoop(config.syncPeriodMs, (causes) => this.sync(causes), log);
    this.store.onChange((kind) => { this.loop.mark(kind); });
    this.problems = new ProblemReporter(log);
    this.tls = new TlsSync(config.workDir, log);
    // A build worker that dies (out of memory, a crash) is replaced, and the sync it took with it is run again.
    this.offload = new Offload(config, render, (why) => {
      log.error({ err: why }, 'the build worker died; starting a new one and syncing again in a second');
      setTimeout(() => { this.loop.mark('build-worker-restart'); }, 1000).unref();
    });
  }

  /** True once nginx serves the configuration of the latest successful sync. */
  get healthy(): boolean {
    return this.running !== undefined && this.nginx.running;
  }

  get debug(): { conf: string; backends: string; model: Model | undefined } {
    return { conf: this.current?.rendered.text ?? '', backends: this.current?.backends ?? '[]', model: this.current?.model };
  }

  /** Ends the build worker (after the sync loop stopped). */
  async close(): Promise<void> {
    await this.offload.close();
  }

  /** Called when nginx restarted on its own: its shared dicts are empty, so everything is pushed again. */
  nginxRestarted(): void {
    this.running = this.running ? { ...this.running, backends: '', certificates: '' } : undefined;
    this.loop.mark('nginx-restart');
  }

  /** One sync: snapshot → model → render → skip if equal → plan → apply. */
  async sync(causes: ReadonlyMap<string, number>): Promise<void> {
    const started = Date.now();
    this.counters.syncs += 1;
    await this.tls.prepare();
    // Endpoint churn is the common change: it only needs the upstreams' endpoints again (model/refresh.ts).
    // Everything but the upstreams' endpoints (nginx.conf, certificates, htpasswd files) is then the running one.
    // Stream upstreams are static in nginx.conf (no stream Lua): with a stream section, endpoints need the full build.
    const last = this.lastOk && endpointsOnly(causes, this.current) ? this.current : undefined;
    this.lastOk = false;
    const { model, conf } = last
      ? { model: refreshEndpoints(last.model, this.store.snapshot(), targetPolicy(this.config)), conf: last.rendered }
      : await this.buildTested();
    this.problems.report([...model.problems, ...this.quarantine.problems(), ...rejectedProblems(model, this.dropped.backends, this.dropped.certificates)]);
    this.tls.warnExpiring(model, started);
    if (!last) {
      const authWritten = await writeAuthFiles(this.config.workDir, model);
      if (authWritten > 0) this.log.info({ files: authWritten }, 'wrote htpasswd files (nginx reads them per request: no reload)');
    }
    const backends = JSON.stringify(backendsPayload(model));
    const certs = last?.certs ?? this.tls.state(model);
    const next: DataPlaneState = { confHash: conf.hash, backends, certificates: certs.digest, clientFiles: certs.clientFilesDigest };
    const plan = planApply(this.running, next);
    const cause = Object.fromEntries(causes);
    if (plan === 'noop') {
      this.log.debug({ cause, plan, ms: Date.now() - started }, 'sync');
      for (const l of this.applied) l({ model, plan, reloaded: false });
      if (!last) await pruneAuthFiles(this.config.workDir, model);
      this.current = { model, rendered: conf, backends, certs };
      this.lastOk = true;
      return;
    }
    const reloads = this.counters.reloads;
    try {
      if (plan === 'reload') {
        await this.tls.beforeReload(model);
        await this.reload(conf.text, conf.hash, model);
        if (clientFilesChanged(this.running, next)) this.counters.clientCaReloads += 1;
        countStreamReload(this.counters, reloads, this.current, model);
        await this.tls.afterReload(model);
      }
      if (plan === 'reload' || this.running?.backends !== backends) this.dropped.backends = await this.nginx.push('backends', JSON.parse(backends) as unknown);
      if (plan === 'reload' || this.running?.certificates !== certs.digest) this.dropped.certificates = await this.nginx.pushRaw('certificates', certs.body);
      const dropped = rejectedProblems(model, this.dropped.backends, this.dropped.certificates);
      if (dropped.length > 0) this.problems.report([...model.problems, ...this.quarantine.problems(), ...dropped]);
      if (plan === 'dynamic') this.counters.dynamicUpdates += 1;
      this.running = next;
      this.current = { model, rendered: conf, backends, certs };
      this.lastOk = true;
      this.log.info({ cause, plan, ms: Date.now() - started, servers: model.servers.length, upstreams: model.upstreams.length, counters: this.counters }, 'sync');
      for (const l of this.applied) l({ model, plan, reloaded: this.counters.reloads > reloads });
      if (!last) await pruneAuthFiles(this.config.workDir, model);
    } catch (err) {
      this.counters.failedUpdates += 1;
      this.log.error({ cause, plan, err: errorMessage(err) }, 'sync could not be applied; the last good configuration keeps serving');
      if (err instanceof NginxTestError) return; // nothing to retry until something changes
      // nginx was not reachable or answered an error: push everything again shortly, nothing is dropped.
      this.running = undefined;
      setTimeout(() => { this.loop.mark('retry'); }, 1000).unref();
    }
  }

  /**
   * Builds, renders and tests. When the renderer or nginx -t refuses the result, the one Ingress that caused it is
   * found (nginx's line first, then by halving: quarantine.ts), held out with a Warning, and the rest is built
   * again, at most MAX_ROUNDS times. A refusal no Ingress explains is left to apply, which keeps the last good
   * configuration serving.
   */
  private async buildTested(): Promise<{ model: Model; conf: RenderedConf }> {
    for (let round = 0; ; round++) {
      const snap = this.quarantine.filter(this.store.snapshot());
      const last = round === MAX_ROUNDS;
      let built: { model: Model; conf: RenderedConf };
      try {
        built = await this.offload.build(snap);
      } catch (err) {
        // A value the model let through and the renderer's escaping refused: never the whole sync. (A worker that
        // died is not an Ingress's doing: the sync fails and is retried on a new worker, see the constructor.)
        if (!(err instanceof OffloadError)) throw err;
        const key = last ? undefined : await culprit([], snap.ingresses.map(ingressKey), async (ex) => this.trial(snap, ex, false));
        if (key === undefined) throw err;
        this.hold(key, snap, `render: ${errorMessage(err)}`);
        continue;
      }
      if (last || built.conf.hash === this.running?.confHash) return built;
      try {
        await this.tls.beforeReload(built.model); // client CA files must exist for nginx -t
        await this.nginx.test(built.conf.text);
        return built;
      } catch (err) {
        if (!(err instanceof NginxTestError)) throw err;
        const hints = blame(err.message, built.conf.text, built.model).map(keyOf);
        const key = await culprit(hints, built.model.ingresses.map(keyOf), async (ex) => this.trial(snap, ex, true));
        if (key === undefined) return built;
        this.hold(key, snap, err.message.split('\n')[0]?.replace(/^nginx -t refused the new configuration: /, '') ?? 'nginx -t failed');
      }
    }
  }

  private hold(key: string, snap: Snapshot, reason: string): void {
    const [namespace = '', name = ''] = key.split('/');
    this.log.error({ ingress: key, err: reason }, 'the configuration made from this Ingress was refused; leaving it out, the rest is applied');
    this.quarantine.add([{ kind: 'Ingress', namespace, name }], snap, reason);
  }

  /** Whether the snapshot without `excluded` renders (and, with `nginxTest`, passes nginx -t). */
  private async trial(snap: Snapshot, excluded: ReadonlySet<string>, nginxTest: boolean): Promise<boolean> {
    const without = { ...snap, ingresses: snap.ingresses.filter((i) => !excluded.has(ingressKey(i))) };
    let trial: { model: Model; conf: RenderedConf };
    try {
      trial = await this.offload.build(without, true);
    } catch {
      return false;
    }
    if (!nginxTest) return true;
    try {
      await this.tls.beforeReload(trial.model);
      await this.nginx.test(trial.conf.text);
      return true;
    } catch (err) {
      if (err instanceof NginxTestError) return false;
      throw err;
    }
  }

  private async reload(text: string, hash: string, model: Model): Promise<void> {
    try {
      const how = await this.nginx.apply(text, hash);
      if (how === 'reloaded') this.counters.reloads += 1;
    } catch (err) {
      if (!(err instanceof NginxTestError) || this.nginx.running) throw err;
      // Nothing serves yet: start with an empty configuration so nginx answers, then report the refusal.
      const empty = renderNginxConf(buildModel(EMPTY_SNAPSHOT, modelOptions(this.config)), this.render);
      await this.nginx.apply(empty.text, empty.hash);
      this.log.error({ servers: model.servers.length }, 'nginx refused the first configuration; serving an empty one');
      throw err;
    }
  }
}
