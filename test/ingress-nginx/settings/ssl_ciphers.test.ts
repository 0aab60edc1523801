// ingress-nginx e2e settings/ssl_ciphers.go: the ConfigMap's ssl-ciphers, seen as the cipher suites a TLS 1.2 client
// can negotiate: the default list has no RSA key exchange, the list of the upstream test (ALL first) has.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { tlsSecret } from '../../support/tls-manifests.js';
import { syncCount, until } from '../../support/portico.js';
import { ing, startSuite, type Suite } from '../harness.js';

const HOST = 'ssl-ciphers';
/** A suite with RSA key exchange (no forward secrecy): outside ingress-nginx's default list, inside ALL. */
const RSA_KX = 'AES128-SHA';

/** One HTTPS request offering TLS 1.2 and only `ciphers`: the status and the cipher suite, or the handshake's error. */
function httpsWith(port: number, ciphers: string): Promise<{ status: number; cipher: string } | { error: string }> {
  return new Promise((resolve) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', servername: HOST, headers: { host: HOST }, rejectUnauthorized: false, agent: false, timeout: 10_000, maxVersion: 'TLSv1.2', ciphers },
      (res) => {
        const cipher = res.socket instanceof TLSSocket ? res.socket.getCipher().name : '';
        res.resume();
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, cipher });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (err) => {
      resolve({ error: err.message });
    });
    req.end();
  });
}

void describe('settings/ssl_ciphers.go', () => {
  let s: Suite;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-ssl-ciphers-'));
  const rsaKx = () => httpsWith(s.portico.https, RSA_KX);

  before(async () => {
    // An RSA certificate: RSA key exchange needs one.
    const [key, crt] = [join(certDir, 'k.pem'), join(certDir, 'c.pem')];
    execFileSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', key, '-out', crt, '-days', '2', '-subj', `/CN=${HOST}`, '-addext', `subjectAltName=DNS:${HOST}`], {
      stdio: 'ignore',
      timeout: 30_000,
    });
    s = await startSuite({ objects: [tlsSecret('ssl-ciphers', { cert: readFileSync(crt, 'utf8'), key: readFileSync(key, 'utf8') })] });
    const base = ing(HOST, HOST);
    await s.put('ingress.json', [{ ...base, spec: { ...base.spec, tls: [{ hosts: [HOST], secretName: 'ssl-ciphers' }] } }], async () => {
      const r = await httpsWith(s.portico.https, 'ECDHE-RSA-AES128-GCM-SHA256');
      return 'status' in r && r.status === 200;
    });
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('Add ssl ciphers', async () => {
    // The default list refuses a client that offers only RSA key exchange.
    assert.ok('error' in (await rsaKx()), 'the default ssl-ciphers accepted RSA key exchange');
    const reloads = syncCount(s.portico.output, 'reload');
    await s.config({ 'ssl-ciphers': 'ALL:!aNULL:!EXPORT56:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP' }, async () => {
      const r = await rsaKx();
      return 'status' in r && r.status === 200;
    });
    // The new workers answer before the old ones stop accepting (nginx starts them first): a connection may still land
    // on an old worker until the reload's sync line, logged once none accepts (nginx/retire.ts).
    await until('the reload applied', () => syncCount(s.portico.output, 'reload') > reloads, 20_000);
    assert.deepEqual(await rsaKx(), { status: 200, cipher: RSA_KX });
  });
});
