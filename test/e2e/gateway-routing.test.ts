// End to end, local mode, real nginx: HTTPRoute matching, precedence, filters, weights, mirroring and invalid
// references through the Lua route table (docs/adr/0011), by sending real requests.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend, type Echo } from '../support/backends.js';
import { createServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { manifestDir, serviceFor, writeManifests } from '../support/manifests.js';
import { get, startPortico, syncCount, until, type Reply, type Running } from '../support/portico.js';
import { gateway, gatewayClass, httpRoute } from '../support/gateway.js';

const ref = (name: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({ name, port: 80, ...extra });
const prefix = (value: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ path: { type: 'PathPrefix', value }, ...more });
const hdr = (name: string, value: string, type = 'Exact'): Record<string, string> => ({ type, name, value });
const aged = (route: Record<string, unknown>, creationTimestamp: string): Record<string, unknown> => ({ ...route, metadata: { ...(route.metadata as object), creationTimestamp } });

/** Who answered: the backend's id, else the status code. */
function whoOf(r: Reply): string {
  return r.status === 200 && typeof r.headers['x-backend'] === 'string' ? (r.headers['x-backend'].split(',')[0] ?? '') : String(r.status);
}

async function ask(p: Running, host: string, path: string, opts: { method?: string; headers?: Record<string, string> } = {}): Promise<string> {
  return whoOf(await get(p.http, host, path, opts));
}

/** `n` requests (n bounded by the caller), the set of answers seen. */
async function sample(p: Running, host: string, path: string, n: number): Promise<Set<string>> {
  const seen = new Set<string>();
  for (let i = 0; i < n; i++) seen.add(await ask(p, host, path));
  return seen;
}

function weightRoute(split: [number, number]): Record<string, unknown> {
  return aged(
    httpRoute('weights', {
      parentRefs: [{ name: 'web' }],
      hostnames: ['weights.test'],
      rules: [
        { matches: [prefix('/split')], backendRefs: [ref('a', { weight: split[0] }), ref('b', { weight: split[1] })] },
        { matches: [prefix('/zero')], backendRefs: [ref('a', { weight: 0 }), ref('b', { weight: 1 })] },
        { matches: [prefix('/allzero')], backendRefs: [ref('a', { weight: 0 })] },
        { matches: [prefix('/missing')], backendRefs: [ref('nosuch')] },
        { matches: [prefix('/half-missing')], backendRefs: [ref('a'), ref('nosuch')] },
        { matches: [prefix('/kind')], backendRefs: [{ group: '', kind: 'ConfigMap', name: 'a' }] },
        { matches: [prefix('/granted')], backendRefs: [ref('far', { namespace: 'far' })] },
        { matches: [prefix('/denied')], backendRefs: [ref('far2', { namespace: 'far' })] },
      ],
    }),
    '2026-01-05T00:00:00Z',
  );
}

describe('Gateway API route table through real nginx', () => {
  let backends: Backend[] = [];
  let dir = '';
  let p: Running;
  let objects: Record<string, unknown>[] = [];
  let silent: NetServer;
  const held: Socket[] = [];
  const byId = (id: string): Backend => backends.find((b) => b.id === id) as Backend;

  before(async () => {
    backends = await Promise.all(['a', 'b', 'c', 'd', 'ing', 'mirror', 'far', 'far2'].map((id) => startBackend(id)));
    // A backend that accepts and never answers: only the rule's timeout ends the request.
    silent = createServer((socket) => {
      held.push(socket);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    dir = await manifestDir();
    objects = [
      ingressClass('portico') as Record<string, unknown>,
      gatewayClass('portico'),
      ...(['a', 'b', 'c', 'd', 'ing', 'mirror'].flatMap((id) => serviceFor(id, [byId(id)])) as Record<string, unknown>[]),
      ...(serviceFor('far', [byId('far')], { namespace: 'far' }) as Record<string, unknown>[]),
      service('silent') as unknown as Record<string, unknown>,
      slice('silent', (silent.address() as AddressInfo).port, ['127.0.0.1']) as unknown as Record<string, unknown>,
      ...(serviceFor('far2', [byId('far2')], { namespace: 'far' }) as Record<string, unknown>[]),
      {
        apiVersion: 'gateway.networking.k8s.io/v1beta1',
        kind: 'ReferenceGrant',
        metadata: { name: 'only-far', namespace: 'far' },
        spec: { from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'default' }], to: [{ group: '', kind: 'Service', name: 'far' }] },
      },
      ingress('side', { className: 'portico', host: 'mixed.test', paths: [{ path: '/', type: 'Prefix', service: 'ing' }] }) as Record<string, unknown>,
      gateway('web', [{ name: 'http' }]),
      aged(
        httpRoute('match', {
          parentRefs: [{ name: 'web' }],
          hostnames: ['match.test'],
          rules: [
            { matches: [prefix('/m', { headers: [hdr('X-Env', 'canary')] })], backendRefs: [ref('b')] },
            { matches: [prefix('/m', { headers: [hdr('x-version', 'v[0-9]+', 'RegularExpression')] })], backendRefs: [ref('c')] },
            { matches: [prefix('/m', { queryParams: [hdr('color', 'blue')] })], backendRefs: [ref('d')] },
            { matches: [prefix('/m', { method: 'POST' })], backendRefs: [ref('c')] },
            { matches: [{ path: { type: 'RegularExpression', value: '/re/[a-z]+/[0-9]+' } }], backendRefs: [ref('d')] },
            { matches: [prefix('/m')], backendRefs: [ref('a')] },
            { matches: [prefix('/and', { headers: [hdr('x-a', '1')], queryParams: [hdr('q', '1', 'RegularExpression')] })], backendRefs: [ref('b')] },
            { matches: [prefix('/and')], backendRefs: [ref('a')] },
            { matches: [{ path: { type: 'Exact', value: '/or1' } }, { path: { type: 'Exact', value: '/or2' } }], backendRefs: [ref('c')] },
          ],
        }),
        '2026-01-01T00:00:00Z',
      ),
      aged(
        httpRoute('older', { parentRefs: [{ name: 'web' }], hostnames: ['prec.test'], rules: [{ matches: [prefix('/p', { headers: [hdr('x-h', '1')] })], backendRefs: [ref('a')] }] }),
        '2026-01-01T00:00:00Z',
      ),
      aged(
        httpRoute('newer', {
          parentRefs: [{ name: 'web' }],
          hostnames: ['prec.test'],
          rules: [
            { matches: [prefix('/p', { headers: [hdr('x-h', '1')] })], backendRefs: [ref('b')] },
            { matches: [prefix('/p/longer')], backendRefs: [ref('c')] },
            { matches: [prefix('/p', { headers: [hdr('x-h', '1'), hdr('x-i', '1')] })], backendRefs: [ref('d')] },
            { matches: [prefix('/q', { headers: [hdr('x-h', '1')] })], backendRefs: [ref('a')] },
            { matches: [prefix('/q', { method: 'GET' })], backendRefs: [ref('b')] },
          ],
        }),
        '2026-01-02T00:00:00Z',
      ),
      aged(
        httpRoute('filters', {
          parentRefs: [{ name: 'web' }],
          hostnames: ['filters.test'],
          rules: [
            {
              matches: [prefix('/headers')],
              backendRefs: [ref('a')],
              filters: [
                { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-Set', value: 'set' }], add: [{ name: 'X-Add', value: 'added' }], remove: ['X-Remove'] } },
                { type: 'ResponseHeaderModifier', responseHeaderModifier: { set: [{ name: 'X-Resp', value: 'r' }], add: [{ name: 'X-Backend', value: 'extra' }], remove: ['Content-Type'] } },
              ],
            },
            { matches: [prefix('/redirect')], filters: [{ type: 'RequestRedirect', requestRedirect: { scheme: 'https', hostname: 'secure.test', statusCode: 301 } }] },
            { matches: [prefix('/moved')], filters: [{ type: 'RequestRedirect', requestRedirect: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/new' } } }] },
            {
              matches: [{ path: { type: 'Exact', value: '/full-redirect' } }],
              filters: [{ type: 'RequestRedirect', requestRedirect: { port: 8080, path: { type: 'ReplaceFullPath', replaceFullPath: '/elsewhere' } } }],
            },
            {
              matches: [prefix('/rewrite')],
              backendRefs: [ref('b')],
              filters: [{ type: 'URLRewrite', urlRewrite: { hostname: 'rewritten.test', path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '/inner' } } }],
            },
            { matches: [prefix('/full')], backendRefs: [ref('b')], filters: [{ type: 'URLRewrite', urlRewrite: { path: { type: 'ReplaceFullPath', replaceFullPath: '/only' } } }] },
            { matches: [prefix('/mirror')], backendRefs: [ref('a')], filters: [{ type: 'RequestMirror', requestMirror: { backendRef: ref('mirror') } }] },
            { matches: [prefix('/timeout')], backendRefs: [ref('c')], timeouts: { request: '5s', backendRequest: '2s' } },
            { matches: [prefix('/slow')], backendRefs: [ref('silent')], timeouts: { backendRequest: '1s' } },
            {
              matches: [prefix('/bad-filter')],
              backendRefs: [ref('a')],
              filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-Evil', value: 'a\r\nInjected: 1' }] } }],
            },
          ],
        }),
        '2026-01-03T00:00:00Z',
      ),
      aged(
        httpRoute('mixed', { parentRefs: [{ name: 'web' }], hostnames: ['mixed.test'], rules: [{ matches: [prefix('/api', { headers: [hdr('x-api', '1')] })], backendRefs: [ref('b')] }] }),
        '2026-01-04T00:00:00Z',
      ),
      weightRoute([1, 1]),
    ];
    await writeManifests(dir, 'all.yaml', objects);
    p = await startPortico(['--manifests', dir]);
  });

  after(async () => {
    assert.equal(await p?.stop(), 0);
    await Promise.all(backends.map((b) => b.close()));
    for (const s of held) s.destroy();
    await new Promise<void>((resolve) => {
      silent.close(() => {
        resolve();
      });
    });
    await rm(dir, { recursive: true, force: true });
  });

  test('headers (Exact, RegularExpression matched whole), query parameters, method and regex paths each choose a backend', async () => {
    const got = [
      await ask(p, 'match.test', '/m'),
      await ask(p, 'match.test', '/m', { headers: { 'x-env': 'canary' } }),
      await ask(p, 'match.test', '/m', { headers: { 'X-Env': 'other' } }),
      await ask(p, 'match.test', '/m/x', { headers: { 'x-version': 'v12' } }),
      await ask(p, 'match.test', '/m', { headers: { 'x-version': 'v12x' } }),
      await ask(p, 'match.test', '/m?color=blue'),
      await ask(p, 'match.test', '/m?color=Blue'),
      await ask(p, 'match.test', '/m', { method: 'POST' }),
      await ask(p, 'match.test', '/re/abc/42'),
      await ask(p, 'match.test', '/re/abc/42/more'),
      await ask(p, 'match.test', '/mx'),
    ];
    assert.deepEqual(got, ['a', 'b', 'a', 'c', 'a', 'd', 'a', 'c', 'd', '404', '404']);
  });

  test('conditions are ANDed within a match and matches ORed within a rule', async () => {
    const got = [
      await ask(p, 'match.test', '/and', { headers: { 'x-a': '1' } }),
      await ask(p, 'match.test', '/and?q=1'),
      await ask(p, 'match.test', '/and?q=1', { headers: { 'x-a': '1' } }),
      await ask(p, 'match.test', '/or1'),
      await ask(p, 'match.test', '/or2'),
      await ask(p, 'match.test', '/or3'),
    ];
    assert.deepEqual(got, ['a', 'a', 'b', 'c', 'c', '404']);
  });

  test('precedence across routes: longest prefix, then method, then most headers, then the oldest route', async () => {
    const got = [
      await ask(p, 'prec.test', '/p', { headers: { 'x-h': '1' } }),
      await ask(p, 'prec.test', '/p/longer', { headers: { 'x-h': '1' } }),
      await ask(p, 'prec.test', '/p', { headers: { 'x-h': '1', 'x-i': '1' } }),
      await ask(p, 'prec.test', '/q', { headers: { 'x-h': '1' } }),
      await ask(p, 'prec.test', '/q', { method: 'DELETE', headers: { 'x-h': '1' } }),
      await ask(p, 'prec.test', '/p'),
    ];
    assert.deepEqual(got, ['a', 'c', 'd', 'b', 'a', '404']);
  });

  test('RequestHeaderModifier sets, appends and removes; ResponseHeaderModifier too', async () => {
    const r = await get(p.http, 'filters.test', '/headers', { headers: { 'X-Set': 'old', 'X-Add': 'orig', 'X-Remove': 'gone' } });
    assert.equal(r.status, 200);
    const echo = JSON.parse(r.body) as Echo;
    assert.deepEqual([echo.id, echo.headers['x-set'], echo.headers['x-add'], echo.headers['x-remove']], ['a', 'set', 'orig,added', undefined]);
    assert.deepEqual([r.headers['x-resp'], r.headers['x-backend'], r.headers['content-type']], ['r', 'a,extra', undefined]);
  });

  test('RequestRedirect: scheme and hostname, ReplacePrefixMatch, ReplaceFullPath with a port; the query is kept', async () => {
    const a = await get(p.http, 'filters.test', '/redirect/x?y=1');
    const b = await get(p.http, 'filters.test', '/moved/deep/er');
    const c = await get(p.http, 'filters.test', '/full-redirect');
    const d = await get(p.http, 'filters.test', '/moved/a%20b');
    assert.deepEqual([d.status, d.headers.location], [302, 'http://filters.test/new/a%20b'], 'the path stays escaped as sent');
    assert.deepEqual([a.status, a.headers.location], [301, 'https://secure.test/redirect/x?y=1']);
    assert.deepEqual([b.status, b.headers.location], [302, 'http://filters.test/new/deep/er']);
    assert.deepEqual([c.status, c.headers.location], [302, 'http://filters.test:8080/elsewhere']);
  });

  test('URLRewrite: hostname and ReplacePrefixMatch, ReplaceFullPath; the query is kept', async () => {
    const a = JSON.parse((await get(p.http, 'filters.test', '/rewrite/x?q=1')).body) as Echo;
    const b = JSON.parse((await get(p.http, 'filters.test', '/full/any/thing')).body) as Echo;
    assert.deepEqual([a.id, a.url, a.headers.host, b.id, b.url], ['b', '/inner/x?q=1', 'rewritten.test', 'b', '/only']);
  });

  test('RequestMirror sends a copy to the mirror backend; the client gets the main backend', async () => {
    const before = byId('mirror').seen.length;
    assert.equal(await ask(p, 'filters.test', '/mirror/copy-me'), 'a');
    await until('the mirror saw the copy', () =>
      byId('mirror')
        .seen.slice(before)
        .some((e) => e.url === '/mirror/copy-me'),
    );
  });

  test('timeouts: a rule with them is served, a backend slower than backendRequest answers 504; a hostile header value refuses its rule with a Warning', async () => {
    assert.equal(await ask(p, 'filters.test', '/timeout'), 'c');
    assert.equal((await get(p.http, 'filters.test', '/slow', { timeoutMs: 20_000 })).status, 504, 'nginx would wait 60 s without the rule timeout');
    assert.equal(await ask(p, 'filters.test', '/bad-filter'), '404');
    assert.ok(p.output.some((l) => l.includes('spec.rules[9].filters[0].requestHeaderModifier.set[0].value')));
  });

  test('weights: both backends of a 1:1 split are seen, a weight-0 backend never; all zero, missing, wrong kind or ungranted backends answer 500', async () => {
    const split = await sample(p, 'weights.test', '/split', 60);
    assert.deepEqual([...split].sort(), ['a', 'b']);
    assert.deepEqual([...(await sample(p, 'weights.test', '/zero', 20))], ['b']);
    const half = await sample(p, 'weights.test', '/half-missing', 60);
    assert.deepEqual([...half].sort(), ['500', 'a']);
    const rest = [
      await ask(p, 'weights.test', '/allzero'),
      await ask(p, 'weights.test', '/missing'),
      await ask(p, 'weights.test', '/kind'),
      await ask(p, 'weights.test', '/granted'),
      await ask(p, 'weights.test', '/denied'),
    ];
    assert.deepEqual(rest, ['500', '500', '500', 'far', '500']);
  });

  test("requests a route table chose are counted under the HTTPRoute and the backend chosen, on the location's host", async () => {
    for (let i = 0; i < 5; i++) assert.equal(await ask(p, 'weights.test', '/zero'), 'b');
    const line = (text: string): string | undefined =>
      text
        .split('\n')
        .find(
          (l) =>
            l.startsWith('nginx_ingress_controller_requests{') &&
            l.includes('ingress="weights"') &&
            l.includes('service="b"') &&
            l.includes('host="weights.test"') &&
            l.includes('namespace="default"'),
        );
    await until("/metrics counts the route's requests", async () => line(await (await fetch(`http://127.0.0.1:${p.healthz}/metrics`)).text()) !== undefined, 10_000, 200);
  });

  test('an Ingress and an HTTPRoute on one host: the route takes what its header asks for, the Ingress the rest', async () => {
    const got = [await ask(p, 'mixed.test', '/api', { headers: { 'x-api': '1' } }), await ask(p, 'mixed.test', '/api'), await ask(p, 'mixed.test', '/')];
    assert.deepEqual(got, ['b', 'ing', 'ing']);
  });

  test('a weight change while running is applied without a reload', async () => {
    const reloads = syncCount(p.output, 'reload');
    const changed = objects.map((o) => ((o.metadata as { name?: string }).name === 'weights' ? weightRoute([0, 1]) : o));
    await writeManifests(dir, 'all.yaml', changed);
    await until('/split answered by b only', async () => [...(await sample(p, 'weights.test', '/split', 20))].join() === 'b');
    assert.equal(syncCount(p.output, 'reload'), reloads, 'no reload for a weight change');
    assert.ok(syncCount(p.output, 'dynamic') > 0);
    objects = changed;
  });

  test('an endpoint change of a weighted backend, a mirror endpoint change and a header value change are applied without a reload', async () => {
    const reloads = syncCount(p.output, 'reload');
    const moved = slice('b', byId('c').port, [{ ip: '127.0.0.1', ready: true }], { name: 'b-0' }) as unknown as Record<string, unknown>;
    const mirrorMoved = slice('mirror', byId('d').port, [{ ip: '127.0.0.1', ready: true }], { name: 'mirror-0' }) as unknown as Record<string, unknown>;
    const headerChanged = aged(
      httpRoute('mixed', { parentRefs: [{ name: 'web' }], hostnames: ['mixed.test'], rules: [{ matches: [prefix('/api', { headers: [hdr('x-api', '2')] })], backendRefs: [ref('b')] }] }),
      '2026-01-04T00:00:00Z',
    );
    const named = (o: Record<string, unknown>): string => `${String(o.kind)}/${String((o.metadata as { name?: string }).name)}`;
    const swap = new Map([moved, mirrorMoved, headerChanged].map((o) => [named(o), o]));
    await writeManifests(
      dir,
      'all.yaml',
      objects.map((o) => swap.get(named(o)) ?? o),
    );
    await until('/split answered by the moved endpoint', async () => [...(await sample(p, 'weights.test', '/split', 10))].join() === 'c');
    await until(
      'the header route follows its new value',
      async () => (await ask(p, 'mixed.test', '/api', { headers: { 'x-api': '2' } })) === 'c' && (await ask(p, 'mixed.test', '/api', { headers: { 'x-api': '1' } })) === 'ing',
    );
    const before = byId('d').seen.length;
    assert.equal(await ask(p, 'filters.test', '/mirror/moved'), 'a');
    await until('the moved mirror endpoint saw the copy', () =>
      byId('d')
        .seen.slice(before)
        .some((e) => e.url === '/mirror/moved'),
    );
    assert.equal(syncCount(p.output, 'reload'), reloads, 'endpoints, mirror endpoints and header values change without a reload');
  });
});
