// ingress-nginx e2e annotations/fromtowwwredirect.go: from-to-www-redirect sends the www. name to the host named in
// the Ingress, over HTTP and over HTTPS.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsGet, makeCert } from '../../support/certs.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/fromtowwwredirect.go', () => {
  let s: Suite;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-www-'));
  const host = 'fromtowwwredirect.bar.com';
  const fromHost = 'fromtowwwredirect.com';
  const toHost = `www.${fromHost}`;
  before(async () => {
    const pem = makeCert(certDir, fromHost, { sans: [fromHost, toHost] });
    s = await startSuite({ config: { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' }, objects: [tlsSecret('www-tls', pem)] });
    const tlsIng = ing('www-tls', fromHost, { annotations: ann({ 'from-to-www-redirect': 'true', 'configuration-snippet': 'more_set_headers "ExpectedHost: $http_host";' }) });
    await s.put(
      'ingresses.json',
      [ing('www', host, { annotations: ann({ 'from-to-www-redirect': 'true' }) }), { ...tlsIng, spec: { ...tlsIng.spec, tls: [{ hosts: [fromHost, toHost], secretName: 'www-tls' }] } }],
      async () => (await s.get(`www.${host}`, '/foo')).status === 308 && (await httpsGet(s.portico.https, fromHost, '/')).status === 200,
    );
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should redirect from www HTTP to HTTP', async () => {
    const r = await s.get(`www.${host}`, '/foo');
    assert.equal(r.status, 308);
    // ingress-nginx writes the port (":80" on the standard one); Portico leaves it out: the same URL there.
    const loc = new URL(String(r.headers['location']));
    assert.deepEqual([loc.protocol, loc.hostname, loc.pathname], ['http:', host, '/foo']);
  });

  test('should redirect from www HTTPS to HTTPS', async () => {
    const r = await httpsGet(s.portico.https, toHost, '/');
    assert.equal(r.status, 308);
    const loc = new URL(String(r.headers['location']));
    assert.deepEqual([loc.protocol, loc.hostname], ['https:', fromHost]);
    const ok = await httpsGet(s.portico.https, fromHost, '/');
    assert.equal(ok.status, 200);
    assert.equal(ok.headers['expectedhost'], fromHost);
  });
});
