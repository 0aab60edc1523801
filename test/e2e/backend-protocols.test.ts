// End to end, real nginx: HTTPS to a TLS backend verified with proxy-ssl-secret (and a client certificate), a
// backend from another CA refused (502), a missing Secret closed (503), and gRPC through Portico's HTTPS port.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { unaryText } from '../support/grpc-backends.js';
import { httpsGet, makeCert, type Pem } from '../support/certs.js';
import { startPortico, until, type Running } from '../support/portico.js';
import { ingress, service, slice } from '../support/objects.js';
import { tlsSecret, writeManifests } from '../support/tls-manifests.js';

const A = 'nginx.ingress.kubernetes.io';
const b64 = (t: string): string => Buffer.from(t).toString('base64');

/** An HTTPS backend on 127.0.0.1 that asks for a client certificate and answers with what it saw. */
async function tlsBackend(pem: Pem, clientCa: Pem): Promise<{ server: Server; port: number }> {
  const server = createServer({ cert: pem.cert, key: pem.key, ca: [clientCa.cert], requestCert: true, rejectUnauthorized: false }, (req, res) => {
    const socket = req.socket;
    if (!(socket instanceof TLSSocket)) throw new Error('not a TLS socket');
    const peer = socket.getPeerCertificate();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ authorized: socket.authorized, cn: peer.subject?.CN ?? null, sni: (socket as TLSSocket & { servername?: string }).servername ?? null }));
  });
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  return { server, port: (server.address() as AddressInfo).port };
}

/** One unary gRPC method with string messages: no .proto needed. */
const ECHO = { echo: unaryText('/portico.test.Echo/Echo') } satisfies grpc.ServiceDefinition;

type EchoClient = grpc.Client & { echo: (req: string, cb: (err: grpc.ServiceError | null, reply?: string) => void) => void };

void describe('backend protocols', () => {
  let fixtures: string;
  let manifests: string;
  let portico: Running;
  let good: { server: Server; port: number };
  let stranger: { server: Server; port: number };
  let grpcServer: grpc.Server;
  let grpcPort: number;
  let ca: Pem;

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-bp-fixtures-'));
    manifests = mkdtempSync(join(tmpdir(), 'portico-bp-manifests-'));
    ca = makeCert(fixtures, 'Backend CA', { isCa: true });
    const otherCa = makeCert(fixtures, 'Other CA', { isCa: true });
    const client = makeCert(fixtures, 'portico-client', { ca });
    good = await tlsBackend(makeCert(fixtures, 'backend.test', { sans: ['backend.test'], ca }), ca);
    stranger = await tlsBackend(makeCert(fixtures, 'backend.test', { sans: ['backend.test'], ca: otherCa }), ca);
    grpcServer = new grpc.Server();
    grpcServer.addService(ECHO, {
      echo: (call: grpc.ServerUnaryCall<string, string>, cb: grpc.sendUnaryData<string>) => {
        cb(null, `hello ${call.request}`);
      },
    });
    grpcPort = await new Promise<number>((resolve, reject) => {
      grpcServer.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, port) => {
        if (err) reject(err);
        else resolve(port);
      });
    });
    const tlsAnn = (secret: string): Record<string, string> => ({
      [`${A}/backend-protocol`]: 'HTTPS',
      [`${A}/proxy-ssl-secret`]: secret,
      [`${A}/proxy-ssl-verify`]: 'on',
      [`${A}/proxy-ssl-name`]: 'backend.test',
      [`${A}/proxy-ssl-server-name`]: 'on',
    });
    const at = (name: string, host: string, svc: string, annotations: Record<string, string>): unknown =>
      ingress(name, { host, className: 'portico', paths: [{ path: '/', type: 'Prefix', service: svc, port: 443 }], annotations });
    const grpcIngress = ingress('grpc', {
      host: 'grpc.test',
      className: 'portico',
      paths: [{ path: '/', type: 'Prefix', service: 'grpc', port: 443 }],
      annotations: { [`${A}/backend-protocol`]: 'GRPC' },
    });
    writeManifests(manifests, [
      { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata: { name: 'portico' }, spec: { controller: 'portico.dev/ingress-controller' } },
      service('good', 'default', [{ name: 'https', port: 443 }]),
      slice('good', good.port, ['127.0.0.1'], { portName: 'https' }),
      service('stranger', 'default', [{ name: 'https', port: 443 }]),
      slice('stranger', stranger.port, ['127.0.0.1'], { portName: 'https' }),
      service('grpc', 'default', [{ name: 'https', port: 443 }]),
      slice('grpc', grpcPort, ['127.0.0.1'], { portName: 'https' }),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'Opaque',
        metadata: { name: 'backend-ca', namespace: 'default' },
        data: { 'ca.crt': b64(ca.cert), 'tls.crt': b64(client.cert), 'tls.key': b64(client.key) },
      },
      tlsSecret('grpc-tls', makeCert(fixtures, 'grpc.test', { sans: ['grpc.test'], ca })),
      at('good', 'good.test', 'good', tlsAnn('backend-ca')),
      at('stranger', 'stranger.test', 'stranger', tlsAnn('backend-ca')),
      at('missing', 'missing.test', 'good', tlsAnn('no-such-secret')),
      // another namespace's Ingress to the same backend address over HTTPS, with no client certificate of its own
      service('shared', 'tenant-b', [{ name: 'https', port: 443 }]),
      slice('shared', good.port, ['127.0.0.1'], { namespace: 'tenant-b', portName: 'https' }),
      ingress('plain', {
        namespace: 'tenant-b',
        host: 'plain.test',
        className: 'portico',
        paths: [{ path: '/', type: 'Prefix', service: 'shared', port: 443 }],
        annotations: { [`${A}/backend-protocol`]: 'HTTPS' },
      }),
      { ...grpcIngress, spec: { ...grpcIngress.spec, tls: [{ hosts: ['grpc.test'], secretName: 'grpc-tls' }] } },
    ]);
    portico = await startPortico(['--manifests', manifests]);
  });

  after(async () => {
    await portico?.stop();
    await new Promise((resolve) => {
      good?.server.close(resolve);
    });
    await new Promise((resolve) => {
      stranger?.server.close(resolve);
    });
    grpcServer?.forceShutdown();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });

  void it('HTTPS to a backend whose certificate the Secret CA signed: 200, with SNI and the client certificate', async () => {
    await until('good.test proxied', async () => (await httpsGet(portico.https, 'good.test', '/')).status === 200, 15_000);
    const r = await httpsGet(portico.https, 'good.test', '/');
    assert.deepEqual(JSON.parse(r.body), { authorized: true, cn: 'portico-client', sni: 'backend.test' });
  });

  void it("another namespace's HTTPS Ingress to the same backend address never rides a connection opened with this one's client certificate", async () => {
    await until('plain.test proxied', async () => (await httpsGet(portico.https, 'plain.test', '/')).status === 200, 15_000);
    // nginx keeps backend connections alive per upstream{} block and worker: alternate, so a pooled connection
    // opened for good.test (with the client certificate) would be offered to plain.test if the pool were shared
    const seen: (string | null)[] = [];
    for (let i = 0; i < 12; i++) {
      assert.equal((JSON.parse((await httpsGet(portico.https, 'good.test', '/')).body) as { cn: string | null }).cn, 'portico-client');
      const r = await httpsGet(portico.https, 'plain.test', '/');
      assert.equal(r.status, 200);
      seen.push((JSON.parse(r.body) as { cn: string | null }).cn);
    }
    assert.deepEqual(seen, Array<null>(12).fill(null), 'tenant-b was never presented with default/backend-ca');
  });

  void it('the CA and client files are 0600 in the work dir, named by digest', () => {
    const names = readdirSync(join(portico.workDir, 'ssl'))
      .filter((n) => /^(ca|proxy-client)-[0-9a-f]{32}\.pem$/.test(n))
      .sort();
    assert.equal(names.length, 2, names.join(','));
    for (const n of names) assert.equal(statSync(join(portico.workDir, 'ssl', n)).mode & 0o777, 0o600);
  });

  void it('a backend certificate from another CA: 502, never proxied unverified', async () => {
    const r = await httpsGet(portico.https, 'stranger.test', '/');
    assert.equal(r.status, 502);
    await until('nginx logs the failed verification', () => portico.output.some((l) => l.includes('upstream SSL certificate verify error')), 5000);
  });

  void it('a missing proxy-ssl-secret: 503 and a Problem naming the Ingress, annotation and why', async () => {
    const r = await httpsGet(portico.https, 'missing.test', '/');
    assert.equal(r.status, 503);
    const line = portico.output.find((l) => l.includes('no-such-secret'));
    assert.ok(line, 'a warning names the Secret');
    assert.match(line, /Ingress default\/missing/);
    assert.match(line, /proxy-ssl-secret/);
    assert.match(line, /Secret default\/no-such-secret not found/);
  });

  void it('gRPC through the HTTPS port (HTTP/2) to a real gRPC backend: the reply arrives', async () => {
    const Client = grpc.makeGenericClientConstructor(ECHO, 'Echo');
    const c = new Client(`127.0.0.1:${portico.https}`, grpc.credentials.createSsl(Buffer.from(ca.cert)), {
      'grpc.ssl_target_name_override': 'grpc.test',
      'grpc.default_authority': 'grpc.test',
    }) as unknown as EchoClient;
    try {
      const reply = await new Promise<string | undefined>((resolve, reject) => {
        c.echo('portico', (err, res) => {
          if (err) reject(err);
          else resolve(res);
        });
      });
      assert.equal(reply, 'hello portico');
    } finally {
      c.close();
    }
  });
});
