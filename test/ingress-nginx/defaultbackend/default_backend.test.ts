// ingress-nginx e2e defaultbackend/default_backend.go: with no Ingress, every request gets the default backend's 404.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startSuite, type Suite } from '../harness.js';

void describe('defaultbackend/default_backend.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should return 404 sending requests when only a default backend is running', async () => {
    for (const [host, path, method] of [
      ['foo.bar.com', '/', 'GET'],
      ['', '/', 'GET'],
      ['foo.bar.com', '/ssl', 'POST'],
      ['anything', '/some/path?x=1', 'DELETE'],
    ] as const) {
      const r = await s.get(host, path, { method });
      assert.equal(r.status, 404, `${method} ${host}${path}`);
    }
  });
});
