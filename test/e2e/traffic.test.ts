// End to end with real nginx: rate limits and their whitelist, CORS, canary by header / cookie / weight (a weight
// change without a reload), and mirroring.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../support/backends.js';
import { get, metric, startPortico, syncCount, until, workerPids, type Reply, type Running } from '../support/portico.js';
import { ingress } from '../support/objects.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';

const P = 'nginx.ingress.kubernetes.io';
const a = (o: Record<string, string>): Record<string, string> => Object.fromEntries(Object.entries(o).map(([k, v]) => [`${P}/${k}`, v]));
const ing = (name: string, host: string, annotations: Record<string, string>, service = 'main', path = '/') =>
  ingress(name, { host, className: 'portico', annotations: a(annotations), paths: [{ path, type: 'Prefix', service }] });

/** `n` requests, `width` at a time; returns the replies in order. */
async function many(n: number, width: number, send: (i: number) => Promise<Reply>): Promise<Reply[]> {
  const out: Reply[] = new Array<Reply>(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await send(i);
      }
    }),
  );
  return out;
}

void describe('traffic policy (real nginx)', () => {
  let dir: ManifestDir;
  let portico: Running;
  let main: Backend;
  let canary: Backend;
  let mirror: Backend;
  const canaryIngress = (weight: number) =>
    ing('app-canary', 'app.test', { canary: 'true', 'canary-by-header': 'X-Canary', 'canary-by-cookie': 'use_canary', 'canary-weight': String(weight) }, 'canary');

  before(async () => {
    dir = await manifestFolder();
    [main, canary, mirror] = await Promise.all([startBackend('main'), startBackend('canary'), startBackend('mirror')]);
    await dir.write('backends.json', [...backendObjects('main', main.port), ...backendObjects('canary', canary.port), configMap('portico', { 'limit-req-status-code': '429' })]);
    await dir.write('ingresses.json', [
      ing('limited', 'limited.test', { 'limit-rps': '2', 'limit-burst-multiplier': '1', 'limit-whitelist': '10.0.0.0/8' }),
      ing('allowed', 'allowed.test', { 'limit-rps': '2', 'limit-burst-multiplier': '1', 'limit-allowlist': '10.0.0.0/8, 127.0.0.1' }),
      ing('cors', 'cors.test', { 'enable-cors': 'true', 'cors-allow-origin': 'https://app.example.com, https://*.good.test', 'cors-expose-headers': 'X-Total' }),
      ing('mirrored', 'mirror.test', { 'mirror-target': `http://127.0.0.1:${mirror.port}/copy$request_uri` }),
      ing('app', 'app.test', {}),
    ]);
    await dir.write('canary.json', [canaryIngress(30)]);
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'default/portico']);
    await until('ingresses served', async () => (await get(portico.http, 'app.test', '/', { headers: { 'x-canary': 'always' } })).headers['x-backend'] === 'canary', 20_000);
  });

  after(async () => {
    await portico.stop();
    await Promise.all([main.close(), canary.close(), mirror.close()]);
    await dir.remove();
  });

  void it('limit-rps: above rate + burst the configured code (429); the whitelist lets 127.0.0.1 through', async () => {
    const started = Date.now();
    const limited = await many(20, 1, () => get(portico.http, 'limited.test', '/'));
    const seconds = (Date.now() - started) / 1000;
    const ok = limited.filter((r) => r.status === 200).length;
    const refused = limited.filter((r) => r.status === 429).length;
    // 1 + burst (2) at once, then 2 per second: tolerance of one more for a tick boundary.
    const most = 3 + Math.ceil(2 * seconds) + 1;
    process.stdout.write(`limit-rps 2 burst 2: ${ok} of 20 passed in ${seconds.toFixed(2)} s (allowed 3 to ${most}), ${refused} got 429\n`);
    assert.ok(ok >= 3 && ok <= most, `${ok} passed`);
    assert.equal(ok + refused, 20);
    const allowed = await many(20, 1, () => get(portico.http, 'allowed.test', '/'));
    assert.deepEqual(
      allowed.map((r) => r.status),
      new Array<number>(20).fill(200),
    );
  });

  void it('CORS: preflight answered 204 without the backend; origin echoed only when it matches', async () => {
    const before = main.seen.length;
    const pre = await get(portico.http, 'cors.test', '/api', { method: 'OPTIONS', headers: { origin: 'https://x.good.test', 'access-control-request-method': 'PUT' } });
    assert.equal(pre.status, 204);
    assert.equal(pre.headers['access-control-allow-origin'], 'https://x.good.test');
    assert.equal(pre.headers['access-control-allow-methods'], 'GET, PUT, POST, DELETE, PATCH, OPTIONS');
    assert.equal(pre.headers['access-control-allow-headers'], 'DNT, Keep-Alive, User-Agent, X-Requested-With, If-Modified-Since, Cache-Control, Content-Type, Range, Authorization');
    assert.equal(pre.headers['access-control-allow-credentials'], 'true');
    assert.equal(pre.headers['access-control-max-age'], '1728000');
    assert.equal(main.seen.length, before, 'the preflight did not reach the backend');
    const actual = await get(portico.http, 'cors.test', '/api', { headers: { origin: 'https://app.example.com' } });
    assert.deepEqual(
      [actual.status, actual.headers['access-control-allow-origin'], actual.headers['access-control-allow-credentials'], actual.headers['access-control-expose-headers']],
      [200, 'https://app.example.com', 'true', 'X-Total'],
    );
    // `*.good.test` is exactly one label, as in ingress-nginx: two labels (a.b.good.test) are not the operator's list.
    for (const origin of ['https://evil.test', 'https://good.test.evil.test', 'http://x.good.test', 'https://app.example.com.evil.test', 'https://a.b.good.test', 'https://.good.test']) {
      const r = await get(portico.http, 'cors.test', '/api', { headers: { origin } });
      assert.deepEqual([r.status, r.headers['access-control-allow-origin'], r.headers['access-control-allow-credentials']], [200, undefined, undefined], origin);
      const p = await get(portico.http, 'cors.test', '/api', { method: 'OPTIONS', headers: { origin } });
      assert.equal(p.headers['x-backend'], 'main', `a preflight from ${origin} is not answered by Portico`);
      assert.equal(p.headers['access-control-allow-origin'], undefined);
    }
  });

  void it('canary by header, then cookie, then weight', async () => {
    const to = async (headers: Record<string, string>) => String((await get(portico.http, 'app.test', '/', { headers })).headers['x-backend']);
    assert.equal(await to({ 'x-canary': 'always' }), 'canary');
    assert.equal(await to({ 'x-canary': 'always', cookie: 'use_canary=never' }), 'canary');
    for (let i = 0; i < 20; i++) assert.equal(await to({ 'x-canary': 'never', cookie: 'use_canary=always' }), 'main');
    for (let i = 0; i < 20; i++) assert.equal(await to({ cookie: 'use_canary=always' }), 'canary');
    for (let i = 0; i < 20; i++) assert.equal(await to({ cookie: 'use_canary=never' }), 'main');
    // Another Ingress with the same Service: the canary belongs to app.test's path only.
    for (let i = 0; i < 20; i++) assert.equal((await get(portico.http, 'cors.test', '/', { headers: { 'x-canary': 'always' } })).headers['x-backend'], 'main');
  });

  async function share(): Promise<number> {
    const replies = await many(1000, 8, () => get(portico.http, 'app.test', '/'));
    return replies.filter((r) => r.headers['x-backend'] === 'canary').length / 10;
  }

  void it('canary-weight splits 1,000 requests within ±5 points, and a weight change needs no reload', async () => {
    const started = Date.now();
    const at30 = await share();
    process.stdout.write(`canary-weight 30: ${at30}% of 1000 requests to the canary (${Date.now() - started} ms)\n`);
    assert.ok(Math.abs(at30 - 30) <= 5, `${at30}%`);
    const pids = await workerPids(portico);
    const reloads = await metric(portico, 'portico_reloads_total');
    const dynamic = syncCount(portico.output, 'dynamic');
    await dir.write('canary.json', [canaryIngress(80)]);
    await until('the dynamic sync of the new weight', () => syncCount(portico.output, 'dynamic') > dynamic, 10_000);
    const at80 = await share();
    process.stdout.write(`canary-weight 80: ${at80}% of 1000 requests to the canary\n`);
    assert.ok(Math.abs(at80 - 80) <= 5, `${at80}%`);
    assert.deepEqual(await workerPids(portico), pids, 'same nginx workers');
    assert.equal(await metric(portico, 'portico_reloads_total'), reloads, 'no reload');
  });

  void it('mirror-target: each request (with its body) also reaches the mirror backend', async () => {
    const r = await get(portico.http, 'mirror.test', '/hello?x=1', { method: 'POST', body: 'payload' });
    assert.equal(r.headers['x-backend'], 'main');
    await until('the mirrored request', () => mirror.seen.length > 0, 5_000);
    const m = mirror.seen[0]!;
    assert.deepEqual([m.method, m.url, m.body, m.headers.host], ['POST', '/copy/hello?x=1', 'payload', `127.0.0.1:${mirror.port}`]);
  });
});
