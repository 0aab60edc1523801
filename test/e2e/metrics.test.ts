// /metrics through real nginx: exact per-request counts under ingress-nginx's names, a parsable exposition, bounded labels.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, ingressClass, service } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { samples, scrape, total } from '../support/prometheus.js';

const REQ = 'nginx_ingress_controller_requests';

describe('metrics', () => {
  let backends: Backend[] = [];
  let dir = '';
  let portico: Running;

  before(async () => {
    backends = await Promise.all(['one', 'two'].map((id) => startBackend(id)));
    dir = await manifestDir();
    await writeManifests(dir, 'all.yaml', [
      ingressClass('portico'),
      ...serviceFor('one', [backends[0]!]),
      ...serviceFor('two', [backends[1]!]),
      service('gone'),
      ingress('shop', {
        className: 'portico',
        host: 'shop.test',
        paths: [
          { path: '/', type: 'Prefix', service: 'one' },
          { path: '/down', type: 'Prefix', service: 'gone' },
        ],
      }),
      // ewma renders a log hook of its own in the location: the request must be counted there too
      ingress('learn', { className: 'portico', host: 'ewma.test', paths: [{ path: '/', type: 'Prefix', service: 'two' }], annotations: { 'nginx.ingress.kubernetes.io/load-balance': 'ewma' } }),
      ingress('any', { className: 'portico', paths: [{ path: '/any', type: 'Prefix', service: 'one' }] }),
    ]);
    portico = await startPortico(['--manifests', dir]);
  });

  after(async () => {
    assert.equal(await portico?.stop(), 0);
    await Promise.all(backends.map((b) => b.close()));
    await rm(dir, { recursive: true, force: true });
  });

  test('K requests move the counter of their Ingress, status and method by exactly K', async () => {
    const base = await scrape(portico);
    const shop200 = { ingress: 'shop', namespace: 'default', service: 'one', status: '200', method: 'GET', host: 'shop.test', canary: '' };
    const shop503 = { ...shop200, service: 'gone', status: '503' };
    const learn = { ingress: 'learn', namespace: 'default', service: 'two', status: '200', method: 'POST', host: 'ewma.test' };
    const want = { ok: 37, down: 5, post: 11 };
    for (let i = 0; i < want.ok; i++) assert.equal((await get(portico.http, 'shop.test', `/item/${i}`)).status, 200);
    for (let i = 0; i < want.down; i++) assert.equal((await get(portico.http, 'shop.test', '/down')).status, 503);
    for (let i = 0; i < want.post; i++) assert.equal((await get(portico.http, 'ewma.test', '/', { method: 'POST', body: 'x' })).status, 200);
    const moved = async (): Promise<[number, number, number]> => {
      const now = await scrape(portico);
      return [total(now, REQ, shop200) - total(base, REQ, shop200), total(now, REQ, shop503) - total(base, REQ, shop503), total(now, REQ, learn) - total(base, REQ, learn)];
    };
    await until('the counters to reach K', async () => (await moved()).every((n, i) => n >= Object.values(want)[i]!), 10_000, 200);
    // two more flush intervals: nothing is counted twice
    await new Promise((r) => setTimeout(r, 2500));
    assert.deepEqual(await moved(), [want.ok, want.down, want.post]);
    const now = await scrape(portico);
    const d = 'nginx_ingress_controller_request_duration_seconds';
    assert.equal(now.families.find((f) => f.name === d)?.type, 'HISTOGRAM');
    const buckets = samples(now, `${d}_bucket`, shop200);
    assert.deepEqual(
      buckets.map((b) => b.labels['le']),
      ['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf'],
    );
    const count = total(now, `${d}_count`, shop200);
    assert.equal(buckets.at(-1)?.value, count, 'the +Inf bucket holds every request');
    assert.ok(
      buckets.every((b, i) => i === 0 || b.value >= (buckets[i - 1]?.value ?? 0)),
      'buckets are cumulative',
    );
    for (const name of ['request_duration_seconds', 'response_duration_seconds', 'request_size', 'response_size']) {
      assert.equal(total(now, `nginx_ingress_controller_${name}_count`, shop200) - total(base, `nginx_ingress_controller_${name}_count`, shop200), want.ok, `${name} counts each request once`);
    }
  });

  test('the exposition parses as Prometheus text: controller metrics under ingress-nginx names, process metrics once', async () => {
    const m = await scrape(portico);
    const names = new Set(m.families.map((f) => f.name));
    for (const n of ['config_last_reload_successful', 'config_last_reload_successful_timestamp_seconds', 'config_hash', 'success', 'errors']) {
      assert.ok(names.has(`nginx_ingress_controller_${n}`), n);
    }
    assert.equal(total(m, 'nginx_ingress_controller_config_last_reload_successful'), 1);
    assert.ok(total(m, 'nginx_ingress_controller_config_hash') > 0);
    assert.ok(total(m, 'nginx_ingress_controller_config_last_reload_successful_timestamp_seconds') > 1.7e9);
    assert.equal(samples(m, 'nginx_ingress_controller_success')[0]?.labels['controller_class'], 'portico.dev/ingress-controller');
    for (const n of ['portico_sync_plans_total', 'portico_sync_duration_seconds', 'portico_quarantined_ingresses', 'portico_nginx_restarts_total', 'portico_dynamic_updates_total']) {
      assert.ok(names.has(n), n);
    }
    assert.ok(total(m, 'portico_sync_plans_total', { plan: 'reload' }) >= 1);
    assert.equal(total(m, 'portico_nginx_restarts_total'), 0);
    assert.ok(names.has('process_cpu_user_seconds_total') && names.has('nodejs_heap_size_total_bytes'));
    assert.deepEqual(
      [...names].filter((n) => n.includes('process_process_') || n.startsWith('portico_process_')),
      [],
    );
    assert.equal(m.families.length, names.size, 'each family once');
  });

  test('paths, query strings, Host headers and methods chosen by clients never become labels', async () => {
    const methods = ['GET', 'POST', 'PUT', 'DELETE', 'PURGE', 'FOO-BAR', 'PROPFIND'];
    const tokens: string[] = [];
    for (let i = 0; i < 120; i++) {
      const token = `z${i}q${Math.random().toString(36).slice(2, 8)}`;
      tokens.push(token);
      const method = methods[i % methods.length]!;
      const [host, path] = i % 2 === 0 ? [`${token}.example`, `/any/${token}?${token}=1`] : ['shop.test', `/${token}/${token}`];
      await get(portico.http, host, path, { method, ...(method === 'GET' ? {} : { body: 'x' }) });
    }
    await new Promise((r) => setTimeout(r, 1500));
    const series = samples(await scrape(portico), REQ);
    for (const s of series) {
      const l = s.labels;
      assert.ok(['shop.test', 'ewma.test', '_'].includes(l['host'] ?? ''), `host label ${l['host']}`);
      assert.ok(['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'CONNECT', 'TRACE', 'OTHER'].includes(l['method'] ?? ''), `method ${l['method']}`);
      assert.match(l['status'] ?? '', /^\d{3}$/);
      assert.deepEqual(Object.keys(l).sort(), ['canary', 'controller_class', 'controller_namespace', 'controller_pod', 'host', 'ingress', 'method', 'namespace', 'service', 'status']);
      for (const v of Object.values(l)) assert.ok(!tokens.some((t) => v.includes(t)), `a client value became a label: ${v}`);
    }
    // 3 Ingresses x 4 paths' services x a handful of statuses x 10 methods at most, whatever 120 clients sent
    assert.ok(series.length <= 40, `${series.length} series`);
  });
});
