// ingress-nginx e2e settings/no_tls_redirect_locations.go: a location listed in no-tls-redirect-locations answers plain
// HTTP although its host has TLS (no redirect to HTTPS); the host's other locations are still redirected.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../../support/certs.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { echoed, ing, startSuite, type Suite } from '../harness.js';

const HOST = 'no-tls-redirect-locations';

void describe('settings/no_tls_redirect_locations.go', () => {
  let s: Suite;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-no-tls-redirect-'));

  before(async () => {
    s = await startSuite({ objects: [tlsSecret('no-tls-redirect', makeCert(certDir, HOST, { sans: [HOST] }))] });
    const base = ing(HOST, HOST, {
      paths: [
        { path: '/check-no-tls', type: 'Prefix', service: 'echo' },
        { path: '/other', type: 'Prefix', service: 'echo' },
      ],
    });
    await s.put('ingress.json', [{ ...base, spec: { ...base.spec, tls: [{ hosts: [HOST], secretName: 'no-tls-redirect' }] } }], async () => (await s.get(HOST, '/check-no-tls')).status === 308);
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('Check no tls redirect locations config', async () => {
    // Before: a host with TLS redirects plain HTTP on every location.
    const before = await s.get(HOST, '/check-no-tls');
    assert.equal(before.status, 308);
    assert.equal(before.headers['location'], `https://${HOST}/check-no-tls`);
    await s.config({ 'no-tls-redirect-locations': '/check-no-tls' }, async () => {
      const r = await s.get(HOST, '/check-no-tls');
      return r.status === 200 && r.headers['x-backend'] === 'echo';
    });
    const r = await s.get(HOST, '/check-no-tls');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).url, '/check-no-tls');
    // A location not listed is still redirected.
    assert.equal((await s.get(HOST, '/other')).status, 308);
  });
});
