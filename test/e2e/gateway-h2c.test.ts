// End to end, local mode, real nginx: HTTP/2 cleartext (h2c) ports declared by the operator (--gateway-h2c-ports,
// docs/adr/0029). Team A's HTTP listener on an h2c local port serves a GRPCRoute to a real gRPC backend and an
// HTTPRoute to HTTP/2 clients; team B's Gateway, on another listener port that is not h2c, asks for GRPCRoute too and
// is refused: its port keeps serving HTTP/1.1, and nothing team B writes makes it h2c.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, constants } from 'node:http2';
import { rmSync } from 'node:fs';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, manifestDir, writeManifests } from '../support/manifests.js';
import { freePort, get, startPortico, until, who, type Running } from '../support/portico.js';
import { gateway, gatewayClass, grpcRoute, httpRoute } from '../support/gateway.js';
import { startGrpcBackend, type GrpcBackend } from '../support/grpc-backends.js';
import { H2cClient, UNIMPLEMENTED } from '../gateway-conformance/grpc-echo.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

const ECHO = '/portico.test.Echo/Echo';

/** One GET over HTTP/2 with prior knowledge: the status and the x-backend header ('' when absent), or the error. */
async function h2Get(port: number, host: string, path: string): Promise<string> {
  const session = connect(`http://127.0.0.1:${String(port)}`);
  try {
    return await new Promise<string>((resolve) => {
      session.on('error', (err: Error) => {
        resolve(`error ${err.message}`);
      });
      const req = session.request({ [constants.HTTP2_HEADER_PATH]: path, [constants.HTTP2_HEADER_AUTHORITY]: host });
      req.setTimeout(10_000, () => {
        req.close();
      });
      req.on('error', (err: Error) => {
        resolve(`error ${err.message}`);
      });
      // a stream closed without an end (the timeout): the first resolve wins, so this one only ends a stalled call
      req.on('close', () => {
        resolve('error closed without an answer');
      });
      req.on('response', (headers) => {
        req.resume();
        req.on('end', () => {
          resolve(`${String(headers[constants.HTTP2_HEADER_STATUS])} ${String(headers['x-backend'] ?? '')}`);
        });
      });
      req.end();
    });
  } finally {
    session.close();
  }
}

describe('Gateway API: GRPCRoute and HTTP/2 on an operator-declared h2c port', () => {
  let rpc: GrpcBackend;
  let webA: Backend;
  let webB: Backend;
  let dir = '';
  let p: Running;
  const local = { h2c: 0, plain: 0 };

  before(async () => {
    rpc = await startGrpcBackend('team-a/rpc', [ECHO]);
    webA = await startBackend('web-a');
    webB = await startBackend('web-b');
    local.h2c = await freePort();
    local.plain = await freePort();
    dir = await manifestDir();
    const asksGrpc = { kinds: [{ kind: 'HTTPRoute' }, { kind: 'GRPCRoute' }] };
    await writeManifests(dir, 'all.yaml', [
      gatewayClass('portico'),
      ...backendObjects('rpc', rpc.port, 'team-a'),
      ...backendObjects('web', webA.port, 'team-a'),
      ...backendObjects('web', webB.port, 'team-b'),
      { ...gateway('a', [{ name: 'h2c', port: 8080 }], { namespace: 'team-a' }) },
      // team B asks for GRPCRoute on its plain port: refused there (InvalidRouteKinds), and the port stays HTTP/1.1
      (() => {
        const g = gateway('b', [{ name: 'plain', port: 8090 }], { namespace: 'team-b' }) as { spec: { listeners: Record<string, unknown>[] } };
        g.spec.listeners = g.spec.listeners.map((l) => ({ ...l, allowedRoutes: asksGrpc }));
        return g;
      })(),
      grpcRoute('rpc', { parentRefs: [{ name: 'a' }], hostnames: ['rpc.a.test'], rules: [{ backendRefs: [{ name: 'rpc', port: 80 }] }] }, 'team-a'),
      httpRoute('web', { parentRefs: [{ name: 'a' }], hostnames: ['web.a.test'], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] }, 'team-a'),
      grpcRoute('rpc', { parentRefs: [{ name: 'b' }], hostnames: ['rpc.b.test'], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] }, 'team-b'),
      httpRoute('web', { parentRefs: [{ name: 'b' }], hostnames: ['web.b.test'], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] }, 'team-b'),
    ]);
    p = await startPortico(['--manifests', dir, '--gateway-port-map', `8080=${String(local.h2c)},8090=${String(local.plain)}`, '--gateway-h2c-ports', String(local.h2c)]);
    await until('team B served over HTTP/1.1', async () => (await who(local.plain, 'web.b.test', '/')) === 'web-b', 15_000);
  });

  after(async () => {
    assert.equal(await p?.stop(), 0);
    rpc?.close();
    await webA?.close();
    await webB?.close();
    if (dir !== '') rmSync(dir, { recursive: true, force: true });
  });

  test('the h2c port serves the GRPCRoute to gRPC clients and the HTTPRoute to HTTP/2 clients with prior knowledge', async () => {
    const client = new H2cClient(local.h2c, 'rpc.a.test');
    try {
      await until('the gRPC call served over h2c', async () => (await client.call(ECHO)).backend === 'rpc', 15_000);
    } finally {
      client.close();
    }
    await until('the HTTPRoute served over HTTP/2', async () => (await h2Get(local.h2c, 'web.a.test', '/')) === '200 web-a', 15_000);
    assert.equal(await h2Get(local.h2c, 'none.test', '/'), '404 ', 'a host no route serves: 404 over HTTP/2 too');
  });

  test('the h2c port is HTTP/2 only: an HTTP/1.1 request there gets no HTTP answer (the operator chose it)', async () => {
    const r = await get(local.h2c, 'web.a.test', '/', { timeoutMs: 5_000 }).then(
      (x) => `status ${String(x.status)}`,
      (err: unknown) => `error ${String(err)}`,
    );
    assert.match(r, /^error /);
  });

  test("team B's plain port: HTTP/1.1 served, a GRPCRoute is refused, and gRPC over h2c gets no answer there", async () => {
    assert.equal(await who(local.plain, 'web.b.test', '/'), 'web-b');
    const client = new H2cClient(local.plain, 'rpc.b.test');
    try {
      const a = await client.call(ECHO);
      assert.notEqual(a.code, 0, 'no gRPC answer from a plain HTTP/1.1 port');
      assert.notEqual(a.code, UNIMPLEMENTED, 'nginx never read the call as HTTP/2');
    } finally {
      client.close();
    }
    const doc = JSON.parse((await get(p.healthz, 'localhost', '/debug/gateway')).body) as GatewayDoc;
    const listener = (ns: string): string => {
      const l = doc.gateways.find((g) => g.namespace === ns)?.listeners[0];
      return `${l?.supportedKinds.map((k) => k.kind).join(',') ?? ''} ${l?.conditions.find((c) => c.type === 'ResolvedRefs')?.reason ?? ''} ${String(l?.attachedRoutes)}`;
    };
    assert.equal(listener('team-a'), 'HTTPRoute,GRPCRoute ResolvedRefs 2');
    const programmed = (ns: string): string => doc.gateways.find((g) => g.namespace === ns)?.listeners[0]?.conditions.find((c) => c.type === 'Programmed')?.message ?? '';
    assert.equal(programmed('team-a'), `served on local port ${String(local.h2c)}, HTTP/2 cleartext only (--gateway-h2c-ports)`);
    assert.equal(programmed('team-b'), `served on local port ${String(local.plain)}`);
    assert.equal(listener('team-b'), 'HTTPRoute InvalidRouteKinds 1');
    const parent = (ns: string): string => (doc.grpcRoutes.find((r) => r.namespace === ns)?.parents[0]?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`).join(' ');
    assert.equal(parent('team-a'), 'Accepted=True/Accepted ResolvedRefs=True/ResolvedRefs');
    assert.equal(parent('team-b'), 'Accepted=False/NotAllowedByListeners ResolvedRefs=True/ResolvedRefs');
  });
});
