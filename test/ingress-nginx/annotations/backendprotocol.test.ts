// ingress-nginx e2e annotations/backendprotocol.go: backend-protocol HTTPS (any case), AUTO_HTTP, GRPC, GRPCS and FCGI,
// read from what real backends of each protocol received: HTTP and HTTPS servers that say which they are, gRPC servers
// in plain text and over TLS, and a FastCGI responder.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttp, type IncomingMessage, type ServerResponse } from 'node:http';
import { createServer as createHttps } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { unaryText } from '../../support/grpc-backends.js';
import { httpsGet, makeCert, type Pem } from '../../support/certs.js';
import { startFcgiResponder, type FcgiResponder } from '../../support/fastcgi-responder.js';
import { backendObjects } from '../../support/manifests.js';
import { until } from '../../support/portico.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

/** An HTTP or HTTPS backend that answers {"tls": bool}: which of the two nginx spoke to it. */
async function startWebBackend(pem?: Pem): Promise<{ port: number; close(): Promise<void> }> {
  const answer = (req: IncomingMessage, res: ServerResponse) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ tls: pem !== undefined }));
  };
  const server = pem === undefined ? createHttp(answer) : createHttps({ cert: pem.cert, key: pem.key }, answer);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => {
          resolve();
        });
      }),
  };
}

/** One unary gRPC method with string messages: no .proto needed. */
const ECHO = { echo: unaryText('/portico.test.Echo/Echo') } satisfies grpc.ServiceDefinition;
type EchoClient = grpc.Client & { echo: (req: string, cb: (err: grpc.ServiceError | null, reply?: string) => void) => void };

async function startGrpc(tag: string, creds: grpc.ServerCredentials): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server();
  server.addService(ECHO, {
    echo: (call: grpc.ServerUnaryCall<string, string>, cb: grpc.sendUnaryData<string>) => {
      cb(null, `${tag} ${call.request}`);
    },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.bindAsync('127.0.0.1:0', creds, (err, p) => {
      if (err) reject(err);
      else resolve(p);
    });
  });
  return { port, server };
}

void describe('annotations/backendprotocol.go', () => {
  let s: Suite;
  let web: Awaited<ReturnType<typeof startWebBackend>>;
  let secureWeb: Awaited<ReturnType<typeof startWebBackend>>;
  let plainGrpc: Awaited<ReturnType<typeof startGrpc>>;
  let tlsGrpc: Awaited<ReturnType<typeof startGrpc>>;
  let fcgi: FcgiResponder;
  let ca: Pem;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-backendprotocol-'));
  const HOSTS = ['https', 'lowercase', 'auto', 'grpc', 'grpcs', 'fcgi'].map((h) => `${h}.backendprotocol.test`);
  const host = (h: string) => `${h}.backendprotocol.test`;
  // Every host has TLS (gRPC needs HTTP/2, which Portico's HTTPS port speaks); ssl-redirect off keeps plain HTTP served.
  const viaTls = (i: ReturnType<typeof ing>) => ({ ...i, spec: { ...i.spec, tls: [{ hosts: HOSTS, secretName: 'bp-tls' }] } });
  const tlsOf = async (h: string, https = false): Promise<boolean | number> => {
    const r = https ? await httpsGet(s.portico.https, host(h), '/') : await s.get(host(h), '/');
    return r.status === 200 ? (JSON.parse(r.body) as { tls: boolean }).tls : r.status;
  };
  const call = (h: string) => {
    const Client = grpc.makeGenericClientConstructor(ECHO, 'Echo');
    const c = new Client(`127.0.0.1:${s.portico.https}`, grpc.credentials.createSsl(Buffer.from(ca.cert)), {
      'grpc.ssl_target_name_override': host(h),
      'grpc.default_authority': host(h),
    }) as unknown as EchoClient;
    return new Promise<string | undefined>((resolve, reject) => {
      c.echo('portico', (err, res) => {
        c.close();
        if (err) reject(err);
        else resolve(res);
      });
    });
  };
  before(async () => {
    ca = makeCert(certDir, 'Backend protocol CA', { isCa: true });
    const backendPem = makeCert(certDir, 'backend.test', { sans: ['backend.test'], ca });
    web = await startWebBackend();
    secureWeb = await startWebBackend(backendPem);
    plainGrpc = await startGrpc('grpc', grpc.ServerCredentials.createInsecure());
    tlsGrpc = await startGrpc('grpcs', grpc.ServerCredentials.createSsl(null, [{ private_key: Buffer.from(backendPem.key), cert_chain: Buffer.from(backendPem.cert) }]));
    fcgi = await startFcgiResponder();
    s = await startSuite({ objects: [tlsSecret('bp-tls', makeCert(certDir, HOSTS[0] ?? '', { sans: HOSTS, ca }))] });
    const at = (h: string, service: string, protocol: string) => viaTls(ing(h, host(h), { service, annotations: ann({ 'backend-protocol': protocol, 'ssl-redirect': 'false' }) }));
    await s.put(
      'backendprotocol.json',
      [
        ...backendObjects('web', web.port),
        ...backendObjects('secure-web', secureWeb.port),
        ...backendObjects('grpc', plainGrpc.port),
        ...backendObjects('grpcs', tlsGrpc.port),
        ...backendObjects('fcgi', fcgi.port),
        at('https', 'secure-web', 'HTTPS'),
        at('lowercase', 'secure-web', 'https'),
        at('auto', 'web', 'AUTO_HTTP'),
        at('grpc', 'grpc', 'GRPC'),
        at('grpcs', 'grpcs', 'GRPCS'),
        at('fcgi', 'fcgi', 'FCGI'),
      ],
      async () => (await s.get(host('fcgi'), '/')).headers['x-responder'] === 'fastcgi' && (await tlsOf('https')) === true,
    );
  });
  after(async () => {
    await s.stop();
    await web.close();
    await secureWeb.close();
    plainGrpc.server.forceShutdown();
    tlsGrpc.server.forceShutdown();
    await fcgi.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should set backend protocol to https:// and use proxy_pass', async () => {
    assert.equal(await tlsOf('https'), true);
    assert.equal(await tlsOf('https', true), true);
  });

  test('should set backend protocol to https:// and use proxy_pass with lowercase annotation', async () => {
    assert.equal(await tlsOf('lowercase'), true);
  });

  test('should set backend protocol to $scheme:// and use proxy_pass', async () => {
    // The backend speaks HTTP only: HTTP in reaches it; HTTPS in makes nginx speak TLS to it, which fails (502).
    assert.equal(await tlsOf('auto'), false, 'HTTP in, HTTP to the backend');
    const n = s.portico.output.length;
    assert.equal(await tlsOf('auto', true), 502, 'HTTPS in, HTTPS to the backend');
    await until('nginx logs the TLS handshake with the backend', () => s.portico.output.slice(n).some((l) => l.includes('SSL') && l.includes('auto.backendprotocol.test')), 5000);
  });

  test('should set backend protocol to grpc:// and use grpc_pass', async () => {
    assert.equal(await call('grpc'), 'grpc portico');
  });

  test('should set backend protocol to grpcs:// and use grpc_pass', async () => {
    assert.equal(await call('grpcs'), 'grpcs portico');
  });

  test("should set backend protocol to '' and use fastcgi_pass", async () => {
    const r = await s.get(host('fcgi'), '/');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-responder'], 'fastcgi');
  });
});
