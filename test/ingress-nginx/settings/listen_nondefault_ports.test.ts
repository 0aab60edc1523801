// ingress-nginx e2e settings/listen_nondefault_ports.go: X-Forwarded-Port is the port the client reached. Here the
// traffic ports are free ports chosen by the harness (ingress-nginx's test reaches 1080 for HTTP and 443 for HTTPS).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'node:https';
import { makeCert } from '../../support/certs.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ann, echoed, ing, startEcho, startSuite, type Suite } from '../harness.js';
import type { Backend } from '../../support/backends.js';

const HOST = 'forwarded-headers';

/** One HTTPS request with `headers` (any certificate accepted): status and body. */
function httpsGet(port: number, host: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', servername: host, headers: { host, ...headers }, rejectUnauthorized: false, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', reject);
    req.end();
  });
}

void describe('settings/listen_nondefault_ports.go', () => {
  let s: Suite;
  let auth: Backend;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-ports-'));
  const withTls = (name: string, host: string, annotations?: Record<string, string>) => {
    const base = ing(name, host, annotations ? { annotations } : {});
    return { ...base, spec: { ...base.spec, tls: [{ hosts: [host], secretName: 'ports-tls' }] } };
  };
  /** The X-Forwarded-Port the echo backend received over HTTPS (with `headers`), or undefined when it did not answer. */
  const httpsPort = async (host: string, headers: Record<string, string> = {}) => {
    const r = await httpsGet(s.portico.https, host, headers);
    return r.status === 200 ? (JSON.parse(r.body) as { headers: Record<string, string> }).headers['x-forwarded-port'] : undefined;
  };

  before(async () => {
    const pem = makeCert(certDir, HOST, { sans: [HOST, `auth.${HOST}`] });
    auth = await startEcho('auth');
    s = await startSuite({ objects: [tlsSecret('ports-tls', pem)] });
  });
  after(async () => {
    await s.stop();
    await auth.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should set X-Forwarded-Port headers accordingly when listening on a non-default HTTP port', async () => {
    await s.put('plain.json', [ing('plain', `plain.${HOST}`)], async () => (await s.get(`plain.${HOST}`, '/')).status === 200);
    const r = await s.get(`plain.${HOST}`, '/');
    assert.equal(r.status, 200);
    assert.equal(echoed(r).headers['x-forwarded-port'], String(s.portico.http));
  });

  test('should set X-Forwarded-Port header to 443', async () => {
    await s.put('tls.json', [withTls('tls', HOST)], async () => (await httpsPort(HOST)) !== undefined);
    assert.equal(await httpsPort(HOST), String(s.portico.https));
  });

  test('should set the X-Forwarded-Port header to 443', async () => {
    const annotations = ann({ 'auth-url': `http://127.0.0.1:${auth.port}/basic-auth/user/password`, 'auth-signin': 'http://$host/auth/start' });
    const basic = { authorization: `Basic ${Buffer.from('user:password').toString('base64')}` };
    await s.put('auth.json', [withTls('auth', `auth.${HOST}`, annotations)], async () => (await httpsPort(`auth.${HOST}`, basic)) !== undefined && auth.seen.length > 0);
    assert.equal(await httpsPort(`auth.${HOST}`, basic), String(s.portico.https));
    assert.equal(auth.seen.at(-1)?.url, '/basic-auth/user/password');
  });
});
