// ingress-nginx e2e gracefulshutdown/grace_period.go: with --shutdown-grace-period, a stopping controller fails
// /healthz at once while nginx keeps serving, and quits only after the period. Portico answers 503 there where
// ingress-nginx answers 500 (deliberate: the same readiness failure for kubelet and load balancers).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { get, until } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('gracefulshutdown/grace_period.go', () => {
  let s: Suite;
  const host = 'grace.foo.com';
  before(async () => {
    s = await startSuite({ args: ['--shutdown-grace-period', '3'] });
    await s.put('ingresses.json', [ing('grace', host)], async () => (await s.get(host, '/')).status === 200);
  });
  after(() => s.stop());

  test('/healthz should return status code 500 during shutdown grace period', async () => {
    assert.equal((await get(s.portico.healthz, 'localhost', '/healthz')).status, 200);
    const exited = new Promise<void>((resolve) =>
      s.portico.proc.once('exit', () => {
        resolve();
      }),
    );
    let gone = false;
    void exited.then(() => {
      gone = true;
    });
    s.portico.proc.kill('SIGTERM');
    await until('/healthz fails once the stop began', async () => (await get(s.portico.healthz, 'localhost', '/healthz')).status === 503, 5000);
    // Still in the grace period: traffic is served and the process has not exited.
    const r = await s.get(host, '/');
    assert.equal(r.status, 200);
    assert.equal(gone, false);
    await exited;
  });
});
