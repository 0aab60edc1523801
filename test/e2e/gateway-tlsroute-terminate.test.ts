// End to end, local mode, real nginx: TLSRoutes on TLS listeners in Terminate mode (docs/adr/0032). On port 443
// through the SNI front of the HTTPS port, beside an Ingress's HTTPS host; on another listener port
// (--gateway-port-map) a server of its own. A hostname another namespace owns stays refused, tried from that other
// namespace (HostConflict); a changed certificate Secret reloads nginx and is counted as a stream reload.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, presented, type Pem } from '../support/certs.js';
import { freePort, get, startPortico, until, type Running } from '../support/portico.js';
import { hostIngress, tlsSecret, webObjects, writeManifests } from '../support/tls-manifests.js';
import { service, slice } from '../support/objects.js';
import { startBackend, type Backend } from '../support/backends.js';
import { gatewayClass } from '../support/gateway.js';
import { HOST_CONFLICT } from '../../src/model/hosts.js';
import { lineEcho, talk, type LineEcho } from '../gateway-conformance/tls-term-echo.js';

const V1 = 'gateway.networking.k8s.io/v1';
const streamReloads = (p: Running): number => Math.max(0, ...p.output.filter((l) => l.includes('"msg":"sync"')).map((l) => Number(/"streamReloads":(\d+)/.exec(l)?.[1] ?? 0)));

/** A TLSRoute `namespace/name` on listener `section` of Gateway default/gw, to `backend`:3000 of its namespace. */
function tlsRoute(id: string, section: string, hostnames: string[], backend: string, created: string): unknown {
  const [namespace, name] = id.split('/');
  return {
    apiVersion: V1,
    kind: 'TLSRoute',
    metadata: { name, namespace, creationTimestamp: created },
    spec: { parentRefs: [{ name: 'gw', namespace: 'default', sectionName: section }], hostnames, rules: [{ backendRefs: [{ name: backend, port: 3000 }] }] },
  };
}

describe('Gateway API TLSRoute on TLS Terminate listeners through real nginx', () => {
  let fixtures = '';
  let manifests = '';
  let ca: Pem;
  let web: Backend;
  let p: Running;
  let alt = 0;
  const echoes: LineEcho[] = [];
  let objects: (cert: Pem) => unknown[];

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-tlsterm-'));
    manifests = mkdtempSync(join(tmpdir(), 'portico-tlsterm-m-'));
    ca = makeCert(fixtures, 'TLSRoute terminate test CA', { isCa: true });
    const first = makeCert(fixtures, 'gateway-first', { sans: ['t.test', 'shared.test', 'owned.test'], ca });
    const mine = await lineEcho('mine', 'default');
    const intruder = await lineEcho('intruder', 'other');
    echoes.push(mine, intruder);
    web = await startBackend('web');
    alt = await freePort();
    const all = { namespaces: { from: 'All' } };
    objects = (cert) => [
      ...webObjects(web.port),
      gatewayClass('portico'),
      tlsSecret('gw-cert', cert, 'default'),
      {
        apiVersion: V1,
        kind: 'Gateway',
        metadata: { name: 'gw', namespace: 'default' },
        spec: {
          gatewayClassName: 'portico',
          listeners: [
            { name: 'front', port: 443, protocol: 'TLS', tls: { mode: 'Terminate', certificateRefs: [{ name: 'gw-cert' }] }, allowedRoutes: all },
            { name: 'alt', port: 9443, protocol: 'TLS', tls: { mode: 'Terminate', certificateRefs: [{ name: 'gw-cert' }] }, allowedRoutes: all },
          ],
        },
      },
      service('mine', 'default', [{ name: 'tcp', port: 3000 }]),
      slice('mine', mine.port, ['127.0.0.1'], { portName: 'tcp' }),
      service('intruder', 'other', [{ name: 'tcp', port: 3000 }]),
      slice('intruder', intruder.port, ['127.0.0.1'], { namespace: 'other', portName: 'tcp' }),
      // owned.test belongs to namespace owner: its Ingress is older than every TLSRoute
      { ...hostIngress('owner', 'owned.test'), metadata: { name: 'owner', namespace: 'owner', creationTimestamp: '2026-01-01T00:00:00Z' } },
      service('web', 'owner', [{ name: 'http', port: 80 }]),
      slice('web', web.port, ['127.0.0.1'], { namespace: 'owner' }),
      hostIngress('plain', 'plain.test'),
      tlsRoute('default/front', 'front', ['t.test'], 'mine', '2026-03-01T00:00:00Z'),
      tlsRoute('default/first', 'alt', ['shared.test'], 'mine', '2026-03-01T00:00:00Z'),
      // namespace other tries both: the Ingress host of namespace owner on 443, the older route's hostname on 9443
      tlsRoute('other/thief', 'front', ['owned.test'], 'intruder', '2026-03-02T00:00:00Z'),
      tlsRoute('other/late', 'alt', ['shared.test'], 'intruder', '2026-03-02T00:00:00Z'),
    ];
    writeManifests(manifests, objects(first));
    p = await startPortico(['--manifests', manifests, '--gateway-port-map', `9443=${alt}`]);
  });

  after(async () => {
    await p?.stop();
    for (const e of echoes) await e.close();
    await web?.close();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });

  test('port 443: Portico terminates with the listener certificate and the backend gets plain TCP; the Ingress hosts keep the HTTPS server', async () => {
    const t = await talk(p.https, 't.test', ca.cert);
    assert.ok('test' in t, JSON.stringify(t));
    assert.deepEqual([t.isTls, t.test.pod, t.test.sni, t.cn], ['false', 'mine-7f9c-tcp', '', 'gateway-first']);
    assert.equal((await get(p.http, 'plain.test', '/')).status, 200);
    assert.notEqual((await presented(p.https, 'plain.test')).cn, 'gateway-first');
  });

  test('another listener port: terminated, the SNI picks the route, an SNI no route takes is closed', async () => {
    const t = await talk(alt, 'shared.test', ca.cert);
    assert.ok('test' in t, JSON.stringify(t));
    assert.deepEqual([t.test.pod, t.test.namespace, t.cn], ['mine-7f9c-tcp', 'default', 'gateway-first']);
    const none = await talk(alt, 't.test', ca.cert);
    assert.ok('failed' in none, JSON.stringify(none));
  });

  test('namespace other takes neither the Ingress host of namespace owner on 443 (HostConflict) nor the older route hostname on 9443', async () => {
    const owned = await talk(p.https, 'owned.test', ca.cert);
    assert.ok('failed' in owned, `owned.test stays the HTTPS server's: ${JSON.stringify(owned)}`);
    assert.notEqual((await presented(p.https, 'owned.test')).cn, 'gateway-first');
    const thief = p.output.filter((l) => l.includes('other/thief'));
    assert.ok(
      thief.some((l) => l.includes(HOST_CONFLICT) && l.includes('whose owner is namespace owner')),
      thief.join('\n'),
    );
    const shared = await talk(alt, 'shared.test', ca.cert);
    assert.ok('test' in shared && shared.test.namespace === 'default', JSON.stringify(shared));
    assert.ok(p.output.some((l) => l.includes('TLSRoute other/late') && l.includes('taken by the older TLSRoute default/first')));
  });

  test('the certificate is a 0600 file of the work dir; a changed Secret reloads nginx, counted as a stream reload', async () => {
    const files = readdirSync(join(p.workDir, 'ssl')).filter((n) => n.startsWith('stream-'));
    assert.equal(files.length, 1, JSON.stringify(files));
    assert.equal(statSync(join(p.workDir, 'ssl', files[0] ?? '')).mode & 0o777, 0o600);
    const before = streamReloads(p);
    const second = makeCert(fixtures, 'gateway-second', { sans: ['t.test', 'shared.test'], ca });
    writeManifests(manifests, objects(second));
    await until(
      'the new certificate served on 443 and 9443',
      async () => (await presented(p.https, 't.test')).cn === 'gateway-second' && (await presented(alt, 'shared.test')).cn === 'gateway-second',
      10_000,
      100,
    );
    await until('the stream reload counted', () => streamReloads(p) > before, 10_000, 100);
    await until('the old certificate file removed', () => readdirSync(join(p.workDir, 'ssl')).filter((n) => n.startsWith('stream-')).length === 1, 10_000, 100);
  });
});
