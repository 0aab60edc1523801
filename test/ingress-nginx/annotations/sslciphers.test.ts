// ingress-nginx e2e annotations/sslciphers.go: ssl-ciphers and ssl-prefer-server-ciphers set the cipher list and
// preference of the host's HTTPS server. The client speaks TLS 1.2 (the lists govern up to 1.2) and offers
// ECDHE-ECDSA-AES128-SHA then ECDHE-ECDSA-AES256-SHA (the default certificate is ECDSA): both are in the annotated
// lists and neither in the default one, and each list orders AES256 first, so the server's choice shows whether it
// prefers its own order. The lists come only from the host owner's namespace (docs/security.md 2a).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { TLSSocket } from 'node:tls';
import { until } from '../../support/portico.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const A128 = 'ECDHE-ECDSA-AES128-SHA';
const A256 = 'ECDHE-ECDSA-AES256-SHA';
const OFFER = `${A128}:${A256}`;

/** GETs `path` over HTTPS (TLS 1.2, offering only `ciphers`): "status cipher", or the TLS error. */
function httpsGet(port: number, host: string, path: string, ciphers = OFFER): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, servername: host, headers: { host }, rejectUnauthorized: false, ciphers, maxVersion: 'TLSv1.2', agent: false, timeout: 10_000 }, (res) => {
      const cipher = res.socket instanceof TLSSocket ? res.socket.getCipher().name : 'no TLS';
      res.resume();
      res.on('end', () => {
        resolve(`${res.statusCode ?? 0} ${cipher}`);
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => {
      resolve(`error: ${err.message}`);
    });
    req.end();
  });
}

void describe('annotations/sslciphers.go', () => {
  let s: Suite;
  const host = 'ciphers.foo.com';
  const marker = 'marker.ciphers.test';
  before(async () => {
    s = await startSuite();
    await s.put('marker.json', [ing('marker', marker)], async () => (await s.get(marker, '/')).status === 200);
    // Without the annotations the default list holds neither cipher: the handshake fails.
    assert.match(await httpsGet(s.portico.https, marker, '/'), /^error: /);
  });
  after(() => s.stop());

  /** Serves `host` with these annotations (and an Ingress of another namespace asking for `intruder` on it). */
  const put = (annotations: Record<string, string>, intruder: Record<string, string>) => {
    const own = ing('ciphers', host, { path: '/something', annotations: ann(annotations), created: '2026-01-01T00:00:00Z' });
    const other = ing('intruder', host, { path: '/other', annotations: ann(intruder), created: '2026-02-01T00:00:00Z' });
    return s.put('ingresses.json', [own, { ...other, metadata: { ...other.metadata, namespace: 'other' } }], async () => (await httpsGet(s.portico.https, host, '/something')).startsWith('200 '));
  };

  test('should change ssl ciphers', async () => {
    await put({ 'ssl-ciphers': 'ALL:!aNULL:!EXPORT56:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP', 'ssl-prefer-server-ciphers': 'false' }, { 'ssl-ciphers': A256 });
    // The client's order wins.
    assert.equal(await httpsGet(s.portico.https, host, '/something'), `200 ${A128}`);
    // The newer namespace's list (AES256 only) is refused for the owner's host, with a Warning naming the owner.
    const refused = (l: string) => l.includes('"level":40') && l.includes('Ingress other/intruder') && l.includes('ssl-ciphers');
    await until('the Warning on the other namespace', () => s.portico.output.some(refused), 10_000);
    assert.equal(await httpsGet(s.portico.https, host, '/something', A128), `200 ${A128}`);
  });

  test('should keep ssl ciphers', async () => {
    await put({ 'ssl-ciphers': 'ALL:!aNULL:!EXPORT56:RC4+RSA@STRENGTH:+HIGH@SECLEVEL=0:+MEDIUM:+LOW:+SSLv2:+EXP', 'ssl-prefer-server-ciphers': 'true' }, {});
    await until('the server order', async () => (await httpsGet(s.portico.https, host, '/something')) === `200 ${A256}`, 20_000);
    // The server's order wins: its list (sorted by strength) puts AES256 first.
    assert.equal(await httpsGet(s.portico.https, host, '/something'), `200 ${A256}`);
  });
});
