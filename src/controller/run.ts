// Process lifecycle: start the source, nginx and the server; stop them all on SIGINT/SIGTERM.
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { streamJsOption } from '../nginx/stream-js.js';
import { Nginx, nginxVersion } from '../nginx/process.js';
import { chooseWorkerUser, grantTraverse } from '../nginx/worker-user.js';
import { ManifestSource } from '../sources/manifests.js';
import { startServer } from '../server/http.js';
import { loadDashboard } from '../server/dashboard.js';
import { startOperations } from './operations.js';
import { StopSignal, exitAfter } from './stop.js';
import { setTimeout as sleep } from 'node:timers/promises';
import { Controller } from './controller.js';
import { admissionChecker, modelOptions, renderOptions } from '../pipeline/build.js';
import { l4FlagsOf } from '../model/gateway/l4-routes.js';
import { systemResolvers } from './auth-files.js';
import { mkdir } from 'node:fs/promises';
import { ConfigError, errorMessage } from '../errors.js';
import { startWebhook } from '../webhook/server.js';
import { Offload } from '../worker/offload.js';
import type { Snapshot } from '../model/input.js';
import type { Duties } from './duties.js';
import { debugBackends } from '../apply/stream.js';
import { gatewayDoc } from '../inspect/gateway.js';
import { withRouteTable } from '../inspect/route-table.js';
import { checkPorts, explainStartFailure } from './ports.js';
import { openFilesHardLimit, stdoutOpenable } from '../nginx/launch.js';
import type { Server } from 'node:http';
import { join } from 'node:path';
import { listenerPortPolicy } from '../pipeline/listener-ports.js';
import { fixMallocThresholds } from './malloc-thresholds.js';

/** A source feeds the store and can be stopped; local folder or Kubernetes API. */
export interface Source {
  start(): Promise<void>;
  stop(): void;
}

/**
 * Local mode with --manifests; otherwise the Kubernetes API (--kubeconfig, KUBECONFIG, or in-cluster). The API client
 * is loaded only then: @kubernetes/client-node and its dependencies took 0.4 s of a local-mode start (docs/adr/0047).
 */
async function makeSource(config: Config, ctl: Controller, log: Logger): Promise<Source> {
  const { store } = ctl;
  if (config.manifests)
    return new ManifestSource(config.manifests, store, log, config.watchNamespaceSelector, {
      preload: (objects) => {
        ctl.preload(objects);
      },
      read: (dir, names) => ctl.readAhead(dir, names),
    });
  if (config.mode === 'render') throw new ConfigError('portico render reads --manifests DIR only');
  const { KubeSource } = await import('../kube/source.js');
  return new KubeSource(config, store, log);
}

/** Leader election, Ingress status and Events: against a cluster only (its client loaded here, as makeSource's). */
async function clusterDuties(config: Config, ctl: Controller, log: Logger): Promise<Duties | undefined> {
  if (config.manifests) return undefined;
  const [{ startDuties }, { loadConnection }] = await Promise.all([import('./duties.js'), import('../kube/connect.js')]);
  return startDuties(loadConnection(config).kc, config, ctl, log);
}

export interface RunOptions {
  /** Stop when the process that started Portico exits: npm's shell, which passes no signal on (cli/main.ts). */
  readonly watchParent?: boolean;
}

/**
 * The access log's place when the ConfigMap names none: undefined for Portico's stdout (`kubectl logs`, as
 * ingress-nginx), else the work directory's logs/access.log when nginx could not open /dev/stdout (a socket).
 */
async function defaultAccessLog(config: Config, log: Logger): Promise<string | undefined> {
  if (await stdoutOpenable()) return undefined;
  const file = join(config.workDir, 'logs', 'access.log');
  log.warn({ file }, "Portico's stdout cannot be opened by path (a socket?): the access log goes to a file; set access-log-path to choose one");
  return file;
}

/** Runs until SIGINT/SIGTERM; returns the exit code, or throws what made it stop (a port in use: exit status 1). */
export async function runController(config: Config, log: Logger, opts: RunOptions = {}): Promise<number> {
  const stop = new StopSignal(log);
  if (opts.watchParent === true) stop.watchParent();
  // before the first sync's messages between the threads, which would raise glibc's thresholds (docs/adr/0062)
  await fixMallocThresholds(log);
  // Every port free before anything starts: a busy one is an error that names it and its flag, and nothing runs on.
  await checkPorts(config);
  log.info({ ...(await nginxVersion(config.nginxBinary)) }, 'nginx version');
  await mkdir(config.workDir, { recursive: true });
  const user = await chooseWorkerUser(config.workerUser, log);
  await grantTraverse(config.workDir, config.luaDir, user, log);
  const events = { restarted: (): void => undefined, crashed: (): void => undefined };
  const nginx = new Nginx({
    binary: config.nginxBinary,
    workDir: config.workDir,
    statusPort: config.statusPort,
    log,
    testBesideReload: config.testBesideReload,
    onRestart: () => {
      events.restarted();
    },
    onCrash: () => {
      events.crashed();
    },
    // nginx exited at its first start (a port taken since checkPorts, a tcp-services port): nothing can serve.
    onStartFailed: (err) => {
      stop.fail(explainStartFailure(config, err));
    },
  });
  await nginx.prepare(user.uid, user.gid);
  const accessLog = await defaultAccessLog(config, log);
  const openFilesLimit = await openFilesHardLimit();
  // Once at start: nginx's stream njs module, for TCPRoute/UDPRoute peers without a reload (docs/adr/0041).
  const l4Js = await streamJsOption(config, log);
  const ctl = new Controller(
    config,
    nginx,
    { ...renderOptions(config, user.name, accessLog), ...l4Js, resolvers: await systemResolvers(), ...(openFilesLimit === undefined ? {} : { openFilesLimit }) },
    log,
  );
  let duties: Duties | undefined = undefined; // started after the first sync; the metrics ask it from then on
  const ops = startOperations(config, ctl, nginx, () => duties?.leading?.(), log);
  events.restarted = () => {
    ops.nginxRestarted();
  };
  events.crashed = () => {
    ops.nginxCrashed();
  };
  stop.onStop(() => {
    ops.beginStop();
  });
  const source = await makeSource(config, ctl, log);
  let server: Server | undefined;
  ctl.loop.hold();
  try {
    server = await startServer(
      { port: config.healthzPort, host: config.healthzHost, debugRemoteAccess: config.debugRemoteAccess },
      {
        healthy: () => ops.healthy(),
        debugConfig: () => withRouteTable(ctl.debug.conf, ctl.debug.routes),
        debugRoutes: () => ctl.debug.routes,
        debugBackends: () => debugBackends(ctl.debug.backends, ctl.debug.model),
        metrics: () => ops.metrics(),
        state: () => ops.state(),
        ...(config.enableDashboard ? { dashboard: await loadDashboard(() => ops.state()) } : {}),
        debugCerts: () => ctl.tls.debug(ctl.debug.model),
        ...(config.enableGatewayApi
          ? { debugGateway: () => `${JSON.stringify(gatewayDoc(ctl.store.snapshot(), config.gatewayControllerName, config, l4FlagsOf(modelOptions(config)), listenerPortPolicy(config)), null, 2)}\n` }
          : {}),
      },
      log,
    );
    if (!(await stop.before(source.start()))) {
      log.info({ signal: await stop.signalled }, 'stopped while starting');
      source.stop();
      ctl.loop.stop();
      server.close();
      await ctl.close();
      exitAfter(0, 2000, log);
      return 0;
    }
  } catch (err) {
    // Nothing may keep the process alive after a failed start: the caller exits non-zero.
    source.stop();
    ctl.loop.stop();
    server?.close();
    await ctl.close(); // the build worker thread would keep the process alive
    await nginx.stop();
    throw err;
  }
  ctl.loop.mark('startup');
  ctl.loop.release();
  duties = await clusterDuties(config, ctl, log);
  const { validatingWebhook: hookAt, validatingWebhookCertificate: certFile, validatingWebhookKey: keyFile } = config;
  // Reviews run on a worker thread of their own: never behind a sync, never on the thread that answers /healthz.
  const reviews =
    hookAt && certFile && keyFile
      ? new Offload(config, renderOptions(config, undefined, accessLog), (why) => {
          log.error({ err: why }, 'the admission worker died; the next review starts a new one');
        })
      : undefined;
  // The review worker takes the cluster and indexes it now, not when the first review arrives (webhook/neighbours.ts).
  reviews?.prepare(ctl.store.snapshot()).catch((err: unknown) => {
    log.warn({ err: errorMessage(err) }, 'the admission worker could not take the snapshot ahead; the first review will');
  });
  const webhook =
    hookAt && certFile && keyFile
      ? await startWebhook({
          ...hookAt,
          certFile,
          keyFile,
          log,
          snapshot: () => ctl.store.snapshot(),
          checker: admissionChecker(config, log.child({ component: 'webhook' }, { level: 'silent' })),
          ...(reviews ? { review: (body: unknown, snap: Snapshot) => reviews.review(body, snap) } : {}),
        })
      : undefined;
  const signal = await stop.signalled;
  // Readiness fails from the signal on (ops.beginStop); load balancers see it during the grace period while nginx
  // keeps serving, then nginx quits gracefully (in-flight requests finish, bounded by worker_shutdown_timeout).
  // A failed start has nothing serving to drain.
  if (stop.failure === undefined) {
    log.info({ signal, shutdownGracePeriodMs: config.shutdownGracePeriodMs }, 'stopping: /healthz fails from now on');
    if (config.shutdownGracePeriodMs > 0) await sleep(config.shutdownGracePeriodMs);
  }
  await duties?.stop();
  source.stop();
  ctl.loop.stop();
  server.close();
  await webhook?.close();
  await reviews?.close();
  await ctl.close();
  await nginx.stop();
  if (stop.failure) throw stop.failure; // cli/main.ts logs it as the fatal line and exits 1
  log.info('stopped');
  exitAfter(0, 2000, log);
  return 0;
}
