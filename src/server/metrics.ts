// Prometheus metrics (prom-client): Portico's counters, read from the controller when scraped.
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

export interface MetricSources {
  counters(): { reloads: number; dynamicUpdates: number; failedUpdates: number; syncs: number };
  sizes(): { servers: number; upstreams: number; endpoints: number };
}

/** A registry whose values come from `src` at scrape time; `text()` renders the exposition format. */
export function createMetrics(src: MetricSources): { text: () => Promise<string> } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'portico_process_' });
  const counter = (name: string, help: string, pick: (c: ReturnType<MetricSources['counters']>) => number): void => {
    new Counter({
      name, help, registers: [registry],
      collect() { this.reset(); this.inc(pick(src.counters())); },
    });
  };
  counter('portico_reloads_total', 'nginx reloads after a configuration change', (c) => c.reloads);
  counter('portico_dynamic_updates_total', 'changes applied through Lua without a reload', (c) => c.dynamicUpdates);
  counter('portico_failed_updates_total', 'syncs that could not be applied (the last good configuration kept serving)', (c) => c.failedUpdates);
  counter('portico_syncs_total', 'syncs run by the sync loop', (c) => c.syncs);
  const gauge = (name: string, help: string, pick: (s: ReturnType<MetricSources['sizes']>) => number): void => {
    new Gauge({ name, help, registers: [registry], collect() { this.set(pick(src.sizes())); } });
  };
  gauge('portico_servers', 'virtual hosts in the running configuration', (s) => s.servers);
  gauge('portico_upstreams', 'service ports balanced by Lua', (s) => s.upstreams);
  gauge('portico_endpoints', 'endpoints across all upstreams', (s) => s.endpoints);
  return { text: () => registry.metrics() };
}
