// The Grafana dashboard (deploy/grafana/portico.json) asks only for metrics /metrics exports, under those names.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import parse from 'parse-prometheus-text-format';
import { SyncHistory } from '../../src/metrics/history.js';
import { createMetrics } from '../../src/metrics/registry.js';
import { REPO } from '../support/portico.js';

/** One label set's dump lines, as lua/portico/metrics.lua writes them (slot 1 requests, 2 duration sum, ...). */
const DUMP = ['1', '2', '3', '15', '16', '17', '29', '30', '38', '39'].map((slot) => `ns|ing|svc|h.test|ns_svc_80||200|GET\t${slot}\t1`).join('\n');

void test('every metric the Grafana dashboard queries is exported, with the labels it groups by', async () => {
  const history = new SyncHistory();
  history.applied('reload');
  history.finished({ startedAt: Date.now(), ms: 12, causes: new Map([['startup', 1]]) });
  const metrics = createMetrics(
    {
      counters: () => ({ reloads: 1, dynamicUpdates: 0, failedUpdates: 0, syncs: 1 }),
      sizes: () => ({ servers: 1, upstreams: 1, endpoints: 1 }),
      history,
      configHash: () => 'abcdef0123456789',
      certificates: () => [{ host: 'h.test', secret: 's', namespace: 'ns', notAfter: 2e9 }],
      leading: () => true,
      quarantined: () => 0,
      nginxRestarts: () => 0,
      requests: () => Promise.resolve(DUMP),
    },
    { controller_class: 'c', controller_namespace: 'n', controller_pod: 'p' },
  );
  const text = await metrics.text();
  const families = new Map(parse(text).map((f) => [f.name, f]));
  const board = await readFile(join(REPO, 'deploy/grafana/portico.json'), 'utf8');
  const exprs = [...board.matchAll(/"(?:expr|query)": "((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1] ?? ''}"`) as string);
  assert.ok(exprs.length >= 14);
  const used = new Set(exprs.flatMap((e) => [...e.matchAll(/\b(nginx_ingress_controller_[a-z_]+|portico_[a-z_]+)/g)].map((m) => m[1] ?? '')));
  for (const name of used) {
    const family = name.replace(/_(bucket|sum|count)$/, '');
    assert.ok(families.has(family) || families.has(name), `the dashboard queries ${name}, which /metrics does not export`);
  }
  for (const e of exprs) {
    for (const m of e.matchAll(/by \(([^)]*)\)/g)) {
      for (const label of (m[1] ?? '')
        .split(',')
        .map((l) => l.trim())
        .filter((l) => l !== 'le')) {
        assert.ok(text.includes(`${label}="`), `the dashboard groups by ${label}, which no series carries (${e})`);
      }
    }
  }
});
