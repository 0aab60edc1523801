// ingress-nginx e2e settings/ssl_passthrough.go: with --enable-ssl-passthrough, TLS for a host whose Ingress has the
// ssl-passthrough annotation goes unterminated to its backend; other hosts, named or not, are still Portico's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { makeCert, type Pem } from '../../support/certs.js';
import { backendObjects } from '../../support/manifests.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const HOST = 'testpassthrough.com';
const HOST_BAD = 'noannotationnopassthrough.com';

/** One HTTPS GET / with SNI and Host `host` on a fresh connection: status, backend, body and presented certificate. */
function httpsGet(port: number, host: string): Promise<{ status: number; backend: string; body: string; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', servername: host, headers: { host }, rejectUnauthorized: false, agent: false, timeout: 10_000 }, (res) => {
      const fingerprint = res.socket instanceof TLSSocket ? res.socket.getPeerCertificate().fingerprint256 : '';
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, backend: String(res.headers['x-backend']), body: Buffer.concat(chunks).toString('utf8'), fingerprint });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

void describe('settings/ssl_passthrough.go', () => {
  let s: Suite;
  let pem: Pem;
  let badPem: Pem;
  /** The backend that terminates TLS itself (ingress-nginx's test runs httpbun with the Ingress's certificate). */
  let echopass: Server;
  /** The SNI names the TLS backend saw. */
  const sniSeen: string[] = [];
  const certDir = mkdtempSync(join(tmpdir(), 'portico-ssl-passthrough-'));

  before(async () => {
    pem = makeCert(certDir, HOST, { sans: [HOST] });
    badPem = makeCert(certDir, HOST_BAD, { sans: [HOST_BAD] });
    echopass = createServer({ cert: pem.cert, key: pem.key }, (req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain', 'x-backend': 'echopass' });
      res.end(`passed through to echopass for ${req.headers.host ?? ''}`);
    });
    echopass.on('secureConnection', (sock: TLSSocket) => {
      const name = (sock as TLSSocket & { servername?: string | false }).servername;
      if (typeof name === 'string' && sniSeen.length < 1000) sniSeen.push(name);
    });
    await new Promise<void>((resolve) => echopass.listen(0, '127.0.0.1', resolve));
    // The proxy port flag of ingress-nginx's internal TLS proxy is accepted; Portico's HTTPS server sits behind
    // the SNI front on a unix socket instead of a port.
    s = await startSuite({
      args: ['--enable-ssl-passthrough', '--ssl-passthrough-proxy-port=1442'],
      objects: [...backendObjects('echopass', (echopass.address() as AddressInfo).port), tlsSecret(HOST, pem), tlsSecret(HOST_BAD, badPem)],
    });
  });
  after(async () => {
    await s.stop();
    echopass.closeAllConnections();
    await new Promise<void>((resolve) =>
      echopass.close(() => {
        resolve();
      }),
    );
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should enable ssl-passthrough-proxy-port on a different port', async () => {
    const r = await s.get('something', '/');
    assert.equal(r.status, 404);
    // Through the SNI front, a name no Ingress has reaches Portico's own HTTPS server: its default server's 404.
    assert.equal((await httpsGet(s.portico.https, 'something')).status, 404);
  });

  test('should pass unknown traffic to default backend and handle known traffic', async () => {
    const withTls = (host: string, annotations?: Record<string, string>) => {
      const base = ing(host, host, { service: 'echopass', ...(annotations ? { annotations } : {}) });
      return { ...base, spec: { ...base.spec, tls: [{ hosts: [host], secretName: host }] } };
    };
    await s.put('ingress.json', [withTls(HOST, ann({ 'ssl-passthrough': 'true' })), withTls(HOST_BAD)], async () => {
      const [good, bad] = [await httpsGet(s.portico.https, HOST), await httpsGet(s.portico.https, HOST_BAD)];
      return good.status === 200 && good.backend === 'echopass' && bad.fingerprint === badPem.fingerprint;
    });
    // The annotated host: the backend's own TLS answers (its certificate, and it saw the client's SNI).
    const good = await httpsGet(s.portico.https, HOST);
    assert.equal(good.status, 200);
    assert.equal(good.body, `passed through to echopass for ${HOST}`);
    assert.equal(good.fingerprint, pem.fingerprint);
    assert.ok(sniSeen.includes(HOST));
    // The host without the annotation is terminated by Portico with its own Secret and proxied as plain HTTP, which
    // this TLS-only backend cannot answer (ingress-nginx's test reads 404 from its own backend there): no passthrough.
    const bad = await httpsGet(s.portico.https, HOST_BAD);
    assert.equal(bad.fingerprint, badPem.fingerprint);
    assert.notEqual(bad.status, 200);
    assert.notEqual(bad.backend, 'echopass');
    assert.ok(!sniSeen.includes(HOST_BAD));
    // Unknown names still reach Portico's default server.
    assert.equal((await httpsGet(s.portico.https, 'unknown.example')).status, 404);
  });
});
