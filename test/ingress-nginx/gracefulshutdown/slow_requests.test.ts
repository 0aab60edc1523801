// ingress-nginx e2e gracefulshutdown/slow_requests.go: with worker-shutdown-timeout 50s, a slow request in flight when
// the controller is stopped still gets its answer (upstream sleeps 30 s; the behaviour is the same with 4 s).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('gracefulshutdown/slow_requests.go', () => {
  let s: Suite;
  const host = 'graceful-shutdown';
  before(async () => {
    s = await startSuite({ config: { 'worker-shutdown-timeout': '50s' } });
    await s.put('ingresses.json', [ing('graceful', host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('should let slow requests finish before shutting down', async () => {
    const request = s.get(host, '/sleep/4', { timeoutMs: 30_000 });
    for (let i = 0; i < 100 && !s.echo.seen.some((e) => e.url === '/sleep/4'); i++) await new Promise((r) => setTimeout(r, 50));
    const [r, code] = await Promise.all([request, s.portico.stop()]);
    assert.equal(r.status, 200);
    assert.equal(code, 0);
  });
});
