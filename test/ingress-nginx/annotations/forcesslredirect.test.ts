// ingress-nginx e2e annotations/forcesslredirect.go: force-ssl-redirect sends HTTP to HTTPS without TLS on the Ingress.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/forcesslredirect.go', () => {
  let s: Suite;
  const host = 'forcesslredirect.bar.com';
  before(async () => {
    s = await startSuite();
    await s.put('ingresses.json', [ing('force', host, { annotations: ann({ 'force-ssl-redirect': 'true' }) })], async () => (await s.get(host, '/')).status === 308);
  });
  after(() => s.stop());

  test('should redirect to https', async () => {
    const r = await s.get(host, '/');
    assert.equal(r.status, 308);
    // Deliberate difference (preserve-trailing-slash, docs/migration.md): Portico keeps the URI as sent, so the
    // Location ends in "/" where ingress-nginx strips it ("https://forcesslredirect.bar.com"); the same resource.
    assert.equal(r.headers['location'], `https://${host}/`);
  });
});
