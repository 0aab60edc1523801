// End to end, local mode, real nginx: Gateway API behaviour the specification fixes where Ingress rules differ —
// wildcards of one or more labels, anchored regex paths, no Ingress ssl-redirect on Gateway listeners, a
// hostname-less HTTPS listener's certificate for any SNI, every RequestRedirect status code, ReferenceGrant at v1.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend, type Echo } from '../support/backends.js';
import { httpsGet, makeCert, presented, type Pem } from '../support/certs.js';
import { ingress, ingressClass } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { get, startPortico, until, type Reply, type Running } from '../support/portico.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { gateway, gatewayClass, httpRoute, referenceGrant } from '../support/gateway.js';

const ref = (name: string, namespace?: string): Record<string, unknown> => ({ name, port: 80, ...(namespace ? { namespace } : {}) });
const prefix = (value: string): Record<string, unknown> => ({ path: { type: 'PathPrefix', value } });
const aged = <T extends { metadata?: object }>(o: T, creationTimestamp: string): T => ({ ...o, metadata: { ...o.metadata, creationTimestamp } });

/** Who answered: the backend's id, else the status code. */
function whoOf(r: Pick<Reply, 'status' | 'headers'>): string {
  const id = r.headers['x-backend'];
  return r.status === 200 && typeof id === 'string' ? (id.split(',')[0] ?? '') : String(r.status);
}

describe('Gateway API as the specification reads, through real nginx', () => {
  let backends: Backend[] = [];
  let dir = '';
  let fixtures = '';
  let p: Running;
  const certs = new Map<string, Pem>();
  const pem = (name: string): Pem => certs.get(name) as Pem;
  const ask = async (host: string, path: string): Promise<string> => whoOf(await get(p.http, host, path));
  const askTls = async (host: string, path: string): Promise<string> => whoOf(await httpsGet(p.https, host, path));

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-gw-spec-'));
    for (const [name, host] of [
      ['both', 'both.test'],
      ['open', 'open.test'],
      ['owned', 'owned.test'],
      ['sec', '*.sec.test'],
    ] as const) {
      certs.set(name, makeCert(fixtures, host, { sans: [host] }));
    }
    backends = await Promise.all(['a', 'b', 'c', 'ing', 'far', 'other', 'mirror', 'mirror2'].map((id) => startBackend(id)));
    const by = (id: string): Backend => backends.find((b) => b.id === id) as Backend;
    dir = await manifestDir();
    const objects: unknown[] = [
      ingressClass('portico'),
      gatewayClass('portico'),
      ...['a', 'b', 'c', 'ing', 'mirror', 'mirror2'].flatMap((id) => serviceFor(id, [by(id)])),
      ...serviceFor('far', [by('far')], { namespace: 'far' }),
      ...serviceFor('other', [by('other')], { namespace: 'other' }),
      tlsSecret('both-tls', pem('both')),
      tlsSecret('open-tls', pem('open')),
      tlsSecret('sec-tls', pem('sec')),
      // ReferenceGrant at v1, the version current Gateway API releases write.
      { ...referenceGrant('to-far', 'far', 'default', 'Service'), apiVersion: 'gateway.networking.k8s.io/v1' },
      // Ingress wildcards keep Kubernetes' rule: exactly one label.
      ingress('ing-wild', { className: 'portico', host: '*.ing.test', paths: [{ path: '/', type: 'Prefix', service: 'ing' }] }),
      // An older Ingress of another namespace keeps its exact host under a Gateway wildcard.
      aged(ingress('deep', { namespace: 'other', className: 'portico', host: 'in.deep.rw.test', paths: [{ path: '/', type: 'Prefix', service: 'other' }] }), '2025-01-01T00:00:00Z'),
      // A name another namespace owns (older than the Gateway) never gets the hostname-less listener's certificate.
      aged(ingress('owned', { namespace: 'other', className: 'portico', host: 'owned.test', paths: [{ path: '/', type: 'Prefix', service: 'other' }] }), '2025-01-01T00:00:00Z'),
      aged(
        gateway('web', [
          { name: 'http', from: 'All' },
          { name: 'wild', hostname: '*.wild.test' },
          { name: 'secure', protocol: 'HTTPS', hostname: 'both.test', certificateRefs: [{ name: 'both-tls' }] },
          { name: 'open', protocol: 'HTTPS', certificateRefs: [{ name: 'open-tls' }] },
          { name: 'sec', protocol: 'HTTPS', hostname: '*.sec.test', certificateRefs: [{ name: 'sec-tls' }] },
        ]),
        '2026-01-01T00:00:00Z',
      ),
      httpRoute('regex', {
        parentRefs: [{ name: 'web', sectionName: 'http' }],
        hostnames: ['re.test'],
        rules: [{ matches: [{ path: { type: 'RegularExpression', value: '^/re/[0-9]+$' } }], backendRefs: [ref('a')] }],
      }),
      httpRoute('codes', {
        parentRefs: [{ name: 'web', sectionName: 'http' }],
        hostnames: ['codes.test'],
        rules: [301, 302, 303, 307, 308].map((statusCode) => ({
          matches: [prefix(`/s${statusCode}`)],
          filters: [{ type: 'RequestRedirect', requestRedirect: { hostname: 'moved.test', statusCode } }],
        })),
      }),
      httpRoute('wild-listener', { parentRefs: [{ name: 'web', sectionName: 'wild' }], rules: [{ backendRefs: [ref('b')] }] }),
      httpRoute('wild-route', { parentRefs: [{ name: 'web', sectionName: 'http' }], hostnames: ['*.rw.test'], rules: [{ backendRefs: [ref('c')] }] }),
      httpRoute('plain', { parentRefs: [{ name: 'web', sectionName: 'http' }], hostnames: ['both.test'], rules: [{ backendRefs: [ref('a')] }] }),
      httpRoute('secret', { parentRefs: [{ name: 'web', sectionName: 'secure' }], hostnames: ['both.test'], rules: [{ matches: [prefix('/secret')], backendRefs: [ref('b')] }] }),
      httpRoute('sec', { parentRefs: [{ name: 'web', sectionName: 'sec' }], rules: [{ backendRefs: [ref('a')] }] }),
      httpRoute('open', { parentRefs: [{ name: 'web', sectionName: 'open' }], hostnames: ['open.test'], rules: [{ backendRefs: [ref('c')] }] }),
      httpRoute('backend-filters', {
        parentRefs: [{ name: 'web', sectionName: 'http' }],
        hostnames: ['bf.test'],
        rules: [
          {
            matches: [prefix('/one')],
            filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-Rule', value: 'r' }] } }],
            backendRefs: [
              {
                ...ref('a'),
                filters: [
                  { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-Which', value: 'a' }], remove: ['X-Drop'] } },
                  { type: 'ResponseHeaderModifier', responseHeaderModifier: { add: [{ name: 'X-Resp', value: 'from-a' }] } },
                ],
              },
            ],
          },
          { matches: [prefix('/split')], backendRefs: [{ ...ref('a'), filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { add: [{ name: 'X-Which', value: 'a' }] } }] }, ref('b')] },
          { matches: [prefix('/unsupported')], backendRefs: [{ ...ref('a'), filters: [{ type: 'RequestMirror', requestMirror: { backendRef: ref('a') } }] }] },
        ],
      }),
      httpRoute('mirrors', {
        parentRefs: [{ name: 'web', sectionName: 'http' }],
        hostnames: ['mirror.test'],
        rules: [
          { matches: [prefix('/none')], backendRefs: [ref('a')], filters: [{ type: 'RequestMirror', requestMirror: { backendRef: ref('mirror'), percent: 0 } }] },
          { matches: [prefix('/half')], backendRefs: [ref('a')], filters: [{ type: 'RequestMirror', requestMirror: { backendRef: ref('mirror'), fraction: { numerator: 1, denominator: 2 } } }] },
          { matches: [prefix('/all')], backendRefs: [ref('a')], filters: [{ type: 'RequestMirror', requestMirror: { backendRef: ref('mirror'), percent: 100 } }] },
          {
            matches: [prefix('/two')],
            backendRefs: [ref('a')],
            filters: [
              { type: 'RequestMirror', requestMirror: { backendRef: ref('mirror') } },
              { type: 'RequestMirror', requestMirror: { backendRef: ref('mirror2') } },
            ],
          },
        ],
      }),
      httpRoute('named', { parentRefs: [{ name: 'web', port: 80 }], hostnames: ['named.test'], rules: [{ name: 'only-rule', backendRefs: [ref('b')] }] }),
      httpRoute('other-port', { parentRefs: [{ name: 'web', port: 8080 }], hostnames: ['port.test'], rules: [{ backendRefs: [ref('b')] }] }),
      httpRoute('granted', { parentRefs: [{ name: 'web', sectionName: 'http' }], hostnames: ['grant.test'], rules: [{ backendRefs: [ref('far', 'far')] }] }),
    ];
    await writeManifests(dir, 'all.yaml', objects);
    p = await startPortico(['--manifests', dir]);
  });

  after(async () => {
    assert.equal(await p?.stop(), 0);
    await Promise.all(backends.map((b) => b.close()));
    rmSync(dir, { recursive: true, force: true });
    rmSync(fixtures, { recursive: true, force: true });
  });

  test('a RegularExpression path anchored with ^ and $ is served', async () => {
    assert.deepEqual([await ask('re.test', '/re/123'), await ask('re.test', '/re/12a'), await ask('re.test', '/re/123/x')], ['a', '404', '404']);
  });

  test('RequestRedirect statusCode 301, 302, 303, 307 and 308 are each answered with that code', async () => {
    const got: string[] = [];
    for (const code of [301, 302, 303, 307, 308]) {
      const r = await get(p.http, 'codes.test', `/s${code}/x`);
      got.push(`${r.status} ${String(r.headers.location)}`);
    }
    assert.deepEqual(
      got,
      [301, 302, 303, 307, 308].map((c) => `${c} http://moved.test/s${c}/x`),
    );
  });

  test('a ReferenceGrant at gateway.networking.k8s.io/v1 lets a route use a Service of another namespace', async () => {
    assert.equal(await ask('grant.test', '/'), 'far');
  });

  test("an HTTP listener's route is served over HTTP although an HTTPS listener serves its host; an HTTPS listener's route never over HTTP", async () => {
    const plain = await get(p.http, 'both.test', '/x');
    assert.deepEqual([whoOf(plain), plain.headers.location], ['a', undefined], 'no Ingress ssl-redirect: only a RequestRedirect filter redirects');
    assert.equal(await ask('both.test', '/secret'), 'a', 'the HTTPS-only route is not served unencrypted; the HTTP route takes the path');
    assert.equal(await askTls('both.test', '/secret'), 'b');
  });

  test('an HTTPS listener without hostname presents its certificate for any name nobody else owns; an unknown name then gets the 404', async () => {
    assert.equal((await presented(p.https, 'unknown.test')).fingerprint, pem('open').fingerprint);
    assert.equal(await askTls('unknown.test', '/'), '404');
    assert.equal((await presented(p.https, 'open.test')).fingerprint, pem('open').fingerprint);
    assert.notEqual((await presented(p.https, 'owned.test')).fingerprint, pem('open').fingerprint, "a host of another namespace's Ingress: the default certificate");
    assert.equal((await presented(p.https, 'both.test')).fingerprint, pem('both').fingerprint);
  });

  test('a Gateway wildcard hostname (listener or route) matches one or more labels; an Ingress wildcard exactly one', async () => {
    const got = [
      await ask('a.wild.test', '/'),
      await ask('a.b.wild.test', '/x'),
      await ask('a.rw.test', '/'),
      await ask('x.y.rw.test', '/'),
      await ask('zz.deep.rw.test', '/'),
      await ask('in.deep.rw.test', '/'),
      await ask('a.ing.test', '/'),
      await ask('a.b.ing.test', '/'),
      await ask('wild.test', '/'),
    ];
    assert.deepEqual(got, ['b', 'b', 'c', 'c', 'c', 'other', 'ing', '404', '404']);
  });

  test("a wildcard HTTPS listener's certificate and routes serve names of one or more labels under it", async () => {
    assert.equal((await presented(p.https, 'a.sec.test')).fingerprint, pem('sec').fingerprint);
    assert.equal((await presented(p.https, 'a.b.sec.test')).fingerprint, pem('sec').fingerprint);
    assert.deepEqual([await askTls('a.sec.test', '/'), await askTls('a.b.sec.test', '/'), await ask('a.b.sec.test', '/')], ['a', 'a', '404']);
  });

  test('RequestHeaderModifier and ResponseHeaderModifier on a backendRef apply to the requests sent to that backend only', async () => {
    const r = await get(p.http, 'bf.test', '/one', { headers: { 'X-Drop': '1' } });
    const echo = JSON.parse(r.body) as Echo;
    assert.deepEqual([r.status, echo.headers['x-rule'], echo.headers['x-which'], echo.headers['x-drop'], r.headers['x-resp']], [200, 'r', 'a', undefined, 'from-a']);
    const seen = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const e = JSON.parse((await get(p.http, 'bf.test', '/split')).body) as Echo;
      seen.add(`${e.id}:${String(e.headers['x-which'])}`);
    }
    assert.deepEqual([...seen].sort(), ['a:a', 'b:undefined']);
    assert.equal(await ask('bf.test', '/unsupported'), '500', 'a backendRef filter Portico does not apply: its share answers 500');
  });

  test('RequestMirror percent and fraction copy that share of requests', async () => {
    const mirror = backends.find((b) => b.id === 'mirror') as Backend;
    const copies = (path: string): number => mirror.seen.filter((e) => e.url === path).length;
    for (let i = 0; i < 5; i++) assert.equal(await ask('mirror.test', '/none'), 'a');
    for (let i = 0; i < 40; i++) assert.equal(await ask('mirror.test', '/half'), 'a');
    assert.equal(await ask('mirror.test', '/all'), 'a');
    // The copies of /none and /half were sent before the one of /all.
    await until('the copy of /all', () => copies('/all') === 1);
    await until('some copies of /half', () => copies('/half') > 0);
    assert.ok(copies('/half') < 40, `about half of 40 requests copied, not ${copies('/half')}`);
    assert.equal(copies('/none'), 0);
  });

  test('a named rule is served; a parentRef port selects the listeners on that port only', async () => {
    assert.deepEqual([await ask('named.test', '/'), await ask('port.test', '/')], ['b', '404']);
  });

  test('several RequestMirror filters in one rule each get a copy', async () => {
    const seen = (id: string): number => (backends.find((b) => b.id === id) as Backend).seen.filter((e) => e.url === '/two/x').length;
    assert.equal(await ask('mirror.test', '/two/x'), 'a');
    await until('both mirrors saw the copy', () => seen('mirror') === 1 && seen('mirror2') === 1);
  });
});
