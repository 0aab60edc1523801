// ingress-nginx e2e settings/keep-alive.go: client keep-alive (keep-alive, keep-alive-requests) and backend keep-alive
// (upstream-keepalive-connections, -timeout, -time, -requests), seen on the sockets of a client and of the backend.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import type { Socket } from 'node:net';
import { until } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

const HOST = 'keep-alive';

void describe('settings/keep-alive.go', () => {
  let s: Suite;
  /** The backend's view: each connection nginx opened, how many requests it carried and whether it is closed. */
  const conns = new Map<Socket, { requests: number; closed: boolean }>();
  /** One request on `agent`'s keep-alive connection; resolves with the status and the Connection header. */
  const viaAgent = (agent: Agent): Promise<{ status: number; connection: string | undefined }> =>
    new Promise((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port: s.portico.http, path: '/', headers: { host: HOST }, agent, timeout: 10_000 }, (res) => {
        res.resume();
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, connection: res.headers['connection'] });
        });
      });
      req.on('timeout', () => req.destroy(new Error('timeout')));
      req.on('error', reject);
      req.end();
    });
  /** Sends `n` requests one after another (each on a new client connection) and returns the backend's connections they used. */
  const sequential = async (n: number) => {
    conns.clear();
    for (let i = 0; i < n; i++) assert.equal((await s.get(HOST, '/')).status, 200);
    return [...conns.values()];
  };

  before(async () => {
    s = await startSuite();
    // Node closes idle connections after 5 s by default; these tests want nginx to be the one that closes.
    s.echo.server.keepAliveTimeout = 120_000;
    s.echo.server.on('connection', (sock: Socket) => {
      const c = { requests: 0, closed: false };
      conns.set(sock, c);
      sock.on('close', () => {
        c.closed = true;
      });
    });
    s.echo.server.on('request', (req: { socket: Socket }) => {
      const c = conns.get(req.socket);
      if (c) c.requests++;
    });
    await s.put('ingress.json', [ing(HOST, HOST)], async () => (await s.get(HOST, '/')).status === 200);
  });
  after(() => s.stop());

  test('should set keepalive_timeout', async () => {
    // 140 s cannot be waited for: 1 s shows that the key sets how long an idle client connection stays open.
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    let closed = false;
    await s.config({ 'keep-alive': '1' });
    await until(
      'nginx closes an idle client connection',
      async () => {
        closed = false;
        const r = await viaAgent(agent);
        assert.equal(r.status, 200);
        const sock = Object.values(agent.freeSockets).flat()[0];
        sock?.once('close', () => {
          closed = true;
        });
        return until('closed', () => closed, 4_000)
          .then(() => true)
          .catch(() => false);
      },
      20_000,
      0,
    );
    agent.destroy();
    assert.ok(closed);
  });

  test('should set keepalive_requests', async () => {
    await s.config({ 'keep-alive-requests': '200' });
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    // After the change lands, the 200th request of a fresh connection is answered with Connection: close.
    await until(
      'the 200th request closes',
      async () => {
        agent.destroy();
        const a = new Agent({ keepAlive: true, maxSockets: 1 });
        const answers = [];
        for (let i = 0; i < 200; i++) answers.push(await viaAgent(a));
        a.destroy();
        return answers.slice(0, 199).every((x) => x.connection === 'keep-alive') && answers[199]?.connection === 'close';
      },
      30_000,
      0,
    );
  });

  test('should set keepalive connection to upstream server', async () => {
    await s.config({ 'upstream-keepalive-connections': '0' }, async () => (await sequential(4)).length === 4);
    assert.equal((await sequential(10)).length, 10);
    await s.config({ 'upstream-keepalive-connections': '128' }, async () => (await sequential(10)).length < 10);
    // At most one idle connection per nginx worker is needed for requests sent one at a time.
    assert.ok((await sequential(20)).length <= 4);
  });

  test('should set keep alive connection timeout to upstream server', async () => {
    // 120 s cannot be waited for: 1 s shows that nginx closes an idle backend connection after the timeout.
    await s.config({ 'upstream-keepalive-timeout': '1' });
    await until(
      'nginx closes idle backend connections',
      async () => {
        const used = await sequential(3);
        return until('closed', () => used.every((c) => c.closed), 5_000)
          .then(() => true)
          .catch(() => false);
      },
      30_000,
      0,
    );
  });

  test('should set keepalive time to upstream server', async () => {
    // keepalive_time: a backend connection is closed after this long even while busy (75 s upstream; 1 s here).
    await s.config({ 'upstream-keepalive-time': '1s' });
    await until(
      'a busy backend connection closed after 1 s',
      async () => {
        conns.clear();
        for (let i = 0; i < 40; i++) {
          assert.equal((await s.get(HOST, '/')).status, 200);
          await new Promise((r) => setTimeout(r, 100));
          if ([...conns.values()].some((c) => c.closed && c.requests > 1)) return true;
        }
        return false;
      },
      30_000,
      0,
    );
  });

  test('should set the request count to upstream server through one keep alive connection', async () => {
    await s.config({ 'upstream-keepalive-requests': '10' });
    await until(
      'backend connections carry 10 requests at most',
      async () => {
        const used = await sequential(60);
        return Math.max(...used.map((c) => c.requests)) === 10;
      },
      30_000,
      0,
    );
    assert.ok((await sequential(60)).every((c) => c.requests <= 10));
  });
});
