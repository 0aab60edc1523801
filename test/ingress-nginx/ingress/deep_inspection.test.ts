// ingress-nginx e2e ingress/deep_inspection.go: a path that carries nginx syntax refuses its whole Ingress; another
// Ingress of the same host still serves.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('ingress/deep_inspection.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should drop whole ingress if one path matches invalid regex', async () => {
    const host = 'inspection123.com';
    await s.put(
      'ingresses.json',
      [ing('invalidregex', host, { path: '/bla{alias /var/run/secrets/;}location ~* ^/abcd', type: 'ImplementationSpecific' }), ing('valid', host, { path: '/xpto' })],
      async () => (await s.get(host, '/xpto')).status === 200,
    );
    assert.equal((await s.get(host, '/xpto')).status, 200);
    assert.equal((await s.get(host, '/bla')).status, 404);
    assert.equal((await s.get(host, '/abcd/')).status, 404);
  });
});
