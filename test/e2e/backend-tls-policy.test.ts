// BackendTLSPolicy through real nginx: TLS to the backend verified against the policy's CA with its hostname as SNI, a
// wrong CA answers 502, and a policy never reaches a Service of another namespace that has the name it targets.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../support/certs.js';
import { backendObjects, configMap, manifestDir, writeManifests } from '../support/manifests.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { gateway, gatewayClass, httpRoute } from '../support/gateway.js';
import { startEcho, type EchoBackend } from '../gateway-conformance/echo.js';
import { startTlsEcho, type TlsEcho, type TlsEchoAnswer } from '../gateway-conformance/tls-echo.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

const SNI = 'secure.test';

function policy(name: string, namespace: string, service: string, ca: string): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'BackendTLSPolicy',
    metadata: { name, namespace },
    spec: { targetRefs: [{ group: '', kind: 'Service', name: service }], validation: { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: ca }], hostname: SNI } },
  };
}

/** A route of `namespace` for `host`, every path to Service `service` port 80. */
function routeTo(name: string, namespace: string, host: string, service: string): unknown {
  return httpRoute(name, { parentRefs: [{ name: 'gw', namespace: 'default' }], hostnames: [host], rules: [{ backendRefs: [{ name: service, port: 80 }] }] }, namespace);
}

describe('BackendTLSPolicy through nginx', () => {
  let p: Running | undefined;
  let tls: TlsEcho;
  let plain: EchoBackend;
  let certs: string;
  let dir: string;
  before(async () => {
    certs = mkdtempSync(join(tmpdir(), 'portico-btls-e2e-'));
    const ca = makeCert(certs, 'backend-ca', { isCa: true });
    const other = makeCert(certs, 'other-ca', { isCa: true });
    tls = await startTlsEcho('tls', 'one', makeCert(certs, SNI, { sans: [SNI], ca }));
    plain = await startEcho('plain', 'two');
    dir = await manifestDir();
    await writeManifests(dir, 'objects.json', [
      gatewayClass('portico'),
      gateway('gw', [{ name: 'http', from: 'All' }]),
      configMap('ca', { 'ca.crt': ca.cert }, 'one'),
      configMap('other', { 'ca.crt': other.cert }, 'one'),
      ...backendObjects('tls', tls.port, 'one'),
      ...backendObjects('wrongca', tls.port, 'one'),
      ...backendObjects('plain', plain.port, 'two'),
      policy('good', 'one', 'tls', 'ca'),
      policy('bad', 'one', 'wrongca', 'other'),
      // Names Service `plain`, which exists in namespace two only: a policy targets its own namespace's Services.
      policy('cross', 'one', 'plain', 'ca'),
      routeTo('good', 'one', 'good.test', 'tls'),
      routeTo('bad', 'one', 'bad.test', 'wrongca'),
      routeTo('plain', 'two', 'plain.test', 'plain'),
      // One path, two routes: the older to the TLS Service, the newer (a header match, so Lua picks) to a plain one.
      ...backendObjects('plainone', plain.port, 'one'),
      httpRoute(
        'mix-tls',
        { parentRefs: [{ name: 'gw', namespace: 'default' }], hostnames: ['mix.test'], rules: [{ matches: [{ path: { type: 'Exact', value: '/m' } }], backendRefs: [{ name: 'tls', port: 80 }] }] },
        'one',
      ),
      {
        ...httpRoute(
          'mix-plain',
          {
            parentRefs: [{ name: 'gw', namespace: 'default' }],
            hostnames: ['mix.test'],
            rules: [{ matches: [{ path: { type: 'Exact', value: '/m' }, headers: [{ name: 'x-plain', value: '1' }] }], backendRefs: [{ name: 'plainone', port: 80 }] }],
          },
          'one',
        ),
        metadata: { name: 'mix-plain', namespace: 'one', creationTimestamp: '2030-01-01T00:00:00Z' },
      },
    ]);
    p = await startPortico(['--manifests', dir]);
  });
  after(async () => {
    if (p) assert.equal(await p.stop(), 0);
    await tls?.close();
    await plain?.close();
    rmSync(certs, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  });

  test('TLS to the backend, verified against the CA, with the policy hostname as SNI', async () => {
    const port = (p as Running).http;
    let last = '';
    await until(
      'good.test answered by the TLS backend',
      async () => {
        const r = await get(port, 'good.test', '/hello');
        last = `${r.status} ${r.body.slice(0, 120)}`;
        return r.status === 200;
      },
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${last}`);
    });
    const answer = JSON.parse((await get(port, 'good.test', '/hello')).body) as TlsEchoAnswer;
    assert.equal(answer.sni, SNI, 'the backend saw the policy hostname as SNI');
    assert.equal(answer.path, '/hello');
  });

  test('a backend certificate the CA did not sign: 502, never proxied unverified', async () => {
    const port = (p as Running).http;
    await until('bad.test answered', async () => (await get(port, 'bad.test', '/')).status !== 404, 30_000);
    const seen = tls.seen.length;
    for (let i = 0; i < 3; i++) assert.equal((await get(port, 'bad.test', '/x')).status, 502);
    assert.equal(tls.seen.filter((a) => a.path === '/x').length, 0, 'no request reached the backend');
    assert.ok(tls.seen.length >= seen);
  });

  test("a policy of namespace one has no effect on namespace two's Service of the name it targets", async () => {
    const port = (p as Running).http;
    await until('plain.test answered 200 over plain HTTP', async () => (await get(port, 'plain.test', '/')).status === 200, 30_000);
    const doc = JSON.parse((await get((p as Running).healthz, 'localhost', '/debug/gateway')).body) as GatewayDoc;
    const names = (doc.backendTLSPolicies ?? []).map((x) => `${x.namespace}/${x.name}`);
    assert.deepEqual(names.sort(), ['one/bad', 'one/good'], 'the cross-namespace policy has no ancestor: no route reaches a Service it targets');
  });

  test('one location, candidates of different backend TLS: the one that differs is not served there (never TLS to a plain backend, never clear text to a TLS one)', async () => {
    const port = (p as Running).http;
    await until('mix.test/m answered by the TLS backend', async () => (await get(port, 'mix.test', '/m')).status === 200, 30_000);
    const r = await get(port, 'mix.test', '/m', { headers: { 'x-plain': '1' } });
    assert.equal(r.status, 200);
    assert.equal((JSON.parse(r.body) as Partial<TlsEchoAnswer>).sni, SNI, 'the header match of the plain route is not served: the TLS route answers');
    assert.ok(
      (p as Running).output.some((l) => l.includes('mix-plain') && l.includes('differs from that of what host mix.test serves')),
      'a Warning names the route whose match is not served',
    );
  });
});
