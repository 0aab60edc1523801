// Real nginx + portico.configuration/portico.balancer: posting backends, round robin, no-reload changes, 503/400.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, type Nginx, endpointsOf, proxiedLocation, request, sleep, startBackend, startNginx, tally } from './harness.js';

void describe('lua backends (round robin)', () => {
  let nginx: Nginx;
  const pool: Backend[] = [];

  before(async () => {
    for (const id of ['a', 'b', 'c', 'd']) pool.push(await startBackend(id));
    nginx = await startNginx({
      locations:
        proxiedLocation('/', 'web', { hooks: false }) +
        proxiedLocation('/unknown', 'nobody-here-80', { hooks: false }) +
        proxiedLocation('/empty', 'empty-80', { hooks: false }) +
        proxiedLocation('/hooked/unknown', 'nobody-here-80') +
        proxiedLocation('/hooked/empty', 'empty-80'),
    });
  });

  after(async () => {
    await nginx.stop();
    for (const b of pool) await b.close();
  });

  const byId = (id: string): Backend => {
    const found = pool.find((x) => x.id === id);
    if (!found) throw new Error(`backend ${id} not started`);
    return found;
  };
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((id) => () => byId(id)) as [() => Backend, () => Backend, () => Backend, () => Backend];

  void it('answers 503 before anything is posted, and GET says nothing is configured', async () => {
    assert.equal((await request(nginx.port, '/')).status, 503);
    assert.equal((await nginx.get('/configuration/backends')).status, 404);
  });

  void it('stores a posted list and returns it on GET', async () => {
    const list = [
      { name: 'web', endpoints: endpointsOf(a(), b(), c()), loadBalance: 'round_robin', hashBy: '', affinity: null },
      { name: 'empty-80', endpoints: [] },
    ];
    const res = await nginx.post('/configuration/backends', list);
    assert.equal(res.status, 201, res.body);
    const got = await nginx.get('/configuration/backends');
    assert.equal(got.status, 200);
    assert.deepEqual(JSON.parse(got.body), list);
    assert.equal(got.headers['x-portico-version'], res.headers['x-portico-version']);
  });

  void it('spreads round robin evenly over 3 backends', async () => {
    const seen = await tally(nginx.port, 300);
    assert.deepEqual([...seen.keys()].sort(), ['a', 'b', 'c']);
    const counts = [...seen.values()];
    // each of the 2 workers is exact round robin: totals differ by at most one per worker
    assert.ok(Math.max(...counts) - Math.min(...counts) <= 2, JSON.stringify([...seen]));
  });

  void it('answers 503 for an unknown backend and for one without endpoints', async () => {
    // from the balancer through the 503 server (no rewrite hook), and from rewrite() where one is rendered
    for (const uri of ['/unknown', '/empty', '/hooked/unknown', '/hooked/empty']) {
      assert.equal((await request(nginx.port, uri)).status, 503, uri);
    }
    assert.doesNotMatch(nginx.errorLog(), /\[error\]/);
  });

  void it('applies a changed list on the very next request, without a reload', async () => {
    const workers = nginx.workerPids();
    assert.equal(workers.length, 2);
    const res = await nginx.post('/configuration/backends', [{ name: 'web', endpoints: endpointsOf(d()) }]);
    assert.equal(res.status, 201, res.body);
    const seen = await tally(nginx.port, 20);
    assert.deepEqual([...seen], [['d', 20]]);
    await nginx.post('/configuration/backends', [{ name: 'web', endpoints: endpointsOf(b(), c()) }]);
    const next = await tally(nginx.port, 20);
    assert.deepEqual([...next.keys()].sort(), ['b', 'c']);
    await nginx.post('/configuration/backends', [{ name: 'web', endpoints: [] }]);
    assert.equal((await request(nginx.port, '/')).status, 503);
    assert.deepEqual(nginx.workerPids(), workers, 'no worker was replaced');
  });

  void it('rejects malformed bodies with 400 and a message, changing nothing', async () => {
    const good = [{ name: 'web', endpoints: endpointsOf(a()) }];
    assert.equal((await nginx.post('/configuration/backends', good)).status, 201);
    const before = await nginx.get('/configuration/backends');
    for (const [body, message] of [
      ['', /empty body/],
      ['{not json', /invalid JSON/],
      ['{"name": "web"}', /array/],
    ] as const) {
      const res = await nginx.post('/configuration/backends', body);
      assert.equal(res.status, 400, `${body} -> ${res.status} ${res.body}`);
      assert.match(res.body, message);
    }
    const afterwards = await nginx.get('/configuration/backends');
    assert.equal(afterwards.body, before.body);
    assert.equal(afterwards.headers['x-portico-version'], before.headers['x-portico-version']);
    assert.deepEqual([...(await tally(nginx.port, 6))], [['a', 6]]);
  });

  void it('drops one bad backend alone, says which (201), and keeps serving the others', async () => {
    const good = JSON.stringify({ name: 'web', endpoints: endpointsOf(a()) });
    const bad: [string, RegExp][] = [
      ['{"name": "Web_1", "endpoints": []}', /rejected Web_1: backends\[1\]\.name/],
      ['{"name": "x", "endpoints": [{"address": "10.0.0.1", "port": 0}]}', /rejected x: backends\[1\] \(x\)\.endpoints\[0\]\.port: must be an integer 1-65535$/m],
      ['{"name": "x", "endpoints": [{"address": "10.0.0.1", "port": 80}, "y"]}', /rejected x: backends\[1\] \(x\)\.endpoints\[1\]: must be an object$/m],
      ['{"name": "x", "endpoints": [{"address": "[::1]", "port": 80}]}', /rejected x: backends\[1\] \(x\)\.endpoints\[0\]\.address: must be an IPv4 or IPv6 address \(IPv6 without brackets\)$/m],
      ['{"name": "x", "endpoints": [{"address": "10.0.0.01", "port": 80}]}', /rejected x: backends\[1\] \(x\)\.endpoints\[0\]\.address: must be/],
      ['{"name": "x", "endpoints": [{"address": "example.com", "port": 80}]}', /rejected x: .*address/],
      ['{"name": "x", "endpoints": [], "loadBalance": "random"}', /rejected x: backends\[1\] \(x\)\.loadBalance: must be "round_robin" or "ewma"$/m],
      ['{"name": "x", "endpoints": [], "hashBy": "request_uri"}', /rejected x: .*hashBy/],
      ['{"name": "x", "endpoints": [], "affinity": {"mode": "sticky", "name": "C"}}', /rejected x: backends\[1\] \(x\)\.affinity\.mode: must be/],
      ['{"name": "x", "endpoints": [], "affinity": {"mode": "balanced", "name": "a b"}}', /rejected x: .*affinity\.name/],
      ['{"name": "web", "endpoints": []}', /rejected web: backends\[1\]\.name: duplicate backend web$/m],
    ];
    for (const [item, message] of bad) {
      const res = await nginx.post('/configuration/backends', `[${good}, ${item}]`);
      assert.equal(res.status, 201, `${item} -> ${res.status} ${res.body}`);
      assert.match(res.body, /^1 backends stored/);
      assert.match(res.body, message);
      const stored = JSON.parse((await nginx.get('/configuration/backends')).body) as { name: string }[];
      assert.deepEqual(
        stored.map((b) => b.name),
        ['web'],
        `${item}: only the good backend is stored`,
      );
      assert.deepEqual([...(await tally(nginx.port, 4))], [['a', 4]]);
    }
  });

  void it('balances to IPv6 endpoints given without brackets', async () => {
    const v6 = await startBackend('v6', 0, '::1');
    try {
      const res = await nginx.post('/configuration/backends', [{ name: 'web', endpoints: endpointsOf(v6) }]);
      assert.equal(res.status, 201, res.body);
      assert.deepEqual([...(await tally(nginx.port, 4))], [['v6', 4]]);
    } finally {
      await v6.close();
    }
  });

  void it('retries endpoints not yet tried when some refuse connections', async () => {
    const gone = [await startBackend('gone1'), await startBackend('gone2')];
    const endpoints = endpointsOf(...gone, a());
    for (const g of gone) await g.close();
    assert.equal((await nginx.post('/configuration/backends', [{ name: 'web', endpoints }])).status, 201);
    assert.deepEqual([...(await tally(nginx.port, 10))], [['a', 10]]);
  });

  void it('after a reload (SIGHUP) old and new workers still see every change on their next request', async () => {
    assert.equal((await nginx.post('/configuration/backends', [{ name: 'web', endpoints: endpointsOf(a()) }])).status, 201);
    const before = nginx.workerPids();
    process.kill(nginx.pid, 'SIGHUP');
    for (let i = 0; i < 200 && nginx.workerPids().some((p) => before.includes(p)); i += 1) await sleep(25);
    assert.equal(nginx.workerPids().filter((p) => before.includes(p)).length, 0, 'new workers');
    assert.deepEqual([...(await tally(nginx.port, 6))], [['a', 6]], 'the backends survived the reload');
    for (const [id, next] of [
      ['b', b()],
      ['c', c()],
      ['a', a()],
    ] as const) {
      assert.equal((await nginx.post('/configuration/backends', [{ name: 'web', endpoints: endpointsOf(next) }])).status, 201);
      assert.deepEqual([...(await tally(nginx.port, 6))], [[id, 6]]);
    }
  });

  void it('logs no Lua errors', () => {
    assert.doesNotMatch(nginx.errorLog(), /\[(error|crit|alert|emerg)\][^\n]*(runtime error|lua entry thread|portico: )/);
  });
});
