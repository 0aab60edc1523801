// End to end, local mode, real nginx: Gateway HTTPS listeners on port 443 served on --https-port, certificates from tls.certificateRefs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { httpsGet, makeCert, presented, type Pem } from '../support/certs.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { freePort, get, startPortico, syncCount, until, type Running } from '../support/portico.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { gateway, gatewayClass, httpRoute, referenceGrant } from '../support/gateway.js';

const route = (name: string, sectionName: string, hostnames: string[]): Record<string, unknown> =>
  httpRoute(name, { parentRefs: [{ name: 'web', sectionName }], hostnames, rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] });

describe('Gateway API HTTPS listeners through real nginx', () => {
  let backend: Backend;
  let dir = '';
  let fixtures = '';
  let p: Running;
  let own = 0;
  const certs = new Map<string, Pem>();
  const pem = (name: string): Pem => certs.get(name) as Pem;
  let objects: (secure: Pem) => unknown[];
  const warned = (s: string): boolean => p.output.some((l) => l.includes('"level":40') && l.includes(s));

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-gw-tls-'));
    for (const [name, host] of [
      ['secure', 'secure.test'],
      ['secure2', 'secure.test'],
      ['wild', '*.sec.test'],
      ['granted', 'granted.test'],
      ['ungranted', 'ungranted.test'],
      ['open', 'open.test'],
    ] as const) {
      certs.set(name, makeCert(fixtures, host, { sans: [host] }));
    }
    backend = await startBackend('web');
    dir = await manifestDir();
    objects = (secure) => [
      gatewayClass('portico'),
      ...serviceFor('web', [backend]),
      tlsSecret('secure-tls', secure),
      tlsSecret('wild-tls', pem('wild')),
      tlsSecret('open-tls', pem('open')),
      tlsSecret('granted-tls', pem('granted'), 'certs'),
      tlsSecret('ungranted-tls', pem('ungranted'), 'private'),
      referenceGrant('gateways-to-certs', 'certs', 'default', 'Secret', 'Gateway'),
      gateway('web', [
        { name: 'http' },
        { name: 'https', protocol: 'HTTPS', hostname: 'secure.test', certificateRefs: [{ name: 'secure-tls' }] },
        { name: 'wild', protocol: 'HTTPS', hostname: '*.sec.test', certificateRefs: [{ name: 'wild-tls' }] },
        { name: 'granted', protocol: 'HTTPS', hostname: 'granted.test', certificateRefs: [{ name: 'granted-tls', namespace: 'certs' }] },
        { name: 'ungranted', protocol: 'HTTPS', hostname: 'ungranted.test', certificateRefs: [{ name: 'ungranted-tls', namespace: 'private' }] },
        { name: 'open', protocol: 'HTTPS', certificateRefs: [{ name: 'open-tls' }] },
        { name: 'odd', protocol: 'HTTPS', port: 8443, hostname: 'odd.test', certificateRefs: [{ name: 'secure-tls' }] },
      ]),
      route('secure', 'https', ['secure.test']),
      route('wild', 'wild', ['a.sec.test']),
      route('granted', 'granted', ['granted.test']),
      route('ungranted', 'ungranted', ['ungranted.test']),
      route('open', 'open', ['open.test']),
      route('odd', 'odd', ['odd.test']),
      route('plain', 'http', ['plain.test']),
      httpRoute('moved', {
        parentRefs: [{ name: 'web', sectionName: 'https' }],
        hostnames: ['secure.test'],
        rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/go' } }], filters: [{ type: 'RequestRedirect', requestRedirect: { hostname: 'other.test' } }] }],
      }),
    ];
    await writeManifests(dir, 'all.yaml', objects(pem('secure')));
    // the odd listener's port 8443 maps onto the default server's port: PortUnavailable
    own = await freePort();
    p = await startPortico(['--manifests', dir, '--default-server-port', String(own), '--gateway-port-map', `8443=${own}`]);
  });

  after(async () => {
    assert.equal(await p?.stop(), 0);
    await backend?.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(fixtures, { recursive: true, force: true });
  });

  test('an HTTPS listener serves its routes on --https-port with the certificate of its Secret, chosen by SNI', async () => {
    assert.equal((await presented(p.https, 'secure.test')).fingerprint, pem('secure').fingerprint);
    const r = await httpsGet(p.https, 'secure.test', '/x');
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-backend'], 'web');
    assert.equal((await presented(p.https, 'a.sec.test')).fingerprint, pem('wild').fingerprint, 'a wildcard listener hostname');
    assert.equal((await presented(p.https, 'open.test')).fingerprint, pem('open').fingerprint, "a listener without hostname: the attached route's hostnames");
  });

  test('plain HTTP to a host only an HTTPS listener serves: 404, never the route unencrypted nor a redirect Gateway API does not ask for; an HTTP listener serves', async () => {
    const r = await get(p.http, 'secure.test', '/p?q=1');
    assert.deepEqual([r.status, r.headers.location], [404, undefined]);
    assert.equal((await get(p.http, 'plain.test', '/')).status, 200);
  });

  test("RequestRedirect on an HTTPS listener keeps the scheme and leaves out the port 443 (the listener's, not --https-port); over plain HTTP it is not served", async () => {
    const r = await httpsGet(p.https, 'secure.test', '/go/x?y=1');
    assert.deepEqual([r.status, r.headers.location], [302, 'https://other.test/go/x?y=1']);
    const plain = await get(p.http, 'secure.test', '/go/x');
    assert.deepEqual([plain.status, plain.headers.location], [404, undefined]);
  });

  test('a Secret in another namespace is used only with a ReferenceGrant from Gateways there; without one the default certificate serves, with a Warning', async () => {
    assert.equal((await presented(p.https, 'granted.test')).fingerprint, pem('granted').fingerprint);
    assert.notEqual((await presented(p.https, 'ungranted.test')).fingerprint, pem('ungranted').fingerprint);
    assert.ok(warned('RefNotPermitted: no ReferenceGrant in namespace private lets Gateways of default refer to Secret ungranted-tls'));
  });

  test('a listener on a port Portico holds is reported, and its routes are not served', async () => {
    assert.ok(warned(`port 8443 (local port ${own}, --gateway-port-map) is Portico's own (--default-server-port)`));
    assert.equal((await get(p.http, 'odd.test', '/')).status, 404);
  });

  test('a rotated certificate is served without a reload', async () => {
    const reloads = syncCount(p.output, 'reload');
    await writeManifests(dir, 'all.yaml', objects(pem('secure2')));
    await until('the new certificate of secure.test', async () => (await presented(p.https, 'secure.test')).fingerprint === pem('secure2').fingerprint);
    assert.equal(syncCount(p.output, 'reload'), reloads);
  });
});
