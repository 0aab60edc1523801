// End to end: ssl-passthrough by SNI in front of the HTTPS listener, and terminated hosts unchanged behind it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer as createTlsServer, connect as tlsConnect, type Server as TlsServer } from 'node:tls';
import type { AddressInfo } from 'node:net';
import { startBackend, type Backend } from '../support/backends.js';
import { h2Get, httpsGet, makeCert, presented, type Pem } from '../support/certs.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';
import { caSecret, hostIngress, tlsSecret, webObjects, writeManifests } from '../support/tls-manifests.js';
import { service, slice } from '../support/objects.js';

const A = 'nginx.ingress.kubernetes.io';

/** A TLS backend with its own certificate: answers `id` on every connection. */
async function tlsBackend(id: string, pem: Pem): Promise<{ port: number; close: () => Promise<void> }> {
  const server: TlsServer = createTlsServer({ cert: pem.cert, key: pem.key }, (sock) => {
    sock.on('error', () => undefined);
    sock.end(`${id}\n`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise((r) => {
        server.close(() => {
          r();
        });
      }),
  };
}

/** What a TLS connection to `servername` reads (the backend's id when passed through). */
function tlsRead(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false, timeout: 5000 });
    let data = '';
    s.on('data', (c: Buffer) => {
      data += c.toString('utf8');
    });
    s.on('end', () => {
      resolve(data.trim());
    });
    s.on('timeout', () => {
      s.destroy();
      resolve(data.trim());
    });
    s.on('error', reject);
  });
}

describe('ssl-passthrough', () => {
  let fixtures = '';
  let manifests = '';
  let web: Backend;
  let p: Running;
  let own: Pem;
  let ca: Pem;
  let client: Pem;
  const pt: { port: number; close: () => Promise<void> }[] = [];
  let objects: (ptPort: number) => unknown[];

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-pt-fixtures-'));
    manifests = mkdtempSync(join(tmpdir(), 'portico-pt-manifests-'));
    own = makeCert(fixtures, 'portico-terminated', { sans: ['term.test', 'm.test'] });
    ca = makeCert(fixtures, 'Passthrough Test CA', { isCa: true });
    client = makeCert(fixtures, 'client', { ca });
    const backendPem = makeCert(fixtures, 'passthrough-backend', { sans: ['pt.test'] });
    pt.push(await tlsBackend('pt-1', backendPem), await tlsBackend('pt-2', backendPem));
    web = await startBackend('web');
    objects = (ptPort) => [
      ...webObjects(web.port),
      tlsSecret('own-tls', own),
      caSecret('client-ca', ca.cert),
      service('pt', 'default', [{ name: 'https', port: 443 }]),
      slice('pt', ptPort, ['127.0.0.1'], { portName: 'https' }),
      hostIngress('plain', 'plain.test'),
      hostIngress('term', 'term.test', { tls: [{ hosts: ['term.test'], secretName: 'own-tls' }] }),
      hostIngress('m', 'm.test', { tls: [{ hosts: ['m.test'], secretName: 'own-tls' }], annotations: { [`${A}/auth-tls-secret`]: 'default/client-ca', [`${A}/auth-tls-verify-client`]: 'on' } }),
      {
        ...hostIngress('pt', 'pt.test', { annotations: { [`${A}/ssl-passthrough`]: 'true' } }),
        spec: { ingressClassName: 'portico', rules: [{ host: 'pt.test', http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'pt', port: { number: 443 } } } }] } }] },
      },
      // A newer Ingress asking for passthrough on a host it does not own: refused, term.test stays terminated.
      hostIngress('thief', 'term.test', { created: '2026-06-01T00:00:00Z', annotations: { [`${A}/ssl-passthrough`]: 'true' } }),
    ];
    writeManifests(manifests, objects(pt[0]?.port ?? 0));
    p = await startPortico(['--manifests', manifests, '--enable-ssl-passthrough']);
  });

  after(async () => {
    await p?.stop();
    for (const b of pt) await b.close();
    await web?.close();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });

  test("the passthrough host shows its backend's certificate; another host on the same port is terminated by Portico", async () => {
    assert.equal((await presented(p.https, 'pt.test')).cn, 'passthrough-backend');
    assert.equal(await tlsRead(p.https, 'pt.test'), 'pt-1');
    assert.equal((await presented(p.https, 'term.test')).fingerprint, own.fingerprint);
    assert.notEqual((await presented(p.https, 'unknown.test')).cn, 'passthrough-backend');
    assert.ok(p.output.some((l) => l.includes('Ingress default/thief') && l.includes('ssl-passthrough takes every TLS connection for term.test')));
  });

  test('terminated hosts keep the client address, HTTP/2 and client-certificate auth; port 80 is unchanged', async () => {
    const r = await httpsGet(p.https, 'term.test', '/');
    assert.equal(r.status, 200);
    // Behind the front the HTTPS server reads a unix socket: without the PROXY line $remote_addr would be "unix:".
    assert.equal((JSON.parse(r.body) as { headers: Record<string, string> }).headers['x-real-ip'], '127.0.0.1');
    assert.deepEqual(await h2Get(p.https, 'term.test', '/'), { alpn: 'h2', status: 200 });
    assert.equal((await httpsGet(p.https, 'm.test', '/', client)).status, 200);
    assert.equal((await httpsGet(p.https, 'm.test', '/')).status, 400);
    assert.equal(await who(p.http, 'plain.test', '/'), 'web');
    assert.equal((await get(p.http, 'term.test', '/')).status, 308, 'a TLS host still redirects to HTTPS');
  });

  test('a passthrough backend follows an endpoint change', async () => {
    writeManifests(manifests, objects(pt[1]?.port ?? 0));
    await until('pt-2 answers', async () => (await tlsRead(p.https, 'pt.test')) === 'pt-2', 10_000, 50);
  });

  test('without --enable-ssl-passthrough the annotation is ignored with a Warning and the HTTPS listener is as before', async () => {
    const plain = await startPortico(['--manifests', manifests]);
    try {
      assert.equal((await presented(plain.https, 'pt.test')).fingerprint !== '', true);
      assert.notEqual((await presented(plain.https, 'pt.test')).cn, 'passthrough-backend');
      const conf = (await get(plain.healthz, 'localhost', '/debug/config')).body;
      assert.doesNotMatch(conf, /^stream \{|ngx_stream_module|ssl_preread|https\.sock/m);
      assert.match(conf, new RegExp(`listen ${plain.https} ssl`));
      assert.ok(plain.output.some((l) => l.includes('Ingress default/pt') && l.includes('without --enable-ssl-passthrough')));
    } finally {
      await plain.stop();
    }
  });
});
