// ingress-nginx e2e settings/tls.go: ssl-ciphers and ssl-protocols as a TLS client negotiates them, the HSTS header
// (hsts-max-age, hsts-include-subdomains, hsts-preload; a backend's own header is replaced) and the HTTP to HTTPS
// redirect without ports or X-Forwarded-Host ports.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { request } from 'node:https';
import type { AddressInfo, Server } from 'node:net';
import { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { tlsSecret } from '../../support/tls-manifests.js';
import { backendObjects } from '../../support/manifests.js';
import { ing, startSuite, type Suite } from '../harness.js';

const HOST = 'settings-tls';
const CIPHERS = 'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-SHA';

interface TlsAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  rawHeaders: string[];
  protocol: string | null;
  cipher: string;
}

/** One HTTPS request (fresh connection, any certificate accepted) and what TLS it was. */
function httpsGet(port: number, host: string, path: string): Promise<TlsAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path, servername: host, headers: { host }, rejectUnauthorized: false, agent: false, timeout: 10_000 }, (res) => {
      const sock = res.socket;
      const tlsInfo = sock instanceof TLSSocket ? { protocol: sock.getProtocol(), cipher: sock.getCipher().standardName } : { protocol: null, cipher: '' };
      res.resume();
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, rawHeaders: res.rawHeaders, ...tlsInfo });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

void describe('settings/tls.go', () => {
  let s: Suite;
  let sts: Server;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-settings-tls-'));
  const get = (path = '/') => httpsGet(s.portico.https, HOST, path);
  const hsts = async () => {
    const r = await get();
    return r.status === 200 ? r.headers['strict-transport-security'] : undefined;
  };

  before(async () => {
    // An RSA certificate: the upstream ciphers are ECDHE-RSA ones.
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(certDir, 'k.pem'),
        '-out',
        join(certDir, 'c.pem'),
        '-days',
        '2',
        '-subj',
        `/CN=${HOST}`,
        '-addext',
        `subjectAltName=DNS:${HOST}`,
      ],
      { stdio: 'ignore', timeout: 30_000 },
    );
    const pem = { cert: readFileSync(join(certDir, 'c.pem'), 'utf8'), key: readFileSync(join(certDir, 'k.pem'), 'utf8') };
    // A backend that sends its own Strict-Transport-Security header.
    sts = createServer((_req, res) => {
      res.writeHead(200, { 'strict-transport-security': 'max-age=10; includeSubDomains', 'x-backend': 'sts' });
      res.end('sts');
    });
    await new Promise<void>((resolve) => sts.listen(0, '127.0.0.1', resolve));
    s = await startSuite({ objects: [tlsSecret('settings-tls', pem), ...backendObjects('sts', (sts.address() as AddressInfo).port)] });
    const base = ing(HOST, HOST, {
      paths: [
        { path: '/', type: 'Prefix', service: 'echo' },
        { path: '/hsts', type: 'Prefix', service: 'sts' },
      ],
    });
    const withTls = { ...base, spec: { ...base.spec, tls: [{ hosts: [HOST], secretName: 'settings-tls' }] } };
    await s.put('ingress.json', [withTls], async () => {
      const r = await get();
      return r.status === 200 && r.headers['x-backend'] === 'echo';
    });
  });
  after(async () => {
    await s.stop();
    await new Promise<void>((resolve) =>
      sts.close(() => {
        resolve();
      }),
    );
    rmSync(certDir, { recursive: true, force: true });
  });

  test('setting cipher suite', async () => {
    await s.config({ 'ssl-ciphers': CIPHERS, 'ssl-protocols': 'TLSv1.2' }, async () => (await get()).protocol === 'TLSv1.2');
    const r = await get();
    assert.equal(r.status, 200);
    assert.equal(r.protocol, 'TLSv1.2');
    assert.equal(r.cipher, 'TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384');
  });

  test('setting max-age parameter', async () => {
    await s.config({ 'hsts-max-age': '86400' }, async () => (await hsts()) === 'max-age=86400; includeSubDomains');
    assert.equal(await hsts(), 'max-age=86400; includeSubDomains');
  });

  test('setting includeSubDomains parameter', async () => {
    await s.config({ 'hsts-max-age': '86400', 'hsts-include-subdomains': 'false' }, async () => (await hsts()) === 'max-age=86400');
    assert.equal(await hsts(), 'max-age=86400');
  });

  test('setting preload parameter', async () => {
    const cfg = { 'hsts-max-age': '86400', 'hsts-preload': 'true', 'hsts-include-subdomains': 'false' };
    await s.config(cfg, async () => (await hsts()) === 'max-age=86400; preload');
    assert.equal(await hsts(), 'max-age=86400; preload');
  });

  test("overriding what's set from the upstream", async () => {
    const r = await get('/hsts?hsts=true');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-backend'], 'sts');
    assert.equal(r.headers['strict-transport-security'], 'max-age=86400; preload');
    assert.equal(r.rawHeaders.filter((h) => h.toLowerCase() === 'strict-transport-security').length, 1);
  });

  test('should not use ports during the HTTP to HTTPS redirection', async () => {
    const r = await s.get(HOST, '/');
    assert.equal(r.status, 308);
    // Portico's Location ends in "/" where ingress-nginx's test reads "https://settings-tls"; the same resource.
    assert.equal(r.headers['location'], `https://${HOST}/`);
  });

  test('should not use ports or X-Forwarded-Host during the HTTP to HTTPS redirection', async () => {
    // Under use-forwarded-headers the redirect goes to X-Forwarded-Host without its port (as ingress-nginx); the
    // Location ends in "/" as in the test above.
    const redirect = async () => (await s.get(HOST, '/', { headers: { 'x-forwarded-host': 'example.com:80' } })).headers['location'];
    await s.config({ 'use-forwarded-headers': 'true' }, async () => (await redirect()) === 'https://example.com/');
    assert.equal(await redirect(), 'https://example.com/');
    // the first of a list; a value that is no host name leaves the request's host
    const forwarded = async (v: string) => (await s.get(HOST, '/', { headers: { 'x-forwarded-host': v } })).headers['location'];
    assert.equal(await forwarded('first.example:8080, second.example'), 'https://first.example/');
    assert.equal(await forwarded('evil.example/x?'), `https://${HOST}/`);
  });
});
