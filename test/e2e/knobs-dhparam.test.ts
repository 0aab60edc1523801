// ssl-dh-param through real nginx: without it a TLS 1.2 client offering only DHE suites fails its handshake (nginx has
// no DH parameters); with a Secret of DH parameters it succeeds; a Secret that is not DH parameters is a Warning
// naming it, and the other hosts keep being served.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { tlsSecret } from '../support/tls-manifests.js';

/** The cipher a TLS 1.2 handshake offering only DHE-RSA suites agreed on, or the error's code. */
function dheHandshake(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, servername: 'app.test', rejectUnauthorized: false, maxVersion: 'TLSv1.2', ciphers: 'DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384' });
    s.on('secureConnect', () => {
      const c = s.getCipher().name;
      s.end();
      resolve(c);
    });
    s.on('error', (e: NodeJS.ErrnoException) => {
      resolve(`error ${e.code ?? e.message}`);
    });
  });
}

void describe('ssl-dh-param (real nginx)', () => {
  let dir: ManifestDir;
  let files: string;
  let app: Backend;
  let portico: Running;
  let dh = '';

  before(async () => {
    files = mkdtempSync(join(tmpdir(), 'portico-dh-'));
    // An RSA certificate (DHE-RSA needs one) and RFC 7919's ffdhe2048 group, made at once by openssl.
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=app.test', '-addext', 'subjectAltName=DNS:app.test', '-days', '2', '-keyout', join(files, 'k.pem'), '-out', join(files, 'c.pem')],
      { stdio: 'ignore' },
    );
    execFileSync('openssl', ['genpkey', '-genparam', '-algorithm', 'DH', '-pkeyopt', 'group:ffdhe2048', '-out', join(files, 'dh.pem')], { stdio: 'ignore' });
    dh = readFileSync(join(files, 'dh.pem'), 'utf8');
    dir = await manifestFolder();
    app = await startBackend('app');
    const app1 = ingress('app', { host: 'app.test', className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'app' }] });
    await dir.write('objects.json', [
      ...backendObjects('app', app.port),
      tlsSecret('app-tls', { cert: readFileSync(join(files, 'c.pem'), 'utf8'), key: readFileSync(join(files, 'k.pem'), 'utf8') }),
      { ...app1, spec: { ...app1.spec, tls: [{ hosts: ['app.test'], secretName: 'app-tls' }] } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'dh', namespace: 'kube-system' }, stringData: { 'dhparam.pem': dh } },
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'not-dh', namespace: 'kube-system' }, stringData: { 'dhparam.pem': readFileSync(join(files, 'c.pem'), 'utf8') } },
    ]);
    await dir.write('cm.json', [configMap('portico', {}, 'kube-system')]);
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'kube-system/portico']);
    await until('served', async () => (await get(portico.http, 'app.test', '/')).status !== 404, 20_000);
  });

  after(async () => {
    await portico?.stop();
    await app?.close();
    await dir?.remove();
    rmSync(files, { recursive: true, force: true });
  });

  void it('without ssl-dh-param a DHE-only client fails; with it the handshake agrees on a DHE suite', async () => {
    assert.match(await dheHandshake(portico.https), /^error /);
    await dir.write('cm.json', [configMap('portico', { 'ssl-dh-param': 'kube-system/dh' }, 'kube-system')]);
    await until('a DHE handshake', async () => (await dheHandshake(portico.https)).startsWith('DHE-RSA-'), 15_000, 200);
  });

  void it('a Secret that is not DH parameters is a Warning naming it; DHE is off again and HTTPS keeps serving', async () => {
    await dir.write('cm.json', [configMap('portico', { 'ssl-dh-param': 'kube-system/not-dh' }, 'kube-system')]);
    await until('the Warning', () => portico.output.some((l) => l.includes('kube-system/not-dh') && l.includes('dhparam.pem')), 15_000, 100);
    await until('DHE off', async () => (await dheHandshake(portico.https)).startsWith('error '), 15_000, 200);
    const r = await new Promise<string>((resolve) => {
      const s = connect({ host: '127.0.0.1', port: portico.https, servername: 'app.test', rejectUnauthorized: false });
      s.on('secureConnect', () => {
        resolve(s.getCipher().name);
        s.end();
      });
      s.on('error', (e: Error) => {
        resolve(`error ${e.message}`);
      });
    });
    assert.doesNotMatch(r, /^error/);
  });
});
