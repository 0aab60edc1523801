// Real nginx + portico.token: /configuration/* answers 403 to anything but the whole per-start token, and to every
// request when nginx has no token at all; a refused POST changes nothing, a SIGHUP reload keeps the token.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { type Backend, type Nginx, endpointsOf, request, sleep, startBackend, startNginx } from './harness.js';

const POST = (body: unknown, headers: Record<string, string>) => ({ method: 'POST', body: JSON.stringify(body), headers });

void describe('lua configuration token', () => {
  let nginx: Nginx;
  let web: Backend;
  let evil: Backend;

  before(async () => {
    web = await startBackend('web');
    evil = await startBackend('evil');
    nginx = await startNginx();
    assert.equal((await nginx.post('/configuration/backends', [{ name: 'web', endpoints: endpointsOf(web) }])).status, 201);
  });

  after(async () => {
    await nginx.stop();
    await web.close();
    await evil.close();
  });

  void it('refuses a missing, wrong, partial, longer, differently cased or repeated token, and changes nothing', async () => {
    const attack = [{ name: 'web', endpoints: endpointsOf(evil) }];
    const t = nginx.token;
    const refused: Record<string, string>[] = [
      {},
      { 'x-portico-token': '' },
      { 'x-portico-token': 'x'.repeat(t.length) },
      { 'x-portico-token': t.slice(0, -1) },
      { 'x-portico-token': `${t}0` },
      { 'x-portico-token': t.toUpperCase() },
      { 'x-portico-token': `${t} x` },
      { 'x-token': t },
    ];
    for (const headers of refused) {
      const post = await request(nginx.statusPort, '/configuration/backends', POST(attack, headers));
      assert.equal(post.status, 403, JSON.stringify(headers));
      assert.ok(!post.body.includes(t));
      for (const path of ['/configuration/backends', '/configuration/certificates', '/configuration/nope']) {
        assert.equal((await request(nginx.statusPort, path, { headers })).status, 403, `${path} ${JSON.stringify(headers)}`);
      }
    }
    // Two X-Portico-Token headers, one of them right: refused (raw request, Node would join them).
    const dup = await rawStatus(
      nginx.statusPort,
      `POST /configuration/backends HTTP/1.1\r\nHost: x\r\nX-Portico-Token: ${t}\r\nX-Portico-Token: ${t}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]`,
    );
    assert.equal(dup, 403);
    assert.equal((await request(nginx.port, '/')).body, 'web', 'the backends are the ones Portico posted');
    const got = await nginx.get('/configuration/backends');
    assert.deepEqual(JSON.parse(got.body), [{ name: 'web', endpoints: endpointsOf(web) }]);
  });

  void it('keeps the token over a SIGHUP reload', async () => {
    const workers = nginx.workerPids();
    process.kill(nginx.pid, 'SIGHUP');
    for (let i = 0; i < 100 && nginx.workerPids().some((p) => workers.includes(p)); i++) await sleep(50);
    assert.equal((await nginx.get('/configuration/backends')).status, 200);
    assert.equal((await request(nginx.statusPort, '/configuration/backends')).status, 403);
  });
});

void describe('lua configuration token: none in the environment', () => {
  let nginx: Nginx;
  before(async () => {
    nginx = await startNginx({ token: '' });
  });
  after(async () => {
    await nginx.stop();
  });

  void it('refuses every request, with or without a header', async () => {
    for (const headers of [{}, { 'x-portico-token': '' }, { 'x-portico-token': 'anything' }] as Record<string, string>[]) {
      assert.equal((await request(nginx.statusPort, '/configuration/backends', POST([], headers))).status, 403);
      assert.equal((await request(nginx.statusPort, '/configuration/backends', { headers })).status, 403);
    }
    assert.equal((await request(nginx.statusPort, '/healthz')).status, 200, 'the health location stays open');
  });
});

void describe("lua configuration token: too short to be Portico's", () => {
  let nginx: Nginx;
  before(async () => {
    nginx = await startNginx({ token: 'short' });
  });
  after(async () => {
    await nginx.stop();
  });

  void it('refuses even the right value', async () => {
    assert.equal((await request(nginx.statusPort, '/configuration/backends', POST([], { 'x-portico-token': 'short' }))).status, 403);
  });
});

/** Sends raw bytes on a fresh connection and returns the status of the answer. */
async function rawStatus(port: number, text: string): Promise<number> {
  const { connect } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = connect(port, '127.0.0.1', () => {
      s.end(text);
    });
    let got = '';
    s.setTimeout(5000, () => {
      s.destroy(new Error('raw request timed out'));
    });
    s.on('data', (c: Buffer) => {
      got += c.toString('latin1');
    });
    s.on('error', reject);
    s.on('close', () => {
      resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(got)?.[1] ?? 0));
    });
  });
}
