// portico.gateway against a real nginx with a hand-written conf: the /configuration/gateway endpoint drops and names
// the entries it cannot run and refuses a body that is no table, and ReplacePrefixMatch follows the specification's
// table (docs/adr/0011).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request, startBackend, startNginx, endpointsOf, type Backend, type Nginx } from './harness.js';

/** A location as render/gateway.ts emits it for the route-table key `key`, built-in 404 as its own target. */
function gatewayLocation(loc: string, key: string): string {
  return `
        location ${loc} {
            set $portico_backend "";
            set $portico_gw "${key}";
            rewrite_by_lua_block { require("portico.gateway").rewrite() }
            header_filter_by_lua_block { require("portico.gateway").header_filter() }
            proxy_pass http://portico_balancer;
        }`;
}

const prefix = (value: string): Record<string, unknown> => ({ path: { type: 'PathPrefix', value }, headers: [], query: [] });
const redirectTo = (value: string): Record<string, unknown> => ({ backends: [], redirect: { statusCode: 302, path: { type: 'ReplacePrefixMatch', value } } });

/** Location keys: which prefix each location matched and which replacement it redirects with. */
const CASES: readonly [string, string, string][] = [
  ['/foo', 'xyz', '/xyz'],
  ['/foo', 'xyzslash', '/xyz/'],
  ['/foo', 'empty', ''],
  ['/foo', 'slash', '/'],
];

describe('portico.gateway through real nginx', () => {
  let nginx: Nginx;
  let web: Backend;

  before(async () => {
    web = await startBackend('web');
    nginx = await startNginx({ workers: 1, locations: CASES.map(([, key], i) => gatewayLocation(`/c${i}/`, key)).join('') + gatewayLocation('/', 'root') });
    assert.equal((await nginx.post('/configuration/backends', [{ name: 'web', endpoints: endpointsOf(web), loadBalance: 'round_robin', hashBy: '', affinity: null }])).status, 201);
  });

  after(async () => {
    await nginx?.stop();
    await web?.close();
  });

  it('a valid table is stored and served: a header match proxies, no match answers 404', async () => {
    const table = {
      actions: [{ backends: [{ upstream: 'web', weight: 1 }], responseHeaders: { set: [{ name: 'X-Gw', value: 'yes' }], add: [], remove: [] } }, ...CASES.map(([, , v]) => redirectTo(v))],
      locations: {
        root: [{ match: { ...prefix('/'), headers: [{ name: 'x-go', type: 'RegularExpression', value: 'y(es)?' }] }, action: 0 }],
        ...Object.fromEntries(CASES.map(([p, key], i) => [key, [{ match: prefix(`/c${i}${p}`), action: i + 1 }]])),
      },
    };
    assert.equal((await nginx.post('/configuration/gateway', table)).status, 201);
    const yes = await request(nginx.port, '/x', { headers: { 'x-go': 'yes' } });
    const partial = await request(nginx.port, '/x', { headers: { 'x-go': 'yess' } });
    assert.deepEqual([yes.status, yes.headers['x-gw'], partial.status], [200, 'yes', 404]);
  });

  it('ReplacePrefixMatch as the specification tabulates it (prefix /foo)', async () => {
    const got: string[] = [];
    for (const [i] of CASES.entries()) {
      for (const rest of ['', '/', '/bar']) {
        const r = await request(nginx.port, `/c${i}/foo${rest}`);
        got.push(`${CASES[i]?.[2] || '""'} ${rest || '-'} ${String(r.headers.location).replace(/^http:\/\/[^/]+/, '')}`);
      }
    }
    assert.deepEqual(got, [
      '/xyz - /xyz',
      '/xyz / /xyz/',
      '/xyz /bar /xyz/bar',
      '/xyz/ - /xyz/',
      '/xyz/ / /xyz/',
      '/xyz/ /bar /xyz/bar',
      '"" - /',
      '"" / /',
      '"" /bar /bar',
      '/ - /',
      '/ / /',
      '/ /bar /bar',
    ]);
  });

  it('entries Lua cannot run are dropped and named, the rest stored; a body that is no table is refused and nothing changes', async () => {
    const good = { match: { ...prefix('/'), headers: [{ name: 'x-go', type: 'Exact', value: 'y' }] }, action: 0 };
    const table = {
      actions: [
        { backends: [{ upstream: 'web', weight: 1 }] },
        { backends: [{ upstream: 'web', weight: 0 }] },
        { backends: [], requestHeaders: { set: [{ name: 'X', value: 'a\r\nB: c' }] } },
        { backends: [{ upstream: 'web"; x', weight: 1 }] },
      ],
      locations: {
        root: [{ match: { ...prefix('/'), headers: [{ name: 'x-go', type: 'RegularExpression', value: '(' }] }, action: 0 }, good],
        other: [
          { match: prefix('/'), action: 1 },
          { match: prefix('/'), action: 2 },
          { match: prefix('/'), action: 3 },
          { match: prefix('/'), action: 9 },
        ],
      },
    };
    const r = await nginx.post('/configuration/gateway', table);
    assert.equal(r.status, 201);
    const named = r.body
      .split('\n')
      .filter((l) => l.startsWith('rejected '))
      .map((l) => l.split(':')[0])
      .sort();
    assert.deepEqual(named, [
      'rejected actions[1]',
      'rejected actions[2]',
      'rejected actions[3]',
      'rejected locations.other[0]',
      'rejected locations.other[1]',
      'rejected locations.other[2]',
      'rejected locations.other[3]',
      'rejected locations.root[0]',
    ]);
    assert.deepEqual([(await request(nginx.port, '/x', { headers: { 'x-go': 'y' } })).status, (await request(nginx.port, '/x', { headers: { 'x-go': '(' } })).status], [200, 404]);
    for (const body of ['{oops', '[]', { actions: [], locations: { 'bad key!': [] } }]) {
      assert.equal((await nginx.post('/configuration/gateway', body)).status, 400, JSON.stringify(body));
    }
    assert.equal((await request(nginx.port, '/x', { headers: { 'x-go': 'y' } })).status, 200);
  });

  it('listener isolation: a match is skipped for hosts of its exceptHosts (exact, or any depth under a wildcard); hostile lists are dropped', async () => {
    const table = {
      actions: [{ backends: [{ upstream: 'web', weight: 1 }] }],
      locations: {
        root: [
          { match: { ...prefix('/'), exceptHosts: ['a.example.test"; deny all'] }, action: 0 },
          { match: { ...prefix('/'), exceptHosts: [] }, action: 0 },
          { match: { ...prefix('/'), exceptHosts: ['*example.test'] }, action: 0 },
          { match: { ...prefix('/'), exceptHosts: ['abc.example.test', '*.foo.example.test'] }, action: 0 },
        ],
      },
    };
    const r = await nginx.post('/configuration/gateway', table);
    assert.equal(r.status, 201);
    const named = r.body
      .split('\n')
      .filter((l) => l.startsWith('rejected '))
      .map((l) => l.split(':')[0]);
    assert.deepEqual(named, ['rejected locations.root[0]', 'rejected locations.root[1]', 'rejected locations.root[2]']);
    const status = async (host: string): Promise<number> => (await request(nginx.port, '/x', { headers: { host } })).status;
    assert.deepEqual(
      [await status('abc.example.test'), await status('b.foo.example.test'), await status('a.b.foo.example.test'), await status('foo.example.test'), await status('x.example.test')],
      [404, 404, 404, 200, 200],
    );
  });

  it('the scheme, host suffix, backendRef header edits and mirror share are checked: hostile values are dropped and named', async () => {
    const table = {
      actions: [
        { backends: [{ upstream: 'web', weight: 1, requestHeaders: { set: [{ name: 'X-B', value: 'b' }], add: [], remove: [] } }], mirrorPercent: 50 },
        { backends: [{ upstream: 'web', weight: 1, responseHeaders: { set: [{ name: 'X', value: 'a\r\nB: c' }] } }] },
        { backends: [{ upstream: 'web', weight: 1 }], mirrorPercent: 101 },
      ],
      locations: {
        root: [
          { match: { ...prefix('/'), scheme: 'gopher' }, action: 0 },
          { match: { ...prefix('/'), hostSuffix: '.x"; deny all' }, action: 0 },
          { match: { ...prefix('/'), hostSuffix: '.ok.test' }, action: 0 },
          { match: { ...prefix('/'), scheme: 'https' }, action: 0 },
        ],
        other: [
          { match: prefix('/'), action: 1 },
          { match: prefix('/'), action: 2 },
        ],
      },
    };
    const r = await nginx.post('/configuration/gateway', table);
    assert.equal(r.status, 201);
    const named = r.body
      .split('\n')
      .filter((l) => l.startsWith('rejected '))
      .map((l) => l.split(':')[0])
      .sort();
    assert.deepEqual(named, ['rejected actions[1]', 'rejected actions[2]', 'rejected locations.other[0]', 'rejected locations.other[1]', 'rejected locations.root[0]', 'rejected locations.root[1]']);
    // Over plain HTTP and for another host, neither kept candidate applies: the location's own 404.
    assert.equal((await request(nginx.port, '/x')).status, 404);
  });
});
