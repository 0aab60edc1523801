// ingress-nginx e2e servicebackend/service_backend.go: a path whose Service is missing, or has no ready endpoint, is 503.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { service, slice } from '../../support/objects.js';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('servicebackend/service_backend.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({ objects: [service('unavailable-svc'), slice('unavailable-svc', 1, [{ ip: '127.0.0.1', ready: false }])] });
    await s.put(
      'ingresses.json',
      [ing('nonexistent', 'nonexistent.svc.com', { service: 'nonexistent-svc' }), ing('unavailable', 'unavailable.svc.com', { service: 'unavailable-svc' })],
      async () => (await s.get('nonexistent.svc.com', '/')).status === 503 && (await s.get('unavailable.svc.com', '/')).status === 503,
    );
  });
  after(() => s.stop());

  test('should return 503 when backend service does not exist', async () => {
    assert.equal((await s.get('nonexistent.svc.com', '/')).status, 503);
  });

  test('should return 503 when all backend service endpoints are unavailable', async () => {
    assert.equal((await s.get('unavailable.svc.com', '/')).status, 503);
  });
});
