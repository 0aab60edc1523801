// ingress-nginx e2e annotations/customhttperrors.go: custom-http-errors sends the listed backend statuses to the
// default backend (here the default-backend annotation's Service), with X-Code and the request's names.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../../support/backends.js';
import { backendObjects } from '../../support/manifests.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/customhttperrors.go', () => {
  let s: Suite;
  let errors: Backend;
  const host = 'customerrors.foo.com';
  const errs = (codes: string) => ann({ 'custom-http-errors': codes, 'default-backend': 'errors' });
  before(async () => {
    errors = await startBackend('errors');
    s = await startSuite({ objects: backendObjects('errors', errors.port) });
    await s.put(
      'ingresses.json',
      [ing('errs', host, { annotations: errs('404,500') }), ing('errs-else', host, { path: '/else', annotations: errs('404, 503') })],
      async () => (await s.get(host, '/status/404')).headers['x-backend'] === 'errors',
    );
  });
  after(async () => {
    await s.stop();
    await errors.close();
  });

  test('configures Nginx correctly', async () => {
    for (const code of ['404', '500']) {
      const r = await s.get(host, `/status/${code}`, { headers: { 'x-request-id': 'req-1' } });
      assert.equal(r.headers['x-backend'], 'errors', code);
      const e = echoed(r);
      assert.equal(e.headers['x-code'], code);
      assert.equal(e.headers['x-ingress-name'], 'errs');
      assert.equal(e.headers['x-service-name'], 'echo');
      assert.equal(e.headers['x-request-id'], 'req-1');
    }
    // A status not listed reaches the client as the backend answered it (503 is listed by default-backend itself).
    const passed = await s.get(host, '/status/502');
    assert.equal(passed.status, 502);
    assert.equal(passed.headers['x-backend'], 'echo');
    // Another Ingress of the host keeps its own list.
    assert.equal((await s.get(host, '/else/status/404')).headers['x-backend'], 'errors');
    assert.equal(echoed(await s.get(host, '/else/status/404')).headers['x-ingress-name'], 'errs-else');
    assert.equal((await s.get(host, '/else/status/500')).headers['x-backend'], 'echo');
    // The list changed to 503 only: 404 passes, 503 is intercepted.
    await s.put('ingresses.json', [ing('errs', host, { annotations: errs('503') })], async () => (await s.get(host, '/status/404')).headers['x-backend'] === 'echo');
    assert.equal((await s.get(host, '/status/503')).headers['x-backend'], 'errors');
  });
});
