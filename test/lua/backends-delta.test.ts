// Real nginx + portico.configuration/portico.balancer: POST /configuration/backends-delta changes only the backends it
// names; workers (old and new after a reload) apply it on their next request; a full list replaces the deltas.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, type Nginx, endpointsOf, proxiedLocation, request, sleep, startBackend, startNginx, tally } from './harness.js';

void describe('lua backends deltas', () => {
  let nginx: Nginx;
  const pool = new Map<string, Backend>();
  const at = (id: string): Backend => {
    const b = pool.get(id);
    if (!b) throw new Error(`backend ${id} not started`);
    return b;
  };
  const delta = (set: unknown[], remove: string[] = []): Promise<{ status: number; body: string }> => nginx.post('/configuration/backends-delta', { set, remove });
  /** The backends nginx holds (GET), as name → endpoint ids ("127.0.0.1:port" mapped back to the backend's id). */
  const held = async (): Promise<Record<string, string[]>> => {
    const res = await nginx.get('/configuration/backends');
    assert.equal(res.status, 200, res.body);
    const list = JSON.parse(res.body) as { name: string; endpoints: { port: number }[] }[];
    return Object.fromEntries(list.map((b) => [b.name, b.endpoints.map((e) => [...pool.values()].find((x) => x.port === e.port)?.id ?? String(e.port))]));
  };

  before(async () => {
    for (const id of ['a', 'b', 'c', 'd']) pool.set(id, await startBackend(id));
    nginx = await startNginx({ locations: proxiedLocation('/', 'web', { hooks: false }) + proxiedLocation('/other', 'other', { hooks: false }) });
  });

  after(async () => {
    await nginx.stop();
    for (const b of pool.values()) await b.close();
  });

  void it('answers 409 to a delta before any full list, and stores nothing', async () => {
    const res = await delta([{ name: 'web', endpoints: endpointsOf(at('a')) }]);
    assert.equal(res.status, 409, res.body);
    assert.equal((await nginx.get('/configuration/backends')).status, 404);
    assert.equal((await request(nginx.port, '/')).status, 503);
  });

  void it('changes only the backends a delta names; a removed one answers 503', async () => {
    assert.equal(
      (
        await nginx.post('/configuration/backends', [
          { name: 'web', endpoints: endpointsOf(at('a')) },
          { name: 'other', endpoints: endpointsOf(at('b')) },
        ])
      ).status,
      201,
    );
    assert.deepEqual([...(await tally(nginx.port, 6))], [['a', 6]]);
    const res = await delta([{ name: 'web', endpoints: endpointsOf(at('c'), at('d')) }]);
    assert.equal(res.status, 201, res.body);
    assert.match(res.body, /1 backends set, 0 removed/);
    assert.deepEqual([...(await tally(nginx.port, 20))].map(([id]) => id).sort(), ['c', 'd']);
    assert.deepEqual([...(await tally(nginx.port, 6, '/other'))], [['b', 6]], 'the other backend as it was');
    assert.deepEqual(await held(), { web: ['c', 'd'], other: ['b'] });
    assert.equal((await delta([], ['other'])).status, 201);
    assert.equal((await request(nginx.port, '/other')).status, 503);
    assert.deepEqual(await held(), { web: ['c', 'd'] });
    // a backend added by a delta comes after the others
    assert.equal((await delta([{ name: 'other', endpoints: endpointsOf(at('a')) }])).status, 201);
    assert.deepEqual(await held(), { web: ['c', 'd'], other: ['a'] });
    assert.deepEqual([...(await tally(nginx.port, 4, '/other'))], [['a', 4]]);
  });

  void it('drops an invalid backend of a delta (as a full list does) and refuses a malformed delta whole', async () => {
    const bad = await delta([
      { name: 'other', endpoints: [{ address: 'not-an-ip', port: 80 }] },
      { name: 'web', endpoints: endpointsOf(at('b')) },
    ]);
    assert.equal(bad.status, 201, bad.body);
    assert.match(bad.body, /rejected other: /);
    assert.equal((await request(nginx.port, '/other')).status, 503, 'the invalid backend is gone, not left as it was');
    assert.deepEqual([...(await tally(nginx.port, 4))], [['b', 4]]);
    for (const body of [[], { set: {} }, { set: [], remove: [7] }]) {
      const res = await nginx.post('/configuration/backends-delta', body);
      assert.equal(res.status, 400, `${JSON.stringify(body)}: ${res.body}`);
    }
    assert.deepEqual(await held(), { web: ['b'] });
    assert.equal((await delta([{ name: 'none', endpoints: [] }])).status, 201);
    const raw = JSON.parse((await nginx.get('/configuration/backends')).body) as { name: string; endpoints: unknown }[];
    assert.deepEqual(raw.find((x) => x.name === 'none')?.endpoints, [], 'an empty endpoint list stays an array on GET');
  });

  void it('answers 403 to a delta without the token, or with a wrong one, and changes nothing', async () => {
    const before = await held();
    const body = JSON.stringify({ set: [{ name: 'web', endpoints: endpointsOf(at('a')) }], remove: [] });
    for (const headers of [{}, { 'x-portico-token': 'wrong' }] as Record<string, string>[]) {
      const res = await request(nginx.statusPort, '/configuration/backends-delta', { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
      assert.equal(res.status, 403, JSON.stringify(headers));
    }
    assert.deepEqual(await held(), before);
  });

  void it('a full list replaces every delta before it', async () => {
    assert.equal((await nginx.post('/configuration/backends', [{ name: 'web', endpoints: endpointsOf(at('c')) }])).status, 201);
    assert.deepEqual(await held(), { web: ['c'] });
    assert.equal((await request(nginx.port, '/other')).status, 503);
    assert.equal((await delta([{ name: 'other', endpoints: endpointsOf(at('d')) }])).status, 201);
    assert.deepEqual([...(await tally(nginx.port, 4))], [['c', 4]]);
    assert.deepEqual([...(await tally(nginx.port, 4, '/other'))], [['d', 4]]);
  });

  void it('after a reload (SIGHUP) new workers start from the full list and its deltas, and see the next ones', async () => {
    assert.equal((await nginx.post('/configuration/backends', [{ name: 'web', endpoints: endpointsOf(at('a')) }])).status, 201);
    assert.equal((await delta([{ name: 'web', endpoints: endpointsOf(at('b')) }])).status, 201);
    const before = nginx.workerPids();
    process.kill(nginx.pid, 'SIGHUP');
    for (let i = 0; i < 200 && nginx.workerPids().some((p) => before.includes(p)); i += 1) await sleep(25);
    assert.equal(nginx.workerPids().filter((p) => before.includes(p)).length, 0, 'new workers');
    assert.deepEqual([...(await tally(nginx.port, 6))], [['b', 6]], 'the delta survived the reload');
    for (const id of ['c', 'd', 'a']) {
      assert.equal((await delta([{ name: 'web', endpoints: endpointsOf(at(id)) }])).status, 201);
      assert.deepEqual([...(await tally(nginx.port, 6))], [[id, 6]]);
    }
  });

  void it('logs no Lua errors', () => {
    assert.doesNotMatch(nginx.errorLog(), /\[(error|crit|alert|emerg)\][^\n]*(runtime error|lua entry thread|portico: )/);
  });
});
