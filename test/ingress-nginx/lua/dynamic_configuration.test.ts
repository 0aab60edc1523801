// ingress-nginx e2e lua/dynamic_configuration.go: backends are balanced in Lua, so endpoint changes (scaling up, down,
// to zero) and a load-balance annotation change are applied without a reload (the reload counter
// nginx_ingress_controller_success stays) and answered at once: 200 with endpoints, 503 without.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { slice, service } from '../../support/objects.js';
import { scrape, total } from '../../support/prometheus.js';
import { until } from '../../support/portico.js';
import { ann, ing, startEcho, startSuite, type Suite } from '../harness.js';
import type { Backend } from '../../support/backends.js';

void describe('lua/dynamic_configuration.go', () => {
  let s: Suite;
  let second: Backend;
  const host = 'foo.com';
  const reloads = async (): Promise<number> => total(await scrape(s.portico), 'nginx_ingress_controller_success');
  /** Service `name` with one EndpointSlice per backend port (an empty list: a Service scaled to zero). */
  const scaled = (name: string, ports: readonly number[]) => [
    service(name),
    ...(ports.length === 0 ? [slice(name, 1, [], { name: `${name}-0` })] : ports.map((p, i) => slice(name, p, ['127.0.0.1'], { name: `${name}-${i}` }))),
  ];
  const status = async (h: string): Promise<number> => (await s.get(h, '/')).status;
  /** Which backends answered `count` requests for `h`. */
  const answered = async (h: string, count: number): Promise<Set<string>> => {
    const seen = new Set<string>();
    for (let i = 0; i < count; i++) seen.add(String((await s.get(h, '/')).headers['x-backend']));
    return seen;
  };

  before(async () => {
    second = await startEcho('second');
    s = await startSuite();
    await s.put('ingresses.json', [ing(host, host, { annotations: ann({ 'load-balance': 'ewma' }) })], async () => (await status(host)) === 200);
  });
  after(async () => {
    await s.stop();
    await second.close();
  });

  test('configures balancer Lua middleware correctly', async () => {
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-backend'], 'echo');
    const backends = await (await fetch(`http://127.0.0.1:${s.portico.healthz}/debug/backends`)).text();
    assert.match(backends, /ewma/);
  });

  test('handles endpoints only changes', async () => {
    const before = await reloads();
    await s.dir.write('backend.json', scaled('echo', [s.echo.port, second.port]));
    await until('both endpoints answer', async () => (await answered(host, 10)).has('second'), 20_000);
    assert.equal(await status(host), 200);
    assert.equal(await reloads(), before);
  });

  test('handles endpoints only changes (down scaling of replicas)', async () => {
    await s.dir.write('backend.json', scaled('echo', [s.echo.port, second.port]));
    await until('both endpoints answer', async () => (await answered(host, 10)).has('second'), 20_000);
    const before = await reloads();
    await s.dir.write('backend.json', scaled('echo', []));
    await until('no endpoint: 503', async () => (await status(host)) === 503, 20_000);
    assert.equal(await reloads(), before);
    await s.dir.write('backend.json', scaled('echo', [s.echo.port]));
    await until('served again', async () => (await status(host)) === 200, 20_000);
  });

  test('handles endpoints only changes consistently (down scaling of replicas vs. empty service)', async () => {
    const h = 'scaling.foo.com';
    await s.put('scaling.json', [...scaled('scalingecho', []), ing(h, h, { service: 'scalingecho', annotations: ann({ 'load-balance': 'ewma' }) })], async () => (await status(h)) === 503);
    await s.put(
      'scaling.json',
      [...scaled('scalingecho', [s.echo.port, second.port]), ing(h, h, { service: 'scalingecho', annotations: ann({ 'load-balance': 'ewma' }) })],
      async () => (await status(h)) === 200,
    );
    await s.put('scaling.json', [...scaled('scalingecho', []), ing(h, h, { service: 'scalingecho', annotations: ann({ 'load-balance': 'ewma' }) })], async () => (await status(h)) === 503);
    await s.put('scaling.json', [], async () => (await status(h)) === 404);
  });

  test('handles an annotation change', async () => {
    const before = await reloads();
    const debug = async (): Promise<string> => (await fetch(`http://127.0.0.1:${s.portico.healthz}/debug/backends`)).text();
    assert.match(await debug(), /ewma/);
    await s.put('ingresses.json', [ing(host, host, { annotations: ann({ 'load-balance': 'round_robin' }) })], async () => !(await debug()).includes('ewma') && (await status(host)) === 200);
    assert.equal(await reloads(), before);
  });
});
