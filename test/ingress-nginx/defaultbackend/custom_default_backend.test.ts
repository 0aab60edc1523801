// ingress-nginx e2e defaultbackend/custom_default_backend.go: --default-backend-service answers unmatched requests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuite, type Suite } from '../harness.js';

void describe('defaultbackend/custom_default_backend.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite({ args: ['--default-backend-service', 'default/echo'] });
  });
  after(() => s.stop());

  test('uses custom default backend that returns 200 as status code', async () => {
    const r = await s.get('unmatched.default-backend.test', '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-backend'], 'echo');
  });
});
