// End to end, local mode, real nginx: GRPCRoutes on a Gateway's HTTPS listeners (HTTP/2 by ALPN) to real gRPC
// backends over h2c: method matches (exact, service only), header matches, weights, hostnames, filters, no match,
// an invalid backend, and the status of a GRPCRoute on an HTTP listener (docs/adr/0020).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, type Pem } from '../support/certs.js';
import { backendObjects, manifestDir, writeManifests } from '../support/manifests.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { gateway, gatewayClass, grpcRoute, httpRoute } from '../support/gateway.js';
import { grpcCall, startGrpcBackend, type GrpcBackend, type GrpcOutcome } from '../support/grpc-backends.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

const ECHO = '/portico.test.Echo/Echo';
const ECHO_TWO = '/portico.test.Echo/EchoTwo';
const ECHO_THREE = '/portico.test.Echo/EchoThree';
const PING = '/portico.test.Other/Ping';
const PONG = '/portico.test.Other/Pong';
const METHODS = [ECHO, ECHO_TWO, ECHO_THREE, PING, PONG];
const UNIMPLEMENTED = 12;
const UNAVAILABLE = 14;

const exact = (service: string, method: string): Record<string, unknown> => ({ method: { service, method } });
const to = (name: string, weight?: number): Record<string, unknown> => ({ name, port: 80, ...(weight !== undefined ? { weight } : {}) });

describe('Gateway API GRPCRoute through real nginx', () => {
  let v1: GrpcBackend;
  let v2: GrpcBackend;
  let dir = '';
  let fixtures = '';
  let ca: Pem;
  let p: Running;
  const call = (host: string, path: string, metadata: Record<string, string> = {}): Promise<GrpcOutcome> => grpcCall(p.https, ca.cert, host, path, metadata);
  const backendOf = async (host: string, path: string, metadata: Record<string, string> = {}): Promise<string> => {
    const r = await call(host, path, metadata);
    return r.code === 0 ? (r.reply?.backend ?? '?') : `code ${r.code}`;
  };

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-gw-grpc-'));
    ca = makeCert(fixtures, 'gRPC test CA', { isCa: true });
    const cert = makeCert(fixtures, 'grpc.test', { sans: ['grpc.test', 'svc.test', 'hdr.test', 'weights.test', 'filters.test', 'broken.test', 'plain.test', '*.wild.test', 'a.b.wild.test'], ca });
    v1 = await startGrpcBackend('v1', METHODS);
    v2 = await startGrpcBackend('v2', METHODS);
    dir = await manifestDir();
    await writeManifests(dir, 'all.yaml', [
      gatewayClass('portico'),
      ...backendObjects('v1', v1.port),
      ...backendObjects('v2', v2.port),
      tlsSecret('grpc-tls', cert),
      gateway('web', [
        { name: 'http' },
        { name: 'https', protocol: 'HTTPS', certificateRefs: [{ name: 'grpc-tls' }] },
        { name: 'wild', protocol: 'HTTPS', hostname: '*.wild.test', certificateRefs: [{ name: 'grpc-tls' }] },
      ]),
      grpcRoute('exact', {
        parentRefs: [{ name: 'web', sectionName: 'https' }],
        hostnames: ['grpc.test'],
        rules: [
          { matches: [exact('portico.test.Echo', 'Echo')], backendRefs: [to('v1')] },
          { matches: [exact('portico.test.Echo', 'EchoTwo')], backendRefs: [to('v2')] },
        ],
      }),
      grpcRoute('service', {
        parentRefs: [{ name: 'web', sectionName: 'https' }],
        hostnames: ['svc.test'],
        rules: [
          { matches: [{ method: { service: 'portico.test.Other' } }], backendRefs: [to('v2')] },
          { matches: [exact('portico.test.Other', 'Ping')], backendRefs: [to('v1')] },
        ],
      }),
      grpcRoute('headers', {
        parentRefs: [{ name: 'web', sectionName: 'https' }],
        hostnames: ['hdr.test'],
        rules: [
          { matches: [{ headers: [{ name: 'version', value: 'one' }] }], backendRefs: [to('v1')] },
          { matches: [{ headers: [{ name: 'version', value: 'two' }] }], backendRefs: [to('v2')] },
          {
            matches: [
              {
                headers: [
                  { name: 'version', value: 'two' },
                  { name: 'color', value: 'orange' },
                ],
              },
            ],
            backendRefs: [to('v1')],
          },
          { matches: [{ headers: [{ name: 'color', type: 'RegularExpression', value: 'bl.e|gr[a-z]+n' }] }], backendRefs: [to('v2')] },
        ],
      }),
      grpcRoute('weights', {
        parentRefs: [{ name: 'web', sectionName: 'https' }],
        hostnames: ['weights.test'],
        rules: [
          { matches: [exact('portico.test.Echo', 'Echo')], backendRefs: [to('v1', 1), to('v2', 1)] },
          { matches: [exact('portico.test.Echo', 'EchoTwo')], backendRefs: [to('v1', 1), to('v2', 0)] },
        ],
      }),
      grpcRoute('filters', {
        parentRefs: [{ name: 'web', sectionName: 'https' }],
        hostnames: ['filters.test'],
        rules: [
          {
            filters: [
              { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x-tenant', value: 'blue' }], remove: ['x-drop'] } },
              { type: 'ResponseHeaderModifier', responseHeaderModifier: { add: [{ name: 'x-served-by', value: 'portico' }] } },
            ],
            backendRefs: [to('v1')],
          },
        ],
      }),
      grpcRoute('broken', { parentRefs: [{ name: 'web', sectionName: 'https' }], hostnames: ['broken.test'], rules: [{ backendRefs: [to('missing')] }] }),
      grpcRoute('wild', { parentRefs: [{ name: 'web', sectionName: 'wild' }], rules: [{ backendRefs: [to('v2')] }] }),
      grpcRoute('plain', { parentRefs: [{ name: 'web', sectionName: 'http' }], hostnames: ['plain.test'], rules: [{ backendRefs: [to('v1')] }] }),
      httpRoute('web', { parentRefs: [{ name: 'web', sectionName: 'http' }], hostnames: ['web.test'], rules: [{ backendRefs: [to('v1')] }] }),
    ]);
    p = await startPortico(['--manifests', dir]);
    await until('grpc.test served', async () => (await backendOf('grpc.test', ECHO)) === 'v1', 15_000);
  });

  after(async () => {
    assert.equal(await p?.stop(), 0);
    v1?.close();
    v2?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(fixtures, { recursive: true, force: true });
  });

  test('exact method matches go to their backends; a method no rule names is UNIMPLEMENTED', async () => {
    assert.equal(await backendOf('grpc.test', ECHO), 'v1');
    assert.equal(await backendOf('grpc.test', ECHO_TWO), 'v2');
    const r = await call('grpc.test', ECHO_THREE);
    assert.equal(r.code, UNIMPLEMENTED, r.details);
    const other = await call('grpc.test', PING);
    assert.equal(other.code, UNIMPLEMENTED, other.details);
  });

  test('a service-only match takes every method of the service; an exact method of it wins over it', async () => {
    assert.equal(await backendOf('svc.test', PONG), 'v2');
    assert.equal(await backendOf('svc.test', PING), 'v1');
    const r = await call('svc.test', ECHO);
    assert.equal(r.code, UNIMPLEMENTED, r.details);
  });

  test('header matches: exact, more headers first, then rule order; a regex matches the whole value; none: UNIMPLEMENTED', async () => {
    const cases: [Record<string, string>, string][] = [
      [{ version: 'one' }, 'v1'],
      [{ version: 'two' }, 'v2'],
      [{ version: 'two', color: 'orange' }, 'v1'],
      [{ version: 'two', color: 'blue' }, 'v2'],
      [{ color: 'green' }, 'v2'],
      [{ color: 'blue' }, 'v2'],
      [{ color: 'blues' }, `code ${UNIMPLEMENTED}`],
      [{ color: 'orange' }, `code ${UNIMPLEMENTED}`],
      [{ 'some-other': 'one' }, `code ${UNIMPLEMENTED}`],
    ];
    const got = [];
    for (const [md] of cases) got.push(await backendOf('hdr.test', ECHO, md));
    assert.deepEqual(
      got,
      cases.map(([, want]) => want),
    );
  });

  test('weights: both backends of equal weight answer; weight 0 answers nothing', async () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const b = await backendOf('weights.test', ECHO);
      seen.set(b, (seen.get(b) ?? 0) + 1);
    }
    assert.deepEqual([...seen.keys()].sort(), ['v1', 'v2']);
    for (let i = 0; i < 10; i++) assert.equal(await backendOf('weights.test', ECHO_TWO), 'v1');
  });

  test('RequestHeaderModifier reaches the backend as metadata, ResponseHeaderModifier the client as response headers', async () => {
    const r = await call('filters.test', ECHO, { 'x-drop': 'gone', 'x-tenant': 'red' });
    assert.equal(r.code, 0, r.details);
    assert.equal(r.reply?.metadata['x-tenant'], 'blue');
    assert.equal(r.reply?.metadata['x-drop'], undefined);
    assert.equal(r.headers['x-served-by'], 'portico');
  });

  test('hostnames: a route without hostnames on a *.wild.test listener serves its names, deeper ones too, and no other', async () => {
    assert.equal(await backendOf('a.wild.test', ECHO), 'v2');
    assert.equal(await backendOf('a.b.wild.test', PING), 'v2');
    const r = await call('grpc.test', PONG);
    assert.equal(r.code, UNIMPLEMENTED, r.details);
  });

  test('a backendRef to a missing Service answers UNAVAILABLE, with a Warning naming the route and field', async () => {
    const r = await call('broken.test', ECHO);
    assert.equal(r.code, UNAVAILABLE, r.details);
    const line = p.output.find((l) => l.includes('GRPCRoute default/broken'));
    assert.ok(line, 'a warning names the GRPCRoute');
    assert.match(line, /spec\.rules\[0\]\.backendRefs\[0\]/);
    assert.match(line, /BackendNotFound: Service default\/missing not found/);
  });

  test('a GRPCRoute added while running is served; deleted, its calls are UNIMPLEMENTED again', async () => {
    const late = grpcRoute('late', {
      parentRefs: [{ name: 'web', sectionName: 'https' }],
      hostnames: ['grpc.test'],
      rules: [{ matches: [exact('portico.test.Echo', 'EchoThree')], backendRefs: [to('v2')] }],
    });
    await writeManifests(dir, 'late.yaml', [late]);
    await until('EchoThree served by the new route', async () => (await backendOf('grpc.test', ECHO_THREE)) === 'v2', 15_000);
    assert.equal(await backendOf('grpc.test', ECHO), 'v1', 'the older route still serves its methods');
    rmSync(join(dir, 'late.yaml'));
    await until('EchoThree unimplemented again', async () => (await backendOf('grpc.test', ECHO_THREE)) === `code ${UNIMPLEMENTED}`, 15_000);
  });

  test('/debug/gateway: GRPCRoute parents; on an HTTP listener NotAllowedByListeners; HTTPS listeners list GRPCRoute', async () => {
    const doc = JSON.parse((await get(p.healthz, 'localhost', '/debug/gateway')).body) as GatewayDoc;
    const parent = (name: string): string[] => (doc.grpcRoutes.find((r) => r.name === name)?.parents[0]?.conditions ?? []).map((c) => `${c.type}=${c.status}/${c.reason}`);
    assert.deepEqual(parent('exact'), ['Accepted=True/Accepted', 'ResolvedRefs=True/ResolvedRefs']);
    assert.deepEqual(parent('broken'), ['Accepted=True/Accepted', 'ResolvedRefs=False/BackendNotFound']);
    assert.deepEqual(parent('plain'), ['Accepted=False/NotAllowedByListeners', 'ResolvedRefs=True/ResolvedRefs']);
    const listeners = doc.gateways[0]?.listeners ?? [];
    assert.deepEqual(
      listeners.map((l) => [l.name, l.supportedKinds.map((k) => k.kind).join(','), l.attachedRoutes]),
      [
        ['http', 'HTTPRoute', 1],
        ['https', 'HTTPRoute,GRPCRoute', 6],
        ['wild', 'HTTPRoute,GRPCRoute', 1],
      ],
    );
  });
});
