// End to end, local mode, real nginx: TLSRoutes on TLS Passthrough listeners (docs/adr/0022). On port 443 through
// the SNI front of the HTTPS port, without --enable-ssl-passthrough; on another listener port (--gateway-port-map) a
// server of its own that closes an SNI no route takes. Weights, a route removed while running, and a hostname of
// another namespace refused.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, presented, type Pem } from '../support/certs.js';
import { freePort, get, startPortico, until, type Running } from '../support/portico.js';
import { hostIngress, webObjects, writeManifests } from '../support/tls-manifests.js';
import { service, slice } from '../support/objects.js';
import { startBackend, type Backend } from '../support/backends.js';
import { gatewayClass } from '../support/gateway.js';
import { startTlsEcho, tlsAsk, tlsWho, type TlsEchoBackend } from '../gateway-conformance/tls-route-echo.js';
import type { GatewayDoc } from '../../src/inspect/gateway.js';

const V1 = 'gateway.networking.k8s.io/v1';

function tlsRoute(name: string, hostnames: string[], backendRefs: { name: string; weight?: number }[], opts: { namespace?: string; sectionName?: string; created?: string } = {}): unknown {
  return {
    apiVersion: V1,
    kind: 'TLSRoute',
    metadata: { name, namespace: opts.namespace ?? 'default', creationTimestamp: opts.created ?? '2026-03-01T00:00:00Z' },
    spec: {
      parentRefs: [{ name: 'gw', namespace: 'default', ...(opts.sectionName ? { sectionName: opts.sectionName } : {}) }],
      hostnames,
      rules: [{ backendRefs: backendRefs.map((b) => ({ name: b.name, port: 443, ...(b.weight !== undefined ? { weight: b.weight } : {}) })) }],
    },
  };
}

const passthrough = { mode: 'Passthrough' };

describe('Gateway API TLSRoute through real nginx', () => {
  let fixtures = '';
  let manifests = '';
  let ca: Pem;
  let web: Backend;
  let p: Running;
  let alt = 0;
  const echoes: TlsEchoBackend[] = [];
  let objects: (routes: unknown[]) => unknown[];
  let routes: unknown[];

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-tlsroute-'));
    manifests = mkdtempSync(join(tmpdir(), 'portico-tlsroute-m-'));
    ca = makeCert(fixtures, 'TLSRoute test CA', { isCa: true });
    const pem = makeCert(fixtures, 'tls-echo', { sans: ['one.test', 'two.test', 'w.test', 'x.alt.test', 'owned.test'], ca });
    echoes.push(await startTlsEcho('a', 'default', pem), await startTlsEcho('b', 'default', pem));
    web = await startBackend('web');
    alt = await freePort();
    const svc = (e: TlsEchoBackend): unknown[] => [service(e.service, 'default', [{ name: 'https', port: 443 }]), slice(e.service, e.port, ['127.0.0.1'], { portName: 'https' })];
    objects = (rs) => [
      ...webObjects(web.port),
      gatewayClass('portico'),
      {
        apiVersion: V1,
        kind: 'Gateway',
        metadata: { name: 'gw', namespace: 'default' },
        spec: {
          gatewayClassName: 'portico',
          listeners: [
            { name: 'tls', port: 443, protocol: 'TLS', tls: passthrough, allowedRoutes: { namespaces: { from: 'All' } } },
            { name: 'alt', port: 8443, protocol: 'TLS', hostname: '*.alt.test', tls: passthrough },
          ],
        },
      },
      ...echoes.flatMap(svc),
      // owned.test belongs to namespace owner (its Ingress is older than every TLSRoute)
      { ...hostIngress('owner', 'owned.test', { created: '2026-01-01T00:00:00Z' }), metadata: { name: 'owner', namespace: 'owner', creationTimestamp: '2026-01-01T00:00:00Z' } },
      service('web', 'owner', [{ name: 'http', port: 80 }]),
      slice('web', web.port, ['127.0.0.1'], { namespace: 'owner' }),
      hostIngress('plain', 'plain.test'),
      ...rs,
    ];
    routes = [
      tlsRoute('one', ['one.test'], [{ name: 'a' }], { sectionName: 'tls' }),
      tlsRoute('two', ['two.test'], [{ name: 'b' }], { sectionName: 'tls' }),
      tlsRoute(
        'weights',
        ['w.test'],
        [
          { name: 'a', weight: 1 },
          { name: 'b', weight: 3 },
        ],
        { sectionName: 'tls' },
      ),
      tlsRoute('alt', ['x.alt.test', 'y.other.test'], [{ name: 'b' }], { sectionName: 'alt' }),
      tlsRoute('thief', ['owned.test'], [{ name: 'a' }], { sectionName: 'tls' }),
    ];
    writeManifests(manifests, objects(routes));
    p = await startPortico(['--manifests', manifests, '--gateway-port-map', `8443=${alt}`]);
  });

  after(async () => {
    await p?.stop();
    for (const e of echoes) await e.close();
    await web?.close();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });

  test('port 443 without --enable-ssl-passthrough: the SNI picks the route, the backend terminates TLS itself', async () => {
    const one = await tlsAsk(p.https, 'one.test', ca.cert);
    assert.ok('answer' in one, JSON.stringify(one));
    assert.deepEqual([one.answer.pod, one.answer.sni, one.cn], ['a-pod-0', 'one.test', 'tls-echo']);
    assert.equal(await tlsWho(p.https, 'two.test', ca.cert), 'b-pod-0');
    // an SNI no TLSRoute takes on 443 is the HTTPS server's, terminated by Portico; plain HTTP is unchanged
    assert.notEqual((await presented(p.https, 'other.test')).cn, 'tls-echo');
    assert.equal((await get(p.http, 'plain.test', '/')).status, 200);
  });

  test('weights: backendRefs 1 and 3 share the connections about 1:3', async () => {
    const seen = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const who = await tlsWho(p.https, 'w.test', ca.cert);
      seen.set(who, (seen.get(who) ?? 0) + 1);
    }
    const a = seen.get('a-pod-0') ?? 0;
    const b = seen.get('b-pod-0') ?? 0;
    assert.equal(a + b, 40, JSON.stringify([...seen]));
    assert.ok(a >= 4 && a <= 16 && b > a, JSON.stringify([...seen]));
    assert.match((await get(p.healthz, 'localhost', '/debug/config')).body, /server 127\.0\.0\.1:\d+ weight=3;/);
  });

  test('another listener port: its hostname intersected, an SNI no route takes closed', async () => {
    assert.equal(await tlsWho(alt, 'x.alt.test', ca.cert), 'b-pod-0');
    assert.match(await tlsWho(alt, 'one.test', ca.cert), /^closed: /);
    assert.match(await tlsWho(alt, 'y.other.test', ca.cert), /^closed: /, "outside the listener's *.alt.test");
  });

  test('a hostname another namespace owns on 443 is refused, with a Warning naming the route and its owner', async () => {
    assert.notEqual((await presented(p.https, 'owned.test')).cn, 'tls-echo');
    assert.ok(p.output.some((l) => l.includes('TLSRoute default/thief') && l.includes('owned.test') && l.includes('namespace owner')));
  });

  test('/debug/gateway shows the TLSRoutes and the listeners their counts', async () => {
    const doc = JSON.parse((await get(p.healthz, 'localhost', '/debug/gateway')).body) as GatewayDoc;
    const one = doc.tlsRoutes.find((r) => r.name === 'one');
    assert.deepEqual(
      one?.parents[0]?.conditions.map((c) => `${c.type}=${c.status}`),
      ['Accepted=True', 'ResolvedRefs=True'],
    );
    const gw = doc.gateways.find((g) => g.name === 'gw');
    assert.deepEqual(
      gw?.listeners.map((l) => [l.name, l.supportedKinds.map((k) => k.kind).join(','), l.attachedRoutes]),
      [
        ['tls', 'TLSRoute', 4],
        ['alt', 'TLSRoute', 1],
      ],
    );
  });

  test('a TLSRoute removed while running: its hostname is no longer passed through (a reload)', async () => {
    assert.equal(await tlsWho(p.https, 'two.test', ca.cert), 'b-pod-0');
    writeManifests(manifests, objects(routes.filter((r) => (r as { metadata: { name: string } }).metadata.name !== 'two')));
    await until('two.test terminated by Portico again', async () => (await presented(p.https, 'two.test')).cn !== 'tls-echo', 10_000, 50);
    assert.equal(await tlsWho(p.https, 'one.test', ca.cert), 'a-pod-0');
  });
});
