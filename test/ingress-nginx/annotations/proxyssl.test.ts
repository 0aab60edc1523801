// ingress-nginx e2e annotations/proxyssl.go: proxy-ssl-* on an Ingress with TLS and a plain HTTP backend (as upstream:
// no backend-protocol, so the backend TLS settings are accepted and change nothing on the wire): HTTP answers the
// HTTPS redirect, HTTPS reaches the backend. proxy-ssl-ciphers is also shown on the wire, with HTTPS backends that
// take one cipher each.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsGet, makeCert, type Pem } from '../../support/certs.js';
import type { Echo } from '../../support/backends.js';
import { service, slice } from '../../support/objects.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const HOST = 'proxyssl.foo.com';
const b64 = (t: string): string => Buffer.from(t).toString('base64');

void describe('annotations/proxyssl.go', () => {
  let s: Suite;
  let client: Pem;
  const tlsBackends: Server[] = [];
  const certDir = mkdtempSync(join(tmpdir(), 'portico-proxyssl-'));
  /** The Ingress of one case; x-forwarded-prefix marks the case, so the backend's answer shows which one is served. */
  const objects = (marker: string, extra: Record<string, string>) => {
    const i = ing('proxyssl', HOST, { annotations: ann({ 'proxy-ssl-secret': `default/${HOST}`, 'x-forwarded-prefix': `/${marker}`, ...extra }) });
    return [{ ...i, spec: { ...i.spec, tls: [{ hosts: [HOST], secretName: HOST }] } }];
  };
  const served = async (marker: string) => {
    const r = await httpsGet(s.portico.https, HOST, '/', client);
    return r.status === 200 && (JSON.parse(r.body) as Echo).headers['x-forwarded-prefix'] === `/${marker}`;
  };
  const put = (marker: string, extra: Record<string, string>) => s.put('proxyssl.json', objects(marker, extra), () => served(marker));
  /** HTTP answers the HTTPS redirect; HTTPS reaches the backend with this case's Ingress. */
  const check = async (marker: string) => {
    assert.equal((await s.get(HOST, '/')).status, 308);
    assert.ok(await served(marker), `HTTPS reaches the backend through the Ingress of case ${marker}`);
  };
  before(async () => {
    const ca = makeCert(certDir, 'proxyssl CA', { isCa: true });
    const server = makeCert(certDir, HOST, { sans: [HOST], ca });
    client = makeCert(certDir, 'proxyssl client', { ca });
    // As framework.CreateIngressMASecret: one Secret with the CA, the certificate and its key.
    const secret = {
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'Opaque',
      metadata: { name: HOST, namespace: 'default' },
      data: { 'ca.crt': b64(ca.cert), 'tls.crt': b64(server.cert), 'tls.key': b64(server.key) },
    };
    // Two HTTPS backends speaking TLS 1.2 only, each with one cipher: one of AES, one of ChaCha20.
    const only = async (id: string, cipher: string) => {
      const b = createHttpsServer({ cert: server.cert, key: server.key, ciphers: cipher, minVersion: 'TLSv1.2', maxVersion: 'TLSv1.2' }, (_req, res) => {
        res.writeHead(200, { 'x-backend': id });
        res.end(id);
      });
      await new Promise<void>((resolve) => b.listen(0, '127.0.0.1', resolve));
      tlsBackends.push(b);
      return [service(id), slice(id, (b.address() as AddressInfo).port, ['127.0.0.1'])];
    };
    s = await startSuite({ objects: [secret, ...(await only('aes', 'ECDHE-ECDSA-AES128-GCM-SHA256')), ...(await only('chacha', 'ECDHE-ECDSA-CHACHA20-POLY1305'))] });
  });
  after(async () => {
    await s.stop();
    for (const b of tlsBackends) b.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should set valid proxy-ssl-secret', async () => {
    await put('secret', {});
    await check('secret');
  });

  test('should set valid proxy-ssl-secret, proxy-ssl-verify to on, proxy-ssl-verify-depth to 2, and proxy-ssl-server-name to on', async () => {
    await put('verify', { 'proxy-ssl-verify': 'on', 'proxy-ssl-verify-depth': '2', 'proxy-ssl-server-name': 'on', 'proxy-ssl-name': HOST });
    await check('verify');
  });

  test('should set valid proxy-ssl-secret, proxy-ssl-ciphers to HIGH:!AES', async () => {
    await put('ciphers', { 'proxy-ssl-ciphers': 'HIGH:!AES' });
    await check('ciphers');
    // On the wire: with HTTPS to the backend, HIGH:!AES reaches the ChaCha20 backend and no longer the AES one
    // (nginx's default list, DEFAULT, reaches both: the plain Ingress shows it).
    const to = (name: string, svc: string, extra: Record<string, string>) =>
      ing(name, `${name}.proxyssl.test`, { service: svc, annotations: ann({ 'backend-protocol': 'HTTPS', 'proxy-ssl-secret': `default/${HOST}`, 'proxy-ssl-protocols': 'TLSv1.2', ...extra }) });
    const ciphers = { 'proxy-ssl-ciphers': 'HIGH:!AES' };
    await s.put('wire.json', [to('aes', 'aes', ciphers), to('chacha', 'chacha', ciphers), to('plain-aes', 'aes', {})], async () => (await s.get('chacha.proxyssl.test', '/')).status === 200);
    // The AES backend is asked through HIGH:!AES before anything else reaches it: nginx keeps upstream connections
    // alive per address, so a connection the plain Ingress opened could serve the other location without a handshake.
    assert.equal((await s.get('aes.proxyssl.test', '/')).status, 502);
    assert.equal((await s.get('chacha.proxyssl.test', '/')).headers['x-backend'], 'chacha');
    assert.equal((await s.get('plain-aes.proxyssl.test', '/')).headers['x-backend'], 'aes');
  });

  test('should set valid proxy-ssl-secret, proxy-ssl-protocols', async () => {
    await put('protocols', { 'proxy-ssl-protocols': 'TLSv1.2 TLSv1.3' });
    await check('protocols');
  });
});
