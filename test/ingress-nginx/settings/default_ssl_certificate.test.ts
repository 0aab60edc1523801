// ingress-nginx e2e settings/default_ssl_certificate.go: --default-ssl-certificate is the certificate HTTPS presents
// without an Ingress, for a catch-all Ingress, and for a host whose own Secret's certificate does not cover it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { makeCert, type Pem } from '../../support/certs.js';
import { ingress } from '../../support/objects.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { until } from '../../support/portico.js';
import type { Backend } from '../../support/backends.js';
import { backendObjects } from '../../support/manifests.js';
import { ing, startEcho, startSuite, type Suite } from '../harness.js';

/** One HTTPS GET / (SNI `servername`, none when undefined): the status, the backend and the presented certificate. */
function httpsGet(port: number, servername: string | undefined): Promise<{ status: number; backend: string; fingerprint: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', ...(servername ? { servername, headers: { host: servername } } : {}), rejectUnauthorized: false, agent: false, timeout: 10_000 },
      (res) => {
        const fingerprint = res.socket instanceof TLSSocket ? res.socket.getPeerCertificate().fingerprint256 : '';
        res.resume();
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, backend: String(res.headers['x-backend']), fingerprint });
        });
      },
    );
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

void describe('settings/default_ssl_certificate.go', () => {
  let s: Suite;
  let custom: Pem;
  let foo: Backend | undefined;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-default-ssl-'));
  /** Waits until HTTPS (SNI `servername`) reaches the echo backend, then returns what it presented. */
  const served = async (servername: string | undefined, backend = 'echo') => {
    await until(
      `HTTPS ${servername ?? '(no SNI)'} served by ${backend}`,
      async () => {
        const r = await httpsGet(s.portico.https, servername);
        return r.status === 200 && r.backend === backend;
      },
      20_000,
    );
    return httpsGet(s.portico.https, servername);
  };

  before(async () => {
    // ingress-nginx's test makes the default certificate for the name "*".
    custom = makeCert(certDir, 'default-ssl-certificate', { sans: ['*'] });
    s = await startSuite({ objects: [tlsSecret('my-custom-cert', custom)], args: ['--default-ssl-certificate', 'default/my-custom-cert'] });
    // Without any Ingress, HTTPS already presents the configured default certificate.
    await until('default certificate presented', async () => (await httpsGet(s.portico.https, undefined)).fingerprint === custom.fingerprint, 20_000);
  });
  after(async () => {
    await s.stop();
    await foo?.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('uses default ssl certificate for catch-all ingress', async () => {
    await s.dir.write('ingress.json', [ingress('catch-all', { className: 'portico', defaultBackend: 'echo' })]);
    const r = await served(undefined);
    assert.equal(r.fingerprint, custom.fingerprint);
    // Any name without a certificate of its own is answered with it too.
    assert.equal((await served('anything.example')).fingerprint, custom.fingerprint);
  });

  test('uses default ssl certificate for host based ingress when configured certificate does not match host', async () => {
    const host = 'foo';
    const notFoo = makeCert(certDir, 'not.foo', { sans: ['not.foo'] });
    // A backend of its own: the catch-all Ingress above answers for foo too until this one is served.
    foo = await startEcho('foo');
    const base = ing(host, host, { service: 'foo' });
    await s.dir.write('foo.json', [...backendObjects('foo', foo.port), tlsSecret('foo', notFoo), { ...base, spec: { ...base.spec, tls: [{ hosts: [host], secretName: 'foo' }] } }]);
    const r = await served(host, 'foo');
    assert.equal(r.fingerprint, custom.fingerprint);
    assert.notEqual(r.fingerprint, notFoo.fingerprint);
  });
});
