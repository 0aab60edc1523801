// Applying a plan: build with quarantine rounds (nginx -t through the candidate), write nginx.conf and reload, push
// what Lua holds, fall back to an empty configuration when nothing serves yet. The controller decides; this executes.
import { BuildError, errorMessage, NginxTestError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Snapshot } from '../model/input.js';
import type { Model, Problem } from '../model/types.js';
import type { RenderedConf } from '../render/nginx-conf.js';
import type { Nginx } from '../nginx/process.js';
import { clientFilesChanged, planApply, type DataPlaneState, type Plan } from './plan.js';
import { Quarantine, blame, culprit } from './quarantine.js';
import { nsKey, refKey } from '../model/keys.js';
import type { ObjectRef } from '../model/types.js';
import type { TlsSync } from '../tls/sync.js';
import { countStreamReload } from './stream.js';
import { LuaPushes, type Candidate, type Dropped, type Previous } from './lua-pushes.js';

export type { Candidate, Dropped } from './lua-pushes.js';

/** What builds a candidate from a snapshot (the build worker, worker/offload.ts); a BuildError is the build refusing it. */
export interface Builder {
  build(snapshot: Snapshot, trial?: boolean): Promise<{ model: Model; conf: RenderedConf }>;
}

/** `namespace/name` of a reference. */
const refOf = (r: ObjectRef): string => refKey(r.namespace, r.name);

/** Rounds of hold-and-rebuild one sync may take (each finds one bad Ingress). */
const MAX_ROUNDS = 6;

/** streamReloads: reloads (also) caused by the stream section, endpoint changes of TCP/UDP/passthrough backends included (docs/adr/0013). */
export interface Counters {
  reloads: number;
  dynamicUpdates: number;
  failedUpdates: number;
  syncs: number;
  clientCaReloads: number;
  streamReloads: number;
}

/** Runs plans against nginx and remembers what nginx runs. */
export class Executor {
  readonly counters: Counters = { reloads: 0, dynamicUpdates: 0, failedUpdates: 0, syncs: 0, clientCaReloads: 0, streamReloads: 0 };
  private running: DataPlaneState | undefined;
  /** What Lua holds of each payload (lua/portico/store.lua), when known: a push then sends only what changed. */
  private readonly lua: LuaPushes;
  private readonly quarantine = new Quarantine();
  /** A push of backends ahead of the sync that builds them (backendsAhead), which the next apply waits for. */
  private ahead: Promise<void> | undefined;
  /** The apply under way, if any. */
  private applying: Promise<boolean> | undefined;

  /**
   * `retry` asks for another sync later (nginx unreachable, a push refused); `empty` renders the configuration nginx
   * starts with when it refuses the first one.
   */
  constructor(
    private readonly nginx: Nginx,
    private readonly deps: { readonly tls: TlsSync; readonly builder: Builder; readonly log: Logger; readonly retry: () => void; readonly empty: () => RenderedConf },
  ) {
    this.lua = new LuaPushes(nginx, deps.log);
  }

  /** What Lua dropped from the payloads it holds. */
  get dropped(): Dropped {
    return this.lua.dropped;
  }

  /** True once nginx serves the configuration of the latest applied plan. */
  get serving(): boolean {
    return this.running !== undefined && this.nginx.running;
  }

  /** The Warnings of the Ingresses held out of the configuration. */
  quarantineProblems(): Problem[] {
    return this.quarantine.problems();
  }

  /** nginx restarted on its own: its shared dicts are empty, so everything is pushed again on the next apply. */
  nginxRestarted(): void {
    this.running = this.running ? { ...this.running, backends: '', certificates: '', routes: '', gateway: '' } : undefined;
    this.lua.forget();
  }

  /**
   * The backends of a whole build whose model arrived while the build worker still renders it, added to what Lua holds
   * (none removed) as one whole payload: nginx decodes and checks them (0.2 s at 10,000 Ingresses) beside the render
   * instead of after it. The controller asks only while nginx serves or applies the startup head: the head's backends
   * are the cluster's own, so the union is the whole cluster's list and the sync that follows finds it held
   * (docs/adr/0067). The next apply waits for it, and pushes the backends again (a delta of the ones the union has too
   * many, if any). One at a time; a sync that never applied leaves none pending.
   */
  backendsAhead(entries: ReadonlyMap<string, string>): void {
    if (this.ahead !== undefined) return;
    // after the head's own apply, when the model came while it was under way
    const ahead: Promise<void> = (this.applying ?? Promise.resolve(true))
      .then(async () => {
        const running = this.running;
        if (running === undefined || !this.nginx.running) return;
        await this.lua.backendsAhead(entries);
        // the next apply compares against what Lua now holds, not the head's id
        if (this.running === running) this.running = { ...running, backends: '' };
      })
      .catch(() => undefined) // best effort: the sync pushes what it needs
      .then(() => {
        if (this.ahead === ahead) this.ahead = undefined;
      });
    this.ahead = ahead;
  }

  /** The plan that takes nginx from what it runs to `next`. */
  plan(next: DataPlaneState): Plan {
    return planApply(this.running, next);
  }

  /**
   * Applies a `dynamic` or `reload` plan: nginx.conf (tested, then reloaded), then the Lua payloads that changed.
   * True when nginx serves `c`; false when it could not be applied (logged and counted; the last good configuration
   * keeps serving; a retry is asked for unless nginx -t refused it, which nothing but a change can fix).
   */
  async apply(plan: Exclude<Plan, 'noop'>, c: Candidate, next: DataPlaneState, prev: Previous, opts: { readonly cause: unknown; readonly fromHead?: boolean }): Promise<boolean> {
    await this.ahead; // never rejects
    const applying = this.applyNow(plan, c, next, prev, opts);
    this.applying = applying;
    try {
      return await applying;
    } finally {
      if (this.applying === applying) this.applying = undefined;
    }
  }

  private async applyNow(
    plan: Exclude<Plan, 'noop'>,
    c: Candidate,
    next: DataPlaneState,
    prev: Previous,
    { cause, fromHead = false }: { readonly cause: unknown; readonly fromHead?: boolean },
  ): Promise<boolean> {
    const reloads = this.counters.reloads;
    let certsPushed = false;
    try {
      if (plan === 'reload') {
        certsPushed = await this.lua.comingIn(c, this.nginx.running, this.running?.certificates);
        await this.lua.routesComingIn(prev, c.conf, fromHead);
        await this.deps.tls.beforeReload(c.model);
        await this.reload(c.conf, c.model);
        if (clientFilesChanged(this.running, next)) this.counters.clientCaReloads += 1;
        countStreamReload(this.counters, reloads, prev, c.model);
        await this.deps.tls.afterReload(c.model);
      }
      // After a reload too, only what Lua does not hold yet: the shared dict outlives it, the backends the reload brings
      // went before it (LuaPushes.comingIn) or ahead of the sync (backendsAhead), and a new worker reads the whole list with the deltas after it, installing each
      // backend on its first request (docs/adr/0048). The whole list again was 0.3 s of each 10,000-Ingress reload.
      if (plan === 'reload' || this.running?.backends !== next.backends) await this.lua.pushBackends(c);
      // the set (the hosts that changed, when Lua's is known), unless it went just before the reload (the dict outlives it)
      if (!certsPushed && (plan === 'reload' || this.running?.certificates !== c.certs.digest)) await this.lua.pushCertificates(c);
      // The route table last: the backends and certificates it names are in place (docs/adr/0014).
      // compared by `next.routes` (an id of the table, controller.ts); its text is built only for a whole push
      if (c.conf.routeHosts !== undefined && (plan === 'reload' || this.running?.routes !== next.routes))
        await this.lua.pushRoutes(plan === 'reload', () => c.conf.routes ?? '', c.conf.routeHosts, c.model);
      const gateway = next.gateway;
      if (gateway && (plan === 'reload' || this.running?.gateway !== gateway)) await this.lua.pushGateway(gateway);
      if (plan === 'dynamic') this.counters.dynamicUpdates += 1;
      this.running = next;
      return true;
    } catch (err) {
      this.counters.failedUpdates += 1;
      // Only a running nginx keeps serving something: one that never started (or exited) serves nothing.
      const serving = this.nginx.running ? 'the last good configuration keeps serving' : 'nginx is not running: nothing is served';
      this.deps.log.error({ cause, plan, err: errorMessage(err) }, `sync could not be applied; ${serving}`);
      // nothing to retry until something changes, unless the test ran beside the reload: the retry tests it first and
      // holds the Ingress that caused it (buildTested)
      if (err instanceof NginxTestError && !err.beside) return false;
      // nginx was not reachable or answered an error: push everything again shortly, nothing is dropped.
      this.running = undefined;
      this.lua.forget();
      this.deps.retry();
      return false;
    }
  }

  /**
   * Builds, renders and tests `snapshot()`. When the renderer or nginx -t refuses the result, the one Ingress that
   * caused it is found (nginx's line first, then by halving: quarantine.ts), held out with a Warning, and the rest is
   * built again, at most MAX_ROUNDS times. A refusal no Ingress explains is left to apply, which keeps the last good
   * configuration serving.
   */
  async buildTested(snapshot: () => Snapshot): Promise<{ model: Model; conf: RenderedConf }> {
    for (let round = 0; ; round++) {
      const snap = this.quarantine.filter(snapshot());
      const last = round === MAX_ROUNDS;
      let built: { model: Model; conf: RenderedConf };
      try {
        built = await this.deps.builder.build(snap);
      } catch (err) {
        // A value the model let through and the renderer's escaping refused: never the whole sync. (A worker that
        // died is not an Ingress's doing: the sync fails and is retried on a new worker.)
        if (!(err instanceof BuildError)) throw err;
        const key = last ? undefined : await culprit([], snap.ingresses.map(nsKey), async (ex) => this.trial(snap, ex, false));
        if (key === undefined) throw err;
        this.hold(key, snap, `render: ${errorMessage(err)}`);
        continue;
      }
      // A reload's own test runs beside it (docs/adr/0053): a refusal there comes back here as a retry, tested first.
      if (last || built.conf.hash === this.running?.confHash || this.nginx.testsBeside(built.conf.hash)) return built;
      try {
        await this.deps.tls.beforeReload(built.model); // client CA files must exist for nginx -t
        await this.nginx.test(built.conf.text);
        return built;
      } catch (err) {
        if (!(err instanceof NginxTestError)) throw err;
        const hints = blame(err.message, built.conf, built.model).map(refOf);
        const key = await culprit(hints, built.model.ingresses.map(refOf), async (ex) => this.trial(snap, ex, true));
        if (key === undefined) return built;
        this.hold(key, snap, err.message.split('\n')[0]?.replace(/^nginx -t refused the new configuration: /, '') ?? 'nginx -t failed');
      }
    }
  }

  private hold(key: string, snap: Snapshot, reason: string): void {
    const [namespace = '', name = ''] = key.split('/');
    this.deps.log.error({ ingress: key, err: reason }, 'the configuration made from this Ingress was refused; leaving it out, the rest is applied');
    this.quarantine.add([{ kind: 'Ingress', namespace, name }], snap, reason);
  }

  /** Whether the snapshot without `excluded` renders (and, with `nginxTest`, passes nginx -t). */
  private async trial(snap: Snapshot, excluded: ReadonlySet<string>, nginxTest: boolean): Promise<boolean> {
    const without = { ...snap, ingresses: snap.ingresses.filter((i) => !excluded.has(nsKey(i))) };
    let trial: { model: Model; conf: RenderedConf };
    try {
      trial = await this.deps.builder.build(without, true);
    } catch {
      return false;
    }
    if (!nginxTest) return true;
    try {
      await this.deps.tls.beforeReload(trial.model);
      await this.nginx.test(trial.conf.text);
      return true;
    } catch (err) {
      if (err instanceof NginxTestError) return false;
      throw err;
    }
  }

  private async reload(conf: RenderedConf, model: Model): Promise<void> {
    try {
      const how = await this.nginx.apply(conf.text, conf.hash, conf.shutdownTimeoutSeconds);
      if (how === 'reloaded') this.counters.reloads += 1;
    } catch (err) {
      if (!(err instanceof NginxTestError) || this.nginx.running) throw err;
      // Nothing serves yet: start with an empty configuration so nginx answers, then report the refusal.
      const empty = this.deps.empty();
      await this.nginx.apply(empty.text, empty.hash, empty.shutdownTimeoutSeconds);
      this.deps.log.error({ servers: model.servers.length }, 'nginx refused the first configuration; serving an empty one');
      throw err;
    }
  }
}
