// End to end, real nginx: the ConfigMap's no-tls-redirect-locations and no-auth-locations (ACME HTTP-01 challenges
// answered over HTTP without auth), ssl-reject-handshake, proxy-add-original-uri-header and the ssl-session-* keys.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { startBackend, type Backend } from '../support/backends.js';
import { httpsGet, makeCert, type Pem } from '../support/certs.js';
import { configMap } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { tlsSecret, webObjects, writeManifests } from '../support/tls-manifests.js';

const ACME = '/.well-known/acme-challenge/token-1';

/** Two TLS 1.2 handshakes, the second offering the first's session: whether nginx resumed it. */
async function resumed(port: number): Promise<boolean> {
  const once = (session?: Buffer): Promise<{ session: Buffer | undefined; reused: boolean }> =>
    new Promise((resolve, reject) => {
      const s = connect({ host: '127.0.0.1', port, servername: 'a.test', rejectUnauthorized: false, maxVersion: 'TLSv1.2', ...(session ? { session } : {}) });
      let got: Buffer | undefined;
      s.once('session', (b: Buffer) => {
        got = b;
      });
      s.once('secureConnect', () => {
        const reused = s.isSessionReused();
        // The session arrives with the handshake's last message; one write and its answer make sure it has.
        s.write('GET / HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n');
        s.on('data', () => undefined);
        s.once('end', () => {
          resolve({ session: got ?? s.getSession(), reused });
        });
      });
      s.once('error', reject);
    });
  const first = await once();
  return (await once(first.session)).reused;
}

void describe('TLS ConfigMap keys (real nginx)', () => {
  let fixtures: string;
  let manifests: string;
  let backend: Backend;
  let portico: Running;
  let server: Pem;
  let deny: Server;
  let denyUrl = '';

  const write = (data: Record<string, string>): void => {
    const site = ingress('site', { host: 'a.test', className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'web' }] });
    writeManifests(manifests, [
      ...webObjects(backend.port),
      tlsSecret('site-tls', server),
      configMap('portico', data, 'kube-system'),
      { ...site, spec: { ...site.spec, tls: [{ hosts: ['a.test'], secretName: 'site-tls' }] } },
      // As cert-manager's HTTP-01 solver writes it: the challenge path on the host whose certificate it asks for.
      ingress('solver', { host: 'a.test', className: 'portico', paths: [{ path: ACME, type: 'ImplementationSpecific', service: 'web' }] }),
    ]);
  };

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-tlskeys-fixtures-'));
    manifests = mkdtempSync(join(tmpdir(), 'portico-tlskeys-manifests-'));
    server = makeCert(fixtures, 'a.test', { sans: ['a.test'] });
    backend = await startBackend('web');
    // An auth service that refuses everyone: what it protects answers 401.
    deny = createServer((_req, res) => {
      res.writeHead(401);
      res.end();
    });
    await new Promise<void>((resolve) => deny.listen(0, '127.0.0.1', resolve));
    denyUrl = `http://127.0.0.1:${(deny.address() as AddressInfo).port}/check`;
    write({});
    portico = await startPortico(['--manifests', manifests, '--configmap', 'kube-system/portico']);
    await until('served', async () => (await get(portico.http, 'a.test', '/')).status === 308, 20_000);
  });

  after(async () => {
    await portico?.stop();
    await backend?.close();
    await new Promise<void>((resolve) => {
      deny.close(() => {
        resolve();
      });
    });
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });

  void it('no-tls-redirect-locations: the ACME challenge path is answered over HTTP by default, every other path redirects', async () => {
    const challenge = await get(portico.http, 'a.test', ACME);
    assert.equal(challenge.status, 200);
    assert.equal(challenge.headers['x-backend'], 'web');
    assert.equal((await get(portico.http, 'a.test', '/')).status, 308);
    // As ingress-nginx: the Ingress path is compared, so a challenge-looking request under `/` still redirects.
    assert.equal((await get(portico.http, 'a.test', '/.well-known/acme-challenge/other')).status, 308);
  });

  void it('no-tls-redirect-locations: another list applies at run time, and the challenge path then redirects', async () => {
    write({ 'no-tls-redirect-locations': '/nothing-here, /also-not' });
    await until('the challenge redirects', async () => (await get(portico.http, 'a.test', ACME)).status === 308);
    write({});
    await until('the default is back', async () => (await get(portico.http, 'a.test', ACME)).status === 200);
  });

  void it('ssl-session-*: resumed from the shared cache by default; cache off: full handshakes; tickets on: resumed again', async () => {
    assert.equal(await resumed(portico.https), true);
    write({ 'ssl-session-cache': 'false' });
    await until('no resumption', async () => !(await resumed(portico.https)));
    write({ 'ssl-session-cache': 'false', 'ssl-session-tickets': 'true', 'ssl-buffer-size': '16k' });
    await until('resumed with a ticket', async () => resumed(portico.https));
    write({ 'ssl-session-cache-size': '1k' });
    await until('the refusal logged', () => portico.output.some((l) => l.includes('ssl-session-cache-size') && l.includes('keeping the previous value')));
    write({ 'ssl-session-cache-size': '20m', 'ssl-session-timeout': '1h' });
    const conf = (): string => readFileSync(join(portico.workDir, 'nginx.conf'), 'utf8');
    await until('the new cache is rendered', () => conf().includes('ssl_session_cache shared:SSL:20m; ssl_session_timeout 1h;'));
    // the file is written before the reload that reads it ends: two handshakes may meet an old and a new worker
    await until('resumed from the new cache', async () => resumed(portico.https));
    assert.match(conf(), /ssl_session_tickets off;\n\s*ssl_buffer_size 4k;/);
  });

  void it('no-auth-locations: global auth protects the host but not the ACME challenge path; another list protects both', async () => {
    write({ 'global-auth-url': denyUrl });
    await until('global auth applies', async () => (await httpsGet(portico.https, 'a.test', '/')).status === 401);
    assert.equal((await get(portico.http, 'a.test', ACME)).status, 200, 'the challenge path is served without auth');
    write({ 'global-auth-url': denyUrl, 'no-auth-locations': '/other' });
    await until('the challenge path is protected too', async () => (await get(portico.http, 'a.test', ACME)).status === 401);
    write({});
    await until('no auth', async () => (await httpsGet(portico.https, 'a.test', '/')).status === 200);
  });

  /** Whether a TLS handshake for `servername` completes. */
  const handshakes = (servername: string): Promise<boolean> =>
    new Promise((resolve) => {
      const s = connect({ host: '127.0.0.1', port: portico.https, servername, rejectUnauthorized: false });
      s.once('secureConnect', () => {
        s.end();
        resolve(true);
      });
      s.once('error', () => {
        resolve(false);
      });
    });

  void it('ssl-reject-handshake: unknown names are refused at the handshake, served names still answer', async () => {
    assert.equal(await handshakes('unknown.test'), true, 'by default the default certificate answers');
    write({ 'ssl-reject-handshake': 'true' });
    await until('unknown names refused', async () => !(await handshakes('unknown.test')));
    assert.equal(await handshakes('a.test'), true);
    assert.equal((await httpsGet(portico.https, 'a.test', '/')).status, 200);
    write({});
    await until('unknown names answered again', async () => handshakes('unknown.test'));
  });

  const sent = async (path: string): Promise<Record<string, string>> => (JSON.parse((await httpsGet(portico.https, 'a.test', path)).body) as { headers: Record<string, string> }).headers;

  void it('proxy-add-original-uri-header: off by default as in ingress-nginx; on, backends get the request URI as sent', async () => {
    assert.equal((await sent('/p?q=1'))['x-original-uri'], undefined);
    write({ 'proxy-add-original-uri-header': 'true' });
    await until('X-Original-URI is sent', async () => (await sent('/p?q=1'))['x-original-uri'] === '/p?q=1');
    write({ 'proxy-add-original-uri-header': 'yes please' });
    await until('the refusal logged', () => portico.output.some((l) => l.includes('proxy-add-original-uri-header') && l.includes('keeping the previous value')));
    assert.equal((await sent('/r'))['x-original-uri'], '/r', 'a refused value keeps the previous one');
    write({});
    await until('X-Original-URI is gone', async () => (await sent('/p'))['x-original-uri'] === undefined);
  });
});
