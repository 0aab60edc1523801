// /metrics: ingress-nginx's controller metrics, Portico's own, the process metrics once, and the per-request figures.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { SyncHistory } from './history.js';
import { parseDump, requestExposition } from './requests.js';
import { tracingExposition } from './tracing.js';

export interface MetricSources {
  counters(): { reloads: number; dynamicUpdates: number; failedUpdates: number; syncs: number };
  sizes(): { servers: number; upstreams: number; endpoints: number };
  history: SyncHistory;
  /** sha256 (hex) of the nginx.conf served, '' before the first. */
  configHash(): string;
  /** Certificates served per host: expiry as epoch seconds. */
  certificates(): readonly { host: string; secret: string; namespace: string; notAfter: number }[];
  /** Whether this replica leads; undefined without leader election (local mode, --update-status=false). */
  leading(): boolean | undefined;
  quarantined(): number;
  nginxRestarts(): number;
  /** The Lua dump of per-request figures ('' when metrics are off). */
  requests(): Promise<string>;
}

/** ingress-nginx's constant labels, on its metrics (not on Portico's own, whose names are Portico's). */
export type ControllerLabels = Record<'controller_class' | 'controller_namespace' | 'controller_pod', string>;

/**
 * The registry behind /metrics; `text()` renders the exposition format, the per-request figures read on scrape, less
 * the per-request metrics `excluded` names (--exclude-socket-metrics).
 */
export function createMetrics(src: MetricSources, labels: ControllerLabels, excluded: readonly string[] = []): { text: () => Promise<string> } {
  const registry = new Registry();
  // No prefix: prom-client's names already start with process_ / nodejs_ (ingress-nginx's Go side does the same).
  collectDefaultMetrics({ register: registry });
  const L = Object.keys(labels);
  const gaugeN = (name: string, help: string, value: () => number): void => {
    new Gauge({
      name,
      help,
      labelNames: L,
      registers: [registry],
      collect() {
        this.set(labels, value());
      },
    });
  };
  const counterN = (name: string, help: string, value: () => number): void => {
    new Counter({
      name,
      help,
      labelNames: L,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(labels, value());
      },
    });
  };
  const n = 'nginx_ingress_controller_';
  gaugeN(`${n}config_last_reload_successful`, 'Whether the last configuration change was applied (1) or refused, the last good one serving (0)', () => (src.history.lastReload.ok ? 1 : 0));
  gaugeN(`${n}config_last_reload_successful_timestamp_seconds`, 'Timestamp of the last successful configuration reload', () => src.history.lastReload.at / 1000);
  gaugeN(`${n}config_hash`, "The running configuration hash (the first 52 bits of nginx.conf's sha256)", () => parseInt(src.configHash().slice(0, 13) || '0', 16));
  counterN(`${n}success`, 'Cumulative number of successful nginx reloads', () => src.counters().reloads);
  counterN(`${n}errors`, 'Cumulative number of syncs whose configuration could not be applied (nginx -t refused, reload or push failed)', () => src.counters().failedUpdates);
  new Gauge({
    name: `${n}ssl_expire_time_seconds`,
    help: 'Number of seconds since 1970 to the SSL certificate expire',
    labelNames: [...L, 'host', 'secret_name', 'namespace'],
    registers: [registry],
    collect() {
      this.reset();
      for (const c of src.certificates()) this.set({ ...labels, host: c.host, secret_name: c.secret, namespace: c.namespace }, c.notAfter);
    },
  });
  new Gauge({
    name: `${n}leader_election_status`,
    help: 'Gauge reporting status of the leader election, 0 indicates follower, 1 indicates leader',
    labelNames: [...L, 'name'],
    registers: [registry],
    collect() {
      this.reset();
      const l = src.leading();
      if (l !== undefined) this.set({ ...labels, name: labels.controller_pod }, l ? 1 : 0);
    },
  });
  const counter = (name: string, help: string, value: () => number): void => {
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        this.reset();
        this.inc(value());
      },
    });
  };
  counter('portico_reloads_total', 'nginx reloads after a configuration change', () => src.counters().reloads);
  counter('portico_dynamic_updates_total', 'changes applied through Lua without a reload', () => src.counters().dynamicUpdates);
  counter('portico_failed_updates_total', 'syncs that could not be applied (the last good configuration kept serving)', () => src.counters().failedUpdates);
  counter('portico_syncs_total', 'syncs run by the sync loop', () => src.counters().syncs);
  counter('portico_nginx_restarts_total', 'times nginx exited on its own and was restarted', () => src.nginxRestarts());
  new Counter({
    name: 'portico_sync_plans_total',
    help: 'finished syncs by outcome: noop, dynamic (Lua only), reload, failed',
    labelNames: ['plan'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [plan, v] of Object.entries(src.history.byPlan)) this.inc({ plan }, v);
    },
  });
  const durations = new Histogram({
    name: 'portico_sync_duration_seconds',
    help: 'time a sync took, by outcome',
    labelNames: ['plan'],
    registers: [registry],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  src.history.listeners.push((r) => {
    durations.observe({ plan: r.plan }, r.ms / 1000);
  });
  const gauge = (name: string, help: string, value: () => number): void => {
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(value());
      },
    });
  };
  gauge('portico_quarantined_ingresses', 'Ingresses held out because nginx refused the configuration made from them', () => src.quarantined());
  gauge('portico_servers', 'virtual hosts in the running configuration', () => src.sizes().servers);
  gauge('portico_upstreams', 'service ports balanced by Lua', () => src.sizes().upstreams);
  gauge('portico_endpoints', 'endpoints across all upstreams', () => src.sizes().endpoints);
  return {
    text: async () => {
      const [own, dump] = await Promise.all([registry.metrics(), src.requests().catch(() => '')]);
      return `${own}${requestExposition(parseDump(dump), { ...labels }, excluded)}${tracingExposition(dump)}`;
    },
  };
}
