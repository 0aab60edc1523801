// ingress-nginx e2e settings/grpc.go: grpc-buffer-size-kb sizes nginx's buffer for a gRPC backend's response headers,
// seen as a call whose answer carries a 5.5 KB header: refused by nginx's default buffer (one 4 KiB page), served
// under 8 KiB, through backend-protocol GRPC on Portico's HTTPS port.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as grpc from '@grpc/grpc-js';
import { unaryText } from '../../support/grpc-backends.js';
import { makeCert, type Pem } from '../../support/certs.js';
import { backendObjects } from '../../support/manifests.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { until } from '../../support/portico.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

const HOST = 'echo';
/** A header value whose HPACK encoding (about 4.8 KB) is larger than 4 KiB and smaller than 8 KiB. */
const BIG = 'x'.repeat(5500);

/** One unary method with string messages: the request `big` asks for the big response header; the reply is the authority and request content type seen. */
const BIN = { unary: unaryText('/portico.test.Bin/HeadersUnary') } satisfies grpc.ServiceDefinition;
type BinClient = grpc.Client & { unary: (req: string, md: grpc.Metadata, opts: grpc.CallOptions, cb: (err: grpc.ServiceError | null, reply?: string) => void) => grpc.ClientUnaryCall };

interface Answer {
  readonly authority: string;
  /** The x-big response header's length. */
  readonly big: number;
}

void describe('settings/grpc.go', () => {
  let s: Suite;
  let ca: Pem;
  let server: grpc.Server;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-settings-grpc-'));
  /** A unary call through Portico's HTTPS port; rejects with the gRPC error. */
  const call = (request: 'big' | 'small') => {
    const Client = grpc.makeGenericClientConstructor(BIN, 'Bin');
    const c = new Client(`127.0.0.1:${s.portico.https}`, grpc.credentials.createSsl(Buffer.from(ca.cert)), {
      'grpc.ssl_target_name_override': HOST,
      'grpc.default_authority': HOST,
      'grpc.max_metadata_size': 64 * 1024,
    }) as unknown as BinClient;
    return new Promise<Answer>((resolve, reject) => {
      let big = 0;
      const pending = c.unary(request, new grpc.Metadata(), { deadline: Date.now() + 10_000 }, (err, reply) => {
        c.close();
        if (err) reject(err);
        else resolve({ authority: (JSON.parse(reply ?? '{}') as { authority: string }).authority, big });
      });
      pending.on('metadata', (md: grpc.Metadata) => {
        big = String(md.get('x-big')[0] ?? '').length;
      });
    });
  };
  const bigServed = () =>
    call('big').then(
      (a) => a.big === BIG.length,
      () => false,
    );

  before(async () => {
    ca = makeCert(certDir, 'gRPC CA', { isCa: true });
    server = new grpc.Server();
    server.addService(BIN, {
      unary: (c: grpc.ServerUnaryCall<string, string>, cb: grpc.sendUnaryData<string>) => {
        if (c.request === 'big') {
          const md = new grpc.Metadata();
          md.set('x-big', BIG);
          c.sendMetadata(md);
        }
        cb(null, JSON.stringify({ authority: c.getHost() }));
      },
    });
    const port = await new Promise<number>((resolve, reject) => {
      server.bindAsync('127.0.0.1:0', grpc.ServerCredentials.createInsecure(), (err, p) => {
        if (err) reject(err);
        else resolve(p);
      });
    });
    s = await startSuite({ objects: [tlsSecret('grpc-tls', makeCert(certDir, HOST, { sans: [HOST], ca })), ...backendObjects('grpcbin-test', port)] });
    const base = ing(HOST, HOST, { service: 'grpcbin-test', annotations: ann({ 'backend-protocol': 'GRPC' }) });
    await s.put('grpc.json', [{ ...base, spec: { ...base.spec, tls: [{ hosts: [HOST], secretName: 'grpc-tls' }] } }], () =>
      call('small').then(
        () => true,
        () => false,
      ),
    );
  });
  after(async () => {
    await s.stop();
    server.forceShutdown();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should set the correct GRPC Buffer Size', async () => {
    // nginx's default buffer cannot hold the answer's headers: the call fails.
    await assert.rejects(call('big'), (err: grpc.ServiceError) => err.code !== grpc.status.OK);
    await s.config({ 'grpc-buffer-size-kb': '8' });
    await until('grpc-buffer-size-kb 8 applied', async () => (await bigServed()) && (await bigServed()) && bigServed(), 20_000);
    const a = await call('big');
    // The backend (whose gRPC server only takes application/grpc) saw the client's authority.
    assert.deepEqual(a, { authority: HOST, big: BIG.length });
  });
});
