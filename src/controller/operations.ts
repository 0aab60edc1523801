// Operations wiring: metrics, the sync history, the inspector's state, readiness through restarts and stops.
import type { Config } from '../config/config.js';
import type { Logger } from '../log.js';
import type { Nginx } from '../nginx/process.js';
import { SyncHistory } from '../metrics/history.js';
import { createMetrics } from '../metrics/registry.js';
import { parseDump, trafficByIngress } from '../metrics/requests.js';
import { certificatesOf, routesOf, skippedOf, streamOf, warningsOf, type CertDebugDefault, type CertDebugHost, type State } from '../inspect/state.js';
import type { Controller } from './controller.js';

const QUARANTINED = 'nginx refused the configuration made from this Ingress';

export interface Operations {
  /** /healthz: nginx serves the current configuration, was not restarted without its state yet, and no stop began. */
  healthy(): boolean;
  metrics(): Promise<string>;
  /** The inspector's document (src/inspect/state.ts) as JSON text. */
  state(): Promise<string>;
  /** Shutdown began: readiness fails from now on, and nginx is not restarted any more. */
  beginStop(): void;
  /** nginx exited on its own: /healthz fails until it serves again with its Lua state pushed. */
  nginxCrashed(): void;
  /** nginx is back (started from the current nginx.conf): counted; the controller pushes the dynamic state. */
  nginxRestarted(): void;
}

/** Hooks onto the controller's listeners and the sync loop's observers; changes nothing in how a sync runs. */
export function startOperations(config: Config, ctl: Controller, nginx: Nginx, leading: () => boolean | undefined, log: Logger): Operations {
  const history = new SyncHistory();
  let restarts = 0;
  let repushPending = false;
  let stopping = false;
  ctl.applied.push(({ plan }) => {
    history.applied(plan);
  });
  ctl.loop.observers.push((run) => {
    history.finished(run);
    const last = history.recent(1)[0];
    if (repushPending && run.causes.has('nginx-restart') && last?.plan !== 'failed') repushPending = false;
  });
  const certDebug = (): { hosts?: CertDebugHost[]; default?: CertDebugDefault } => JSON.parse(ctl.tls.debug(ctl.debug.model)) as { hosts?: CertDebugHost[]; default?: CertDebugDefault };
  const certHosts = (): CertDebugHost[] => certDebug().hosts ?? [];
  const dump = async (): Promise<string> => (config.enableMetrics && nginx.running ? nginx.metrics() : '');
  const quarantined = (): number => ctl.problems.current.filter((p) => p.reason.startsWith(QUARANTINED)).length;
  const metrics = createMetrics(
    {
      counters: () => ctl.counters,
      sizes: () => {
        const m = ctl.debug.model;
        return { servers: m?.servers.length ?? 0, upstreams: m?.upstreams.length ?? 0, endpoints: m?.upstreams.reduce((n, u) => n + u.endpoints.length, 0) ?? 0 };
      },
      history,
      configHash: () => /\/portico\/config-hash \{ return 200 "([0-9a-f]+)"/.exec(ctl.debug.conf)?.[1] ?? '',
      certificates: () =>
        certHosts()
          .map((h) => ({ host: h.host, secret: h.secret?.split('/')[1] ?? '', namespace: h.secret?.split('/')[0] ?? '', notAfter: Date.parse(h.notAfter ?? '') / 1000 }))
          .filter((c) => Number.isFinite(c.notAfter)),
      leading,
      quarantined,
      nginxRestarts: () => restarts,
      requests: dump,
    },
    { controller_class: config.controllerClass, controller_namespace: config.podNamespace ?? '', controller_pod: config.podName ?? '' },
    config.excludeSocketMetrics,
  );
  return {
    healthy: () => !stopping && !repushPending && ctl.healthy,
    metrics: () => metrics.text(),
    state: async () => {
      const series = parseDump(await dump().catch(() => ''));
      const problems = ctl.problems.current;
      const certs = certDebug();
      const state: State = {
        generatedAt: new Date().toISOString(),
        healthy: !stopping && !repushPending && ctl.healthy,
        stopping,
        nginx: { restarts },
        routes: routesOf(ctl.debug.model, ctl.store.snapshot().endpointSlices, ctl.debug.routed),
        stream: streamOf(ctl.debug.model, ctl.store.snapshot().endpointSlices),
        certificates: certificatesOf(certs.hosts ?? [], Date.now(), certs.default),
        syncs: history.recent(20),
        warnings: warningsOf(problems),
        skipped: skippedOf(ctl.debug.model, problems),
        traffic: trafficByIngress(series),
      };
      return `${JSON.stringify(state, null, 2)}\n`;
    },
    beginStop: () => {
      stopping = true;
      nginx.quitting();
    },
    nginxCrashed: () => {
      repushPending = true;
      log.warn('nginx is down: /healthz fails until it is restarted with the current configuration');
    },
    nginxRestarted: () => {
      restarts += 1;
      ctl.nginxRestarted();
    },
  };
}
