// ingress-nginx e2e defaultbackend/ssl.go: with no certificate for a name, HTTPS answers with the self-signed
// "Kubernetes Ingress Controller Fake Certificate", with or without SNI.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import tls from 'node:tls';
import { startSuite, type Suite } from '../harness.js';

/** The certificate chain the HTTPS port presents for `servername` (none: no SNI). */
function peer(port: number, servername?: string): Promise<tls.DetailedPeerCertificate> {
  return new Promise((resolve, reject) => {
    const sock = tls.connect({ host: '127.0.0.1', port, rejectUnauthorized: false, ...(servername ? { servername } : {}) }, () => {
      const cert = sock.getPeerCertificate(true);
      sock.end();
      resolve(cert);
    });
    sock.setTimeout(10_000, () => sock.destroy(new Error('TLS handshake: no answer in 10 s')));
    sock.on('error', reject);
  });
}

void describe('defaultbackend/ssl.go', () => {
  let s: Suite;
  before(async () => {
    s = await startSuite();
  });
  after(() => s.stop());

  test('should return a self generated SSL certificate', async () => {
    for (const name of [undefined, 'foo.bar.com']) {
      const cert = await peer(s.portico.https, name);
      assert.equal(cert.issuer.CN, 'Kubernetes Ingress Controller Fake Certificate', String(name));
      // One certificate: self-signed, its own issuer.
      assert.equal(cert.issuerCertificate.fingerprint256, cert.fingerprint256);
    }
  });
});
