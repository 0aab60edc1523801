// Real nginx + portico.store: the rules every kind of pushed payload shares. A delta names the payload it starts from
// (?from=OLD&id=NEW) and is refused (409, nothing changed) unless nginx holds OLD; a whole payload replaces the deltas
// before it; deltas past the kind's bound are refused; kinds without deltas refuse one (400); every stored or shown
// payload carries its version.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, type Nginx, endpointsOf, startBackend, startNginx, tally } from './harness.js';

const target = { backend: '', canary: '', redirect: 0, denied: false, rewrite: false, profile: '', metrics: '' };
const table = { hosts: {}, default: { hsts: false, targets: [target], exact: {}, prefix: { '/': 0 } } };

void describe('lua store', () => {
  let nginx: Nginx;
  let a: Backend;
  let b: Backend;
  const web = (x: Backend): unknown => ({ set: [{ name: 'web', endpoints: endpointsOf(x) }], remove: [] });
  const version = async (path: string): Promise<number> => Number((await nginx.get(path)).headers['x-portico-version']);

  before(async () => {
    a = await startBackend('a');
    b = await startBackend('b');
    nginx = await startNginx();
  });

  after(async () => {
    await nginx.stop();
    await a.close();
    await b.close();
  });

  void it('takes a delta only from the payload nginx holds; a whole payload replaces the deltas before it', async () => {
    assert.equal((await nginx.post('/configuration/backends?from=one&id=two', web(b))).status, 409, 'no whole list yet');
    const whole = await nginx.post('/configuration/backends?id=one', [{ name: 'web', endpoints: endpointsOf(a) }]);
    assert.equal(whole.status, 201, whole.body);
    const v = Number(whole.headers['x-portico-version']);
    const wrong = await nginx.post('/configuration/backends?from=other&id=two', web(b));
    assert.equal(wrong.status, 409, wrong.body);
    assert.deepEqual([...(await tally(nginx.port, 4))], [['a', 4]], 'nothing changed');
    assert.equal(await version('/configuration/backends'), v);
    const right = await nginx.post('/configuration/backends?from=one&id=two', web(b));
    assert.equal(right.status, 201, right.body);
    assert.equal(Number(right.headers['x-portico-version']), v + 1);
    assert.deepEqual([...(await tally(nginx.port, 4))], [['b', 4]]);
    assert.equal((await nginx.post('/configuration/backends?from=one&id=three', web(a))).status, 409, 'nginx holds two now');
    assert.equal((await nginx.post('/configuration/backends?id=four', [{ name: 'web', endpoints: endpointsOf(a) }])).status, 201);
    assert.equal((await nginx.post('/configuration/backends?from=two&id=five', web(b))).status, 409, 'the whole list replaced two');
    assert.deepEqual([...(await tally(nginx.port, 4))], [['a', 4]]);
  });

  void it('refuses a bad id, a delta without id, and a delta to a kind that takes none (400), or onto nothing (409)', async () => {
    for (const path of ['/configuration/backends?id=a%20b', '/configuration/backends?from=four']) {
      const res = await nginx.post(path, web(b));
      assert.equal(res.status, 400, `${path}: ${res.body}`);
    }
    const gateway = await nginx.post('/configuration/gateway?from=x&id=y', {});
    assert.equal(gateway.status, 400, gateway.body);
    assert.match(gateway.body, /takes no delta/);
    // certificates take deltas (docs/adr/0056), but only onto a whole set
    const certs = await nginx.post('/configuration/certificates?from=x&id=y', { set: {} });
    assert.equal(certs.status, 409, certs.body);
    assert.match(certs.body, /holds no whole certificates/);
    assert.deepEqual([...(await tally(nginx.port, 4))], [['a', 4]]);
  });

  void it('refuses a delta past the bound until the whole payload is posted again (routes: 512)', async () => {
    assert.equal((await nginx.post('/configuration/routes?id=t0', table)).status, 201);
    for (let i = 1; i <= 512; i += 1) {
      const res = await nginx.post(`/configuration/routes?from=t${i - 1}&id=t${i}`, { hosts: {} });
      assert.equal(res.status, 201, `delta ${i}: ${res.body}`);
    }
    const past = await nginx.post('/configuration/routes?from=t512&id=t513', { hosts: {} });
    assert.equal(past.status, 409, past.body);
    assert.match(past.body, /too many deltas/);
    assert.equal((await nginx.post('/configuration/routes?id=w', table)).status, 201);
    assert.equal((await nginx.post('/configuration/routes?from=w&id=w1', { hosts: {} })).status, 201);
  });

  void it('shows every kind with its version; certificates and Gateway API routes count their own', async () => {
    const g = await nginx.post('/configuration/gateway', { actions: [], locations: {} });
    assert.equal(g.status, 201, g.body);
    assert.equal(await version('/configuration/gateway'), Number(g.headers['x-portico-version']));
    const c = await nginx.post('/configuration/certificates', { certificates: {}, default: null });
    assert.equal(c.status, 201, c.body);
    assert.equal(await version('/configuration/certificates'), Number(c.headers['x-portico-version']));
    assert.equal((JSON.parse((await nginx.get('/configuration/certificates')).body) as { version: number }).version, Number(c.headers['x-portico-version']));
  });

  void it('logs no Lua errors', () => {
    assert.doesNotMatch(nginx.errorLog(), /\[(error|crit|alert|emerg)\][^\n]*(runtime error|lua entry thread)/);
  });
});
