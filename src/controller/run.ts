// Process lifecycle: start the source, nginx and the server; stop them all on SIGINT/SIGTERM.
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import { Nginx, nginxVersion } from '../nginx/process.js';
import { chooseWorkerUser } from '../nginx/worker-user.js';
import { ManifestSource } from '../sources/manifests.js';
import { startServer } from '../server/http.js';
import { createMetrics } from '../server/metrics.js';
import { Store } from '../store/store.js';
import { Controller, admissionChecker, buildAndRender, renderOptions } from './controller.js';
import { AnnotationStage } from './annotations.js';
import { mkdir } from 'node:fs/promises';
import { ConfigError } from '../errors.js';
import { startWebhook } from '../webhook/server.js';

/** A source feeds the store and can be stopped; local folder or Kubernetes API. */
export interface Source {
  start(): Promise<void>;
  stop(): void;
}

function makeSource(config: Config, store: Store, log: Logger): Source {
  if (config.manifests) return new ManifestSource(config.manifests, store, log);
  throw new ConfigError('no source: give --manifests DIR (local mode) or --kubeconfig FILE');
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
  const user = await chooseWorkerUser(config.workDir);
  const restarted = { handler: (): void => undefined };
  const nginx = new Nginx({
    binary: config.nginxBinary, workDir: config.workDir, statusPort: config.statusPort, log,
    onRestart: () => { restarted.handler(); },
  });
  await nginx.prepare(user.uid, user.gid);
  const ctl = new Controller(config, nginx, renderOptions(config, user.name), log);
  restarted.handler = () => { ctl.nginxRestarted(); };
  const source = makeSource(config, ctl.store, log);
  const server = await startServer(config.healthzPort, '', {
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
  await source.start();
  ctl.loop.mark('startup');
  const { validatingWebhook: hookAt, validatingWebhookCertificate: certFile, validatingWebhookKey: keyFile } = config;
  const webhook = hookAt && certFile && keyFile ? await startWebhook({ ...hookAt, certFile, keyFile, log,
    snapshot: () => ctl.store.snapshot(), checker: admissionChecker(config, log.child({ component: 'webhook' }, { level: 'silent' })) }) : undefined;
  const signal = await new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', () => { resolve('SIGINT'); });
    process.once('SIGTERM', () => { resolve('SIGTERM'); });
  });
  log.info({ signal }, 'stopping');
  source.stop();
  ctl.loop.stop();
  server.close();
  await webhook?.close();
  await nginx.stop();
  log.info('stopped');
  return 0;
}
