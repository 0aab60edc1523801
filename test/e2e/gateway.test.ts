// End to end, local mode, real nginx: HTTPRoutes served beside Ingresses (first slice: HTTP listeners, path matches, one Service backend).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, ingressClass } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';
import { gateway, gatewayClass, httpRoute, referenceGrant } from '../support/gateway.js';

const ref = (name: string, port = 80, namespace?: string): Record<string, unknown> => ({ name, port, ...(namespace ? { namespace } : {}) });

describe('Gateway API through real nginx', () => {
  let backends: Backend[] = [];
  let dir = '';
  let p: Running;
  let objects: unknown[] = [];

  before(async () => {
    backends = await Promise.all(['a', 'b', 'c', 'ing', 'shared', 'next'].map((id) => startBackend(id)));
    const [a, b, c, ing, shared, next] = backends as [Backend, Backend, Backend, Backend, Backend, Backend];
    dir = await manifestDir();
    objects = [
      ingressClass('portico'),
      gatewayClass('portico'),
      gatewayClass('theirs', 'example.com/other-controller'),
      ...serviceFor('a', [a]),
      ...serviceFor('b', [b]),
      ...serviceFor('c', [c]),
      ...serviceFor('ing', [ing]),
      ...serviceFor('next', [next]),
      ...serviceFor('shared', [shared], { namespace: 'shared' }),
      ...serviceFor('local', [a], { namespace: 'team' }),
      ingress('side', { className: 'portico', host: 'ing.test', paths: [{ path: '/', type: 'Prefix', service: 'ing' }] }),
      gateway('web', [{ name: 'same' }, { name: 'all', from: 'All', hostname: 'team.test' }, { name: 'wild', hostname: '*.wild.test' }]),
      gateway('other', [{ name: 'http' }], { className: 'theirs' }),
      httpRoute('paths', {
        parentRefs: [{ name: 'web', sectionName: 'same' }],
        hostnames: ['gw.test'],
        rules: [
          { matches: [{ path: { type: 'Exact', value: '/exact' } }], backendRefs: [ref('b')] },
          { matches: [{ path: { type: 'PathPrefix', value: '/pre/' } }], backendRefs: [ref('c')] },
          { backendRefs: [ref('a')] },
        ],
      }),
      httpRoute('wild', { parentRefs: [{ name: 'web', sectionName: 'wild' }], hostnames: ['x.wild.test', 'elsewhere.test'], rules: [{ backendRefs: [ref('b')] }] }),
      httpRoute('theirs', { parentRefs: [{ name: 'other' }], hostnames: ['theirs.test'], rules: [{ backendRefs: [ref('a')] }] }),
      // Namespace team: allowed by the listener `all` only; Services of `shared` only with the ReferenceGrant there.
      httpRoute(
        'team',
        {
          parentRefs: [{ name: 'web', namespace: 'default' }],
          rules: [
            { matches: [{ path: { type: 'PathPrefix', value: '/granted' } }], backendRefs: [ref('shared', 80, 'shared')] },
            { matches: [{ path: { type: 'PathPrefix', value: '/ungranted' } }], backendRefs: [ref('a', 80, 'default')] },
            { matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [ref('local')] },
          ],
        },
        'team',
      ),
      referenceGrant('team-to-shared', 'shared', 'team', 'Service'),
      httpRoute('header', {
        parentRefs: [{ name: 'web' }],
        hostnames: ['header.test'],
        rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' }, headers: [{ name: 'x-canary', value: 'yes' }] }], backendRefs: [ref('b')] }],
      }),
    ];
    await writeManifests(dir, 'all.yaml', objects);
    p = await startPortico(['--manifests', dir]);
  });

  after(async () => {
    assert.equal(await p?.stop(), 0);
    await Promise.all(backends.map((b) => b.close()));
    await rm(dir, { recursive: true, force: true });
  });

  test('an Ingress and an HTTPRoute side by side; Exact beats PathPrefix, the longest prefix wins, prefixes match whole segments', async () => {
    const got = await Promise.all(
      [
        ['ing.test', '/'],
        ['gw.test', '/exact'],
        ['gw.test', '/exact/more'],
        ['gw.test', '/pre'],
        ['gw.test', '/pre/x'],
        ['gw.test', '/prefix'],
        ['gw.test', '/'],
      ].map(async ([h, path]) => `${h}${path} ${await who(p.http, h!, path!)}`),
    );
    assert.deepEqual(got, ['ing.test/ ing', 'gw.test/exact b', 'gw.test/exact/more a', 'gw.test/pre c', 'gw.test/pre/x c', 'gw.test/prefix a', 'gw.test/ a']);
  });

  test('hostnames intersect with the listener: a wildcard listener takes the route hostnames it covers, and no other', async () => {
    assert.deepEqual([await who(p.http, 'x.wild.test', '/'), await who(p.http, 'elsewhere.test', '/')], ['b', '404']);
  });

  test('a route of another GatewayClass, and a route from a namespace a listener does not allow, are not served', async () => {
    assert.equal(await who(p.http, 'theirs.test', '/'), '404');
    // team's route names every listener of web; only `all` (hostname team.test) allows namespace team.
    assert.equal(await who(p.http, 'gw.test', '/granted'), 'a', 'not attached to the listener `same`: gw.test keeps its own routes');
  });

  test('a backend in another namespace is served only with a ReferenceGrant there; without one its requests answer 500 (the specification), with a Warning', async () => {
    assert.deepEqual([await who(p.http, 'team.test', '/granted/x'), await who(p.http, 'team.test', '/ungranted'), await who(p.http, 'team.test', '/')], ['shared', '500', 'a']);
    assert.ok(p.output.some((l) => l.includes('RefNotPermitted: no ReferenceGrant in namespace default lets HTTPRoutes of team refer to Service a')));
  });

  test('a header match takes only the requests that carry the header (the Lua route table, docs/adr/0011)', async () => {
    const withHeader = await get(p.http, 'header.test', '/', { headers: { 'x-canary': 'yes' } });
    assert.deepEqual([await who(p.http, 'header.test', '/'), withHeader.headers['x-backend']], ['404', 'b']);
  });

  test('a route changed while running is applied', async () => {
    const changed = objects.map((o) =>
      (o as { kind?: string; metadata?: { name?: string } }).kind === 'HTTPRoute' && (o as { metadata: { name: string } }).metadata.name === 'wild'
        ? httpRoute('wild', { parentRefs: [{ name: 'web', sectionName: 'wild' }], hostnames: ['x.wild.test'], rules: [{ backendRefs: [ref('next')] }] })
        : o,
    );
    await writeManifests(dir, 'all.yaml', changed);
    await until('x.wild.test served by next', async () => (await who(p.http, 'x.wild.test', '/')) === 'next');
  });
});
