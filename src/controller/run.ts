// Process lifecycle: start the source, nginx and the server; stop them all on SIGINT/SIGTERM.
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { Nginx, nginxVersion } from '../nginx/process.js';
import { chooseWorkerUser, grantTraverse } from '../nginx/worker-user.js';
import { ManifestSource } from '../sources/manifests.js';
import { KubeSource } from '../kube/source.js';
import { startServer } from '../server/http.js';
import { createMetrics } from '../server/metrics.js';
import { Store } from '../store/store.js';
import { Controller, admissionChecker, buildAndRender, renderOptions } from './controller.js';
import { AnnotationStage } from './annotations.js';
import { systemResolvers } from './auth-files.js';
import { mkdir } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import { startWebhook } from '../webhook/server.js';
import { Offload } from './offload.js';
import type { Snapshot } from '../model/input.js';
import { startDuties } from './duties.js';
import { loadConnection } from '../kube/connect.js';

/** A source feeds the store and can be stopped; local folder or Kubernetes API. */
export interface Source {
  start(): Promise<void>;
  stop(): void;
}

/** Local mode with --manifests; otherwise the Kubernetes API (--kubeconfig, KUBECONFIG, or in-cluster). */
function makeSource(config: Config, store: Store, log: Logger): Source {
  if (config.manifests) return new ManifestSource(config.manifests, store, log);
  if (config.mode === 'render') throw new ConfigError('portico render reads --manifests DIR only');
  return new KubeSource(config, store, log);
}

/** `portico render`: the nginx.conf a folder produces, without starting anything. */
export async function renderOnce(config: Config, log: Logger): Promise<string> {
  const store = new Store();
  const source = makeSource(config, store, log);
  await source.start();
  source.stop();
  const { model, conf } = buildAndRender(new AnnotationStage(config, log), store.snapshot(), config, renderOptions(config, undefined));
  for (const p of model.problems) log.warn(`${p.object.kind} ${p.object.namespace}/${p.object.name} ${p.field}: ${p.reason}`);
  return conf.text;
}

/** Runs until SIGINT/SIGTERM; returns the exit code. */
export async function runController(config: Config, log: Logger): Promise<number> {
  log.info({ ...(await nginxVersion(config.nginxBinary)) }, 'nginx version');
  await mkdir(config.workDir, { recursive: true });
  const user = await chooseWorkerUser(config.workerUser, log);
  await grantTraverse(config.workDir, config.luaDir, user, log);
  const restarted = { handler: (): void => undefined };
  const nginx = new Nginx({
    binary: config.nginxBinary, workDir: config.workDir, statusPort: config.statusPort, log,
    onRestart: () => { restarted.handler(); },
  });
  await nginx.prepare(user.uid, user.gid);
  const ctl = new Controller(config, nginx, { ...renderOptions(config, user.name), resolvers: await systemResolvers() }, log);
  restarted.handler = () => { ctl.nginxRestarted(); };
  const source = makeSource(config, ctl.store, log);
  const server = await startServer({ port: config.healthzPort, host: config.healthzHost, debugRemoteAccess: config.debugRemoteAccess }, {
    healthy: () => ctl.healthy,
    debugConfig: () => ctl.debug.conf,
    debugBackends: () => ctl.debug.backends,
    metrics: createMetrics({
      counters: () => ctl.counters,
      sizes: () => {
        const m = ctl.debug.model;
        return { servers: m?.servers.length ?? 0, upstreams: m?.upstreams.length ?? 0, endpoints: m?.upstreams.reduce((n, u) => n + u.endpoints.length, 0) ?? 0 };
      },
    }).text,
    debugCerts: () => ctl.tls.debug(ctl.debug.model),
  }, log);
  ctl.loop.hold();
  try {
    await source.start();
  } catch (err) {
    // Nothing may keep the process alive after a failed start: the caller exits non-zero.
    source.stop();
    ctl.loop.stop();
    server.close();
    await nginx.stop();
    throw err;
  }
  ctl.loop.mark('startup');
  ctl.loop.release();
  // Leader election, Ingress status and Events exist only against a cluster.
  const duties = config.manifests ? undefined : await startDuties(loadConnection(config).kc, config, ctl, log);
  const { validatingWebhook: hookAt, validatingWebhookCertificate: certFile, validatingWebhookKey: keyFile } = config;
  // Reviews run on a worker thread of their own: never behind a sync, never on the thread that answers /healthz.
  const reviews = hookAt && certFile && keyFile ? new Offload(config, renderOptions(config, undefined)) : undefined;
  const webhook = hookAt && certFile && keyFile ? await startWebhook({ ...hookAt, certFile, keyFile, log,
    snapshot: () => ctl.store.snapshot(), checker: admissionChecker(config, log.child({ component: 'webhook' }, { level: 'silent' })),
    ...(reviews ? { review: (body: unknown, snap: Snapshot) => reviews.review(body, snap) } : {}) }) : undefined;
  // The handlers stay for the whole shutdown: a second signal (kubectl, a supervisor, Ctrl-C twice) must not kill the
  // process halfway, leaving nginx orphaned and the Lease held until it expires.
  let stopping = false;
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    const onSignal = (sig: NodeJS.Signals): void => {
      if (stopping) { log.info({ signal: sig }, 'already stopping'); return; }
      stopping = true;
      resolve(sig);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  log.info({ signal }, 'stopping');
  await duties?.stop();
  source.stop();
  ctl.loop.stop();
  server.close();
  await webhook?.close();
  await reviews?.close();
  await ctl.close();
  await nginx.stop();
  log.info('stopped');
  return 0;
}
