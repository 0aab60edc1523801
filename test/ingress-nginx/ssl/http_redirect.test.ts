// ingress-nginx e2e ssl/http_redirect.go: a host with spec.tls redirects HTTP to HTTPS (308) even while its Secret is
// missing (HTTPS then serves the default certificate). Deliberate: the Location keeps the path as sent
// (https://redirect.com/), where ingress-nginx strips the trailing slash (docs/migration.md).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ing, startSuite, type Suite } from '../harness.js';

void describe('ssl/http_redirect.go', () => {
  let s: Suite;
  const host = 'redirect.com';
  before(async () => {
    s = await startSuite();
    const i = ing(host, host);
    await s.put('ingresses.json', [{ ...i, spec: { ...i.spec, tls: [{ hosts: [host], secretName: host }] } }], async () => (await s.get(host, '/')).status === 308);
  });
  after(() => s.stop());

  test('should redirect from HTTP to HTTPS when secret is missing', async () => {
    const r = await s.get(host, '/');
    assert.equal(r.status, 308);
    assert.equal(r.headers['location'], 'https://redirect.com/');
  });
});
