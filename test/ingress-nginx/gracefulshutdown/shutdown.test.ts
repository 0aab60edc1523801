// ingress-nginx e2e gracefulshutdown/shutdown.go: with worker-shutdown-timeout 600s, a controller without pending
// connections quits at once (exit 0 well inside the upstream's 60 s), and one with a request in flight quits only
// after that request got its answer. One Portico per test: each test stops its controller. Upstream waits 60 and
// 150 s; the behaviour (answer first, then exit) is the same with a shorter request.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const host = 'shutdown';

async function suite(annotations?: Record<string, string>): Promise<Suite> {
  const s = await startSuite({ config: { 'worker-shutdown-timeout': '600s' } });
  await s.put('ingresses.json', [ing('shutdown', host, annotations ? { annotations } : {})], async () => (await s.get(host, '/')).status === 200);
  return s;
}

/** A request of `seconds` in flight when the controller is stopped: its status, and whether it came before the exit. */
async function inFlight(s: Suite, seconds: number): Promise<{ status: number; answeredFirst: boolean }> {
  const order: string[] = [];
  const request = s.get(host, `/sleep/${seconds}`, { timeoutMs: 30_000 }).then((r) => {
    order.push('answer');
    return r.status;
  });
  // The request has reached the backend once the echo server has seen it (bounded: 5 s).
  for (let i = 0; i < 100 && !s.echo.seen.some((e) => e.url === `/sleep/${seconds}`); i++) await new Promise((r) => setTimeout(r, 50));
  const code = await s.portico.stop().then((c) => {
    order.push('exit');
    return c;
  });
  assert.equal(code, 0);
  const status = await request;
  return { status, answeredFirst: order[0] === 'answer' };
}

void describe('gracefulshutdown/shutdown.go', () => {
  test('should shutdown in less than 60 seconds without pending connections', async () => {
    const s = await suite();
    try {
      assert.equal((await s.get(host, '/sleep/1')).status, 200);
      // stop() kills with SIGKILL after 15 s: exit code 0 means nginx and Portico quit on their own before that.
      assert.equal(await s.portico.stop(), 0);
    } finally {
      await s.stop();
    }
  });

  test('should shutdown after waiting 60 seconds for pending connections to be closed', async () => {
    const s = await suite(ann({ 'proxy-send-timeout': '600', 'proxy-read-timeout': '600' }));
    try {
      const r = await inFlight(s, 3);
      assert.equal(r.status, 200);
      assert.ok(r.answeredFirst);
    } finally {
      await s.stop();
    }
  });

  test('should shutdown after waiting 150 seconds for pending connections to be closed', async () => {
    const s = await suite(ann({ 'proxy-send-timeout': '600', 'proxy-read-timeout': '600' }));
    try {
      const r = await inFlight(s, 5);
      assert.equal(r.status, 200);
      assert.ok(r.answeredFirst);
    } finally {
      await s.stop();
    }
  });
});
