// ingress-nginx e2e annotations/disableproxyintercepterrors.go: disable-proxy-intercept-errors lets the backend's own
// error answers through even with custom-http-errors; set to false, the default backend answers them again.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackend, type Backend } from '../../support/backends.js';
import { backendObjects } from '../../support/manifests.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/disableproxyintercepterrors.go', () => {
  let s: Suite;
  let errors: Backend;
  const host = 'pie.foo.com';
  const annotations = (disable: string) => ann({ 'custom-http-errors': '404', 'disable-proxy-intercept-errors': disable, 'default-backend': 'errors' });
  before(async () => {
    errors = await startBackend('errors');
    s = await startSuite({ objects: backendObjects('errors', errors.port) });
    await s.put('ingresses.json', [ing('pie', host, { annotations: annotations('true') })], async () => (await s.get(host, '/')).status === 200);
  });
  after(async () => {
    await s.stop();
    await errors.close();
  });

  test('configures Nginx correctly', async () => {
    const r = await s.get(host, '/status/404', { headers: { 'x-request-id': 'proxy_intercept_errors' } });
    assert.equal(r.status, 404);
    assert.equal(r.headers['x-backend'], 'echo');
    await s.put('ingresses.json', [ing('pie', host, { annotations: annotations('false') })], async () => (await s.get(host, '/status/404')).status === 200);
    const e = echoed(await s.get(host, '/status/404', { headers: { 'x-request-id': 'proxy_intercept_errors' } }));
    assert.equal(e.id, 'errors');
    assert.equal(e.headers['x-code'], '404');
    assert.equal(e.headers['x-ingress-name'], 'pie');
    assert.equal(e.headers['x-service-name'], 'echo');
    assert.equal(e.headers['x-request-id'], 'proxy_intercept_errors');
  });
});
