// proxy-body-size on hosts of the dynamic route table (docs/adr/0063), through real nginx: a host whose paths raise or
// lower the limit is routed in Lua (no server block, no reload for a new one), and every host still gets its own
// limit, by Content-Length and for bodies of unknown length (chunked, HTTP/2 without content-length), whatever
// another namespace's Ingress allows: one namespace raising its limit (or lifting it) never raises another's.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { connect as h2connect } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { get, startPortico, syncCount, until, type Running } from '../support/portico.js';
import { ingress } from '../support/objects.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';

const P = 'nginx.ingress.kubernetes.io';

/** Status of a POST of `n` bytes, with Content-Length or chunked, and the length the backend received. */
function post(port: number, host: string, n: number, chunked: boolean, path = '/'): Promise<{ status: number; received: number; cookie: boolean }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { host, ...(chunked ? { 'transfer-encoding': 'chunked' } : { 'content-length': String(n) }) };
    const req = httpRequest({ host: '127.0.0.1', port, path, method: 'POST', headers, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        const received = res.statusCode === 200 ? (JSON.parse(body) as { body: string }).body.length : -1;
        resolve({ status: res.statusCode ?? 0, received, cookie: (res.headers['set-cookie'] ?? []).length > 0 });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: ${host}`)));
    // nginx may answer 413 and close before the whole body is sent: the answer is what counts
    req.on('error', (err) => {
      if (!err.message.includes('EPIPE') && !err.message.includes('ECONNRESET')) reject(err);
    });
    // in pieces, so a chunked body is several chunks
    const piece = 'x'.repeat(1000);
    for (let left = n; left > 0; left -= piece.length) req.write(piece.slice(0, Math.min(left, piece.length)));
    req.end();
  });
}

/** Status of an HTTP/2 POST of `n` bytes over TLS without a content-length header. */
function postH2(port: number, host: string, n: number, path = '/'): Promise<number> {
  return new Promise((resolve, reject) => {
    const session = h2connect(`https://127.0.0.1:${String(port)}`, { servername: host, rejectUnauthorized: false });
    session.on('error', reject);
    const req = session.request({ ':method': 'POST', ':path': path, ':authority': host });
    req.on('response', (h) => {
      req.resume();
      req.on('end', () => {
        session.close();
        resolve(Number(h[':status']));
      });
    });
    req.on('error', () => undefined);
    req.end(Buffer.alloc(n, 'x'));
  });
}

/** The first status line nginx sends for a POST with `Expect: 100-continue`, before any of the body. */
function firstLineWithExpect(port: number, host: string, n: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = netConnect(port, '127.0.0.1', () => {
      s.write(`POST / HTTP/1.1\r\nHost: ${host}\r\nContent-Length: ${String(n)}\r\nExpect: 100-continue\r\n\r\n`);
    });
    s.setTimeout(5000, () => s.destroy(new Error('no answer')));
    s.once('data', (d: Buffer) => {
      resolve(d.toString('latin1').split('\r\n')[0] ?? '');
      s.destroy();
    });
    s.on('error', reject);
  });
}

void describe('proxy-body-size on dynamic hosts (real nginx)', () => {
  let dir: ManifestDir;
  let portico: Running;
  let echo: Backend;
  const ing = (namespace: string, name: string, host: string, annotations: Record<string, string>, { service = 'echo', path = '/' } = {}) =>
    ingress(name, { namespace, host, className: 'portico', annotations, paths: [{ path, type: 'Prefix', service }] });

  before(async () => {
    dir = await manifestFolder();
    echo = await startBackend('echo');
    await dir.write('backends.json', [
      ...backendObjects('echo', echo.port, 'alpha'),
      ...backendObjects('echo', echo.port, 'beta'),
      ...backendObjects('sticky', echo.port, 'beta'),
      configMap('portico', { 'proxy-body-size': '2k' }),
    ]);
    await dir.write('ingresses.json', [
      // namespace alpha raises its limit, and lifts it on another host
      ing('alpha', 'big', 'big.test', { [`${P}/proxy-body-size`]: '8k' }),
      ing('alpha', 'free', 'free.test', { [`${P}/proxy-body-size`]: '0' }),
      // namespace beta: the ConfigMap's limit, a lower one, and an upstream with a rewrite step (cookie affinity)
      ing('beta', 'plain', 'plain.test', {}),
      ing('beta', 'small', 'small.test', { [`${P}/proxy-body-size`]: '1k' }),
      ing('beta', 'sticky', 'sticky.test', { [`${P}/affinity`]: 'cookie' }, { service: 'sticky' }),
      // one host, a path of each namespace: alpha's raised limit is its path's alone
      ing('alpha', 'shared-a', 'shared.test', { [`${P}/proxy-body-size`]: '8k' }, { path: '/a' }),
      ing('beta', 'shared-b', 'shared.test', {}, { path: '/b' }),
    ]);
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'default/portico']);
    await until('ingresses served', async () => (await get(portico.http, 'sticky.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico.stop();
    await echo.close();
    await dir.remove();
  });

  void it('routes the hosts in Lua: no server block, the raised limits in profiles, the router location open', async () => {
    const conf = await readFile(join(portico.workDir, 'nginx.conf'), 'utf8');
    for (const h of ['big', 'free', 'plain', 'small', 'sticky', 'shared']) assert.doesNotMatch(conf, new RegExp(`server_name "${h}\\.test"`), h);
    assert.match(conf, /location @portico_profile_[0-9a-f]+ \{\n\s+client_max_body_size 8k;/);
    assert.match(conf, /location \/ \{\n\s+rewrite_by_lua_block \{ require\("portico.router"\).route\(\) \}\n.*\n\s+client_max_body_size 0;/);
    assert.match(conf, /location @portico_bounded \{\n(.*\n)*?\s+client_max_body_size 2k;/);
  });

  void it('a raised limit (alpha, 8k): above the ConfigMap limit served, above its own 413, by length and chunked', async () => {
    assert.deepEqual(await post(portico.http, 'big.test', 6000, false), { status: 200, received: 6000, cookie: false });
    assert.deepEqual(await post(portico.http, 'big.test', 6000, true), { status: 200, received: 6000, cookie: false });
    assert.equal((await post(portico.http, 'big.test', 9000, false)).status, 413);
    assert.equal((await post(portico.http, 'big.test', 9000, true)).status, 413);
  });

  void it('no limit (alpha, 0): a large body served, by length and chunked', async () => {
    assert.deepEqual(await post(portico.http, 'free.test', 100_000, false), { status: 200, received: 100_000, cookie: false });
    assert.deepEqual(await post(portico.http, 'free.test', 100_000, true), { status: 200, received: 100_000, cookie: false });
  });

  void it("another namespace's hosts keep the ConfigMap's limit (2k) and their own lower one (1k)", async () => {
    assert.equal((await post(portico.http, 'plain.test', 1500, false)).status, 200);
    assert.equal((await post(portico.http, 'plain.test', 1500, true)).status, 200);
    assert.equal((await post(portico.http, 'plain.test', 3000, false)).status, 413);
    assert.equal((await post(portico.http, 'plain.test', 3000, true)).status, 413);
    assert.equal((await post(portico.http, 'small.test', 900, false)).status, 200);
    assert.equal((await post(portico.http, 'small.test', 1500, false)).status, 413);
    assert.equal((await post(portico.http, 'small.test', 1500, true)).status, 413);
  });

  void it("one host shared by two namespaces: alpha's raised limit holds on its path only", async () => {
    const at = (path: string, n: number, chunked: boolean) => post(portico.http, 'shared.test', n, chunked, path);
    assert.deepEqual(await at('/a', 6000, false), { status: 200, received: 6000, cookie: false });
    assert.deepEqual(await at('/a', 6000, true), { status: 200, received: 6000, cookie: false });
    assert.equal((await at('/b', 1500, true)).status, 200);
    assert.equal((await at('/b', 6000, false)).status, 413);
    assert.equal((await at('/b', 6000, true)).status, 413);
    assert.equal(await postH2(portico.https, 'shared.test', 6000, '/b'), 413);
    assert.equal(await postH2(portico.https, 'shared.test', 6000, '/a'), 200);
  });

  void it('a chunked body to an upstream with a rewrite step keeps it (the affinity cookie) and the limit', async () => {
    assert.deepEqual(await post(portico.http, 'sticky.test', 1500, true), { status: 200, received: 1500, cookie: true });
    assert.equal((await post(portico.http, 'sticky.test', 3000, true)).status, 413);
  });

  void it('HTTP/2 bodies without content-length: each host its own limit', async () => {
    assert.equal(await postH2(portico.https, 'plain.test', 1500), 200);
    assert.equal(await postH2(portico.https, 'plain.test', 3000), 413);
    assert.equal(await postH2(portico.https, 'big.test', 6000), 200);
    assert.equal(await postH2(portico.https, 'big.test', 9000), 413);
  });

  void it('413 comes without "100 Continue" first, and with nginx\'s error log line', async () => {
    assert.match(await firstLineWithExpect(portico.http, 'big.test', 9000), /^HTTP\/1\.1 413 /);
    assert.match(await firstLineWithExpect(portico.http, 'plain.test', 3000), /^HTTP\/1\.1 413 /);
    assert.match(await firstLineWithExpect(portico.http, 'big.test', 6000), /^HTTP\/1\.1 100 Continue/);
    await until('the error log line', () => portico.output.some((l) => l.includes('client intended to send too large body: 9000 bytes')), 5000);
  });

  void it('a new Ingress with proxy-body-size is a push, not a reload', async () => {
    const reloads = syncCount(portico.output, 'reload');
    const before = syncCount(portico.output, 'dynamic');
    await dir.write('later.json', [ing('beta', 'later', 'later.test', { [`${P}/proxy-body-size`]: '8k' })]);
    await until('later.test served', async () => (await get(portico.http, 'later.test', '/')).status === 200, 10_000);
    assert.equal((await post(portico.http, 'later.test', 6000, true)).status, 200);
    assert.equal((await post(portico.http, 'later.test', 9000, false)).status, 413);
    assert.ok(syncCount(portico.output, 'dynamic') > before, 'a dynamic sync');
    assert.equal(syncCount(portico.output, 'reload'), reloads, 'no reload');
  });
});
