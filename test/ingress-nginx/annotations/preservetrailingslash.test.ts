// ingress-nginx e2e annotations/preservetrailingslash.go: the HTTPS redirect keeps a trailing slash.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../../support/certs.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

void describe('annotations/preservetrailingslash.go', () => {
  let s: Suite;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-pts-'));
  const host = 'forcesslredirect.bar.com';
  before(async () => {
    const pem = makeCert(certDir, host, { sans: [host] });
    s = await startSuite({ objects: [tlsSecret('pts-tls', pem)] });
    const i = ing('pts', host, { annotations: ann({ 'ssl-redirect': 'true', 'preserve-trailing-slash': 'true' }) });
    await s.put('ingresses.json', [{ ...i, spec: { ...i.spec, tls: [{ hosts: [host], secretName: 'pts-tls' }] } }], async () => (await s.get(host, '/')).status === 308);
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should allow preservation of trailing slashes', async () => {
    const r = await s.get(host, '/');
    assert.equal(r.status, 308);
    const loc = new URL(String(r.headers['location']));
    assert.deepEqual([loc.protocol, loc.hostname, loc.pathname], ['https:', host, '/']);
    assert.ok(String(r.headers['location']).endsWith('/'));
  });
});
