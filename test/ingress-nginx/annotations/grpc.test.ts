// ingress-nginx e2e annotations/grpc.go: backend-protocol GRPC and GRPCS through Portico's HTTPS port (HTTP/2) to real
// gRPC servers that answer with the metadata they received; auth response headers replacing metadata; gRPC timeouts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { unaryText } from '../../support/grpc-backends.js';
import { makeCert, type Pem } from '../../support/certs.js';
import { backendObjects } from '../../support/manifests.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

/** One unary method with string messages: the request is a delay in seconds, the reply the metadata seen, as JSON. */
const HEADERS = { unary: unaryText('/portico.test.Bin/HeadersUnary') } satisfies grpc.ServiceDefinition;
type BinClient = grpc.Client & { unary: (req: string, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, reply?: string) => void) => void };

async function startBin(creds: grpc.ServerCredentials): Promise<{ port: number; server: grpc.Server }> {
  const server = new grpc.Server();
  server.addService(HEADERS, {
    unary: (call: grpc.ServerUnaryCall<string, string>, cb: grpc.sendUnaryData<string>) => {
      const seen = JSON.stringify(call.metadata.getMap());
      const delay = Math.min(Number(call.request) || 0, 30);
      if (delay === 0) cb(null, seen);
      else
        setTimeout(() => {
          cb(null, seen);
        }, delay * 1000);
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

void describe('annotations/grpc.go', () => {
  let s: Suite;
  let plain: Awaited<ReturnType<typeof startBin>>;
  let secure: Awaited<ReturnType<typeof startBin>>;
  let auth: Server;
  let ca: Pem;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-grpc-'));
  const HOSTS = ['grpc', 'grpc-auth', 'grpcs', 'grpc-delay'].map((h) => `${h}.foo.com`);
  /** A unary call through Portico's HTTPS port for `host`; resolves with the metadata the backend saw. */
  const call = (host: string, request = '0', md = new grpc.Metadata()) => {
    const Client = grpc.makeGenericClientConstructor(HEADERS, 'Bin');
    const c = new Client(`127.0.0.1:${s.portico.https}`, grpc.credentials.createSsl(Buffer.from(ca.cert)), {
      'grpc.ssl_target_name_override': host,
      'grpc.default_authority': host,
    }) as unknown as BinClient;
    return new Promise<Record<string, unknown>>((resolve, reject) => {
      c.unary(request, md, { deadline: Date.now() + 20_000 }, (err, reply) => {
        c.close();
        if (err) reject(err);
        else resolve(JSON.parse(reply ?? '{}') as Record<string, unknown>);
      });
    });
  };
  before(async () => {
    ca = makeCert(certDir, 'gRPC CA', { isCa: true });
    const backendPem = makeCert(certDir, 'grpcbin.test', { sans: ['grpcbin.test'], ca });
    plain = await startBin(grpc.ServerCredentials.createInsecure());
    secure = await startBin(grpc.ServerCredentials.createSsl(null, [{ private_key: Buffer.from(backendPem.key), cert_chain: Buffer.from(backendPem.cert) }]));
    // httpbun's /response-headers?authorization=foo: an auth service that answers 200 with Authorization: foo.
    auth = createServer((req, res) => {
      req.resume();
      res.writeHead(200, { authorization: 'foo' });
      res.end();
    });
    await new Promise<void>((resolve) => auth.listen(0, '127.0.0.1', resolve));
    s = await startSuite({
      args: ['--snippet-mode', 'any', '--annotations-risk-level', 'Critical'],
      config: { 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' },
      objects: [tlsSecret('grpc-tls', makeCert(certDir, HOSTS[0] ?? '', { sans: HOSTS, ca }))],
    });
    const withTls = (i: ReturnType<typeof ing>) => ({ ...i, spec: { ...i.spec, tls: [{ hosts: HOSTS, secretName: 'grpc-tls' }] } });
    const at = (name: string, service: string, a: Record<string, string>) => withTls(ing(name, `${name}.foo.com`, { service, annotations: ann(a) }));
    // proxy-*-timeout 2 s (ingress-nginx's test: 10 s) keeps the run short; the call that must time out waits 4 s.
    const timeouts = { 'proxy-connect-timeout': '2', 'proxy-send-timeout': '2', 'proxy-read-timeout': '2' };
    await s.put(
      'grpc.json',
      [
        ...backendObjects('grpcbin-test', plain.port),
        ...backendObjects('grpcbin-tls', secure.port),
        at('grpc', 'grpcbin-test', { 'backend-protocol': 'GRPC' }),
        at('grpc-auth', 'grpcbin-test', {
          'backend-protocol': 'GRPC',
          'auth-url': `http://127.0.0.1:${(auth.address() as AddressInfo).port}/response-headers?authorization=foo`,
          'auth-response-headers': 'Authorization',
        }),
        at('grpcs', 'grpcbin-tls', {
          'backend-protocol': 'GRPCS',
          'configuration-snippet': '\n   # without this setting NGINX sends echo instead\n   grpc_ssl_name grpcbin.test;\n   grpc_ssl_server_name on;\n   grpc_ssl_ciphers HIGH:!aNULL:!MD5;\n',
        }),
        at('grpc-delay', 'grpcbin-test', { 'backend-protocol': 'GRPC', ...timeouts }),
      ],
      async () =>
        (await call('grpc-delay.foo.com').then(
          () => true,
          () => false,
        )) &&
        call('grpcs.foo.com').then(
          () => true,
          () => false,
        ),
    );
  });
  after(async () => {
    await s.stop();
    plain.server.forceShutdown();
    secure.server.forceShutdown();
    auth.closeAllConnections();
    auth.close();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should return OK for service with backend protocol GRPC', async () => {
    const md = await call('grpc.foo.com');
    // grpc-js hands a server the metadata without HTTP/2 pseudo-headers: the user agent shows a gRPC client's
    // request arrived; the authority is the gRPC channel's own (checked by the TLS name of the call).
    assert.match(String(md['user-agent']), /grpc-node-js/);
  });

  test('authorization metadata should be overwritten by external auth response headers', async () => {
    const md = new grpc.Metadata();
    md.set('authorization', 'bar');
    assert.equal((await call('grpc-auth.foo.com', '0', md))['authorization'], 'foo');
  });

  test('should return OK for service with backend protocol GRPCS', async () => {
    assert.match(String((await call('grpcs.foo.com'))['user-agent']), /grpc-node-js/);
  });

  test('should return OK when request not exceed timeout', async () => {
    assert.match(String((await call('grpc-delay.foo.com', '1'))['user-agent']), /grpc-node-js/);
  });

  test('should return Error when request exceed timeout', async () => {
    await assert.rejects(call('grpc-delay.foo.com', '4'), (err: grpc.ServiceError) => err.code !== grpc.status.OK);
  });
});
