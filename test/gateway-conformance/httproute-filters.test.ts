// Gateway API conformance (v1.6.1), reproduced through real nginx: the HTTPRoute filter tests of the GATEWAY-HTTP
// profile (request and response header modifiers, redirects of host, status, path, port and scheme, URL rewrites).
// Each test is named with the upstream ShortName; the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRoute, mustBeAccepted, prefixRule, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';
import type { Expected } from './expect.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
type Pairs = Record<string, string>;
const list = (p: Pairs): { name: string; value: string }[] => Object.entries(p).map(([name, value]) => ({ name, value }));
const modifier = (m: { set?: Pairs; add?: Pairs; remove?: string[] }): Record<string, unknown> => ({
  ...(m.set ? { set: list(m.set) } : {}),
  ...(m.add ? { add: list(m.add) } : {}),
  ...(m.remove ? { remove: m.remove } : {}),
});
const reqHeaders = (m: Parameters<typeof modifier>[0]): unknown => ({ type: 'RequestHeaderModifier', requestHeaderModifier: modifier(m) });
const respHeaders = (m: Parameters<typeof modifier>[0]): unknown => ({ type: 'ResponseHeaderModifier', responseHeaderModifier: modifier(m) });
const redirect = (r: Record<string, unknown>): unknown => ({ type: 'RequestRedirect', requestRedirect: r });
const rewrite = (r: Record<string, unknown>): unknown => ({ type: 'URLRewrite', urlRewrite: r });
const prefixPath = (replacePrefixMatch: string): Record<string, unknown> => ({ type: 'ReplacePrefixMatch', replacePrefixMatch });
const fullPath = (replaceFullPath: string): Record<string, unknown> => ({ type: 'ReplaceFullPath', replaceFullPath });

/** A request the backend must see as `seen` (path, host, headers), with headers it must not see. */
const seen = (request: Expected['request'], want: Partial<Expected['request']>, absent: string[] = [], backend = V1): Expected => ({
  request,
  expectedRequest: { path: request.path, ...want, absentHeaders: absent },
  backend,
  namespace: NS,
});
/** A redirect answer: `statusCode` and what Location must say (unset parts: the request's). */
const moved = (path: string, statusCode: number, to: Expected['redirectRequest'], method?: string): Expected => ({
  request: { path, ...(method === undefined ? {} : { method }) },
  response: { statusCode },
  redirectRequest: to,
});
/** The backend sets `set` on its answer; the client must get `want` and not `absent`. */
const answered = (request: Expected['request'], set: Pairs, want: Pairs, absent: string[] = []): Expected => ({
  request,
  backendSetResponseHeaders: set,
  response: { headers: want, absentHeaders: absent },
  backend: V1,
  namespace: NS,
});

/** The rules of request-header-modifier (filters on the rule). */
const requestHeaderRules = (): Record<string, unknown>[] => [
  prefixRule('/set', [reqHeaders({ set: { 'X-Header-Set': 'set-overwrites-values' } })], V1),
  prefixRule('/add', [reqHeaders({ add: { 'X-Header-Add': 'add-appends-values' } })], V1),
  prefixRule('/remove', [reqHeaders({ remove: ['X-Header-Remove'] })], V1),
  prefixRule(
    '/multiple',
    [
      reqHeaders({
        set: { 'X-Header-Set-1': 'header-set-1', 'X-Header-Set-2': 'header-set-2' },
        add: { 'X-Header-Add-1': 'header-add-1', 'X-Header-Add-2': 'header-add-2', 'X-Header-Add-3': 'header-add-3' },
        remove: ['X-Header-Remove-1', 'X-Header-Remove-2'],
      }),
    ],
    V1,
  ),
  prefixRule('/case-insensitivity', [reqHeaders({ set: { 'X-Header-Set': 'header-set' }, add: { 'X-Header-Add': 'header-add' }, remove: ['X-Header-Remove'] })], V1),
];

/** Its requests and what the backend must see. */
const requestHeaderCases = (): Expected[] => [
  seen({ path: '/set', headers: { 'Some-Other-Header': 'val' } }, { headers: { 'Some-Other-Header': 'val', 'X-Header-Set': 'set-overwrites-values' } }),
  seen({ path: '/set', headers: { 'Some-Other-Header': 'val', 'X-Header-Set': 'some-other-value' } }, { headers: { 'Some-Other-Header': 'val', 'X-Header-Set': 'set-overwrites-values' } }),
  seen({ path: '/add', headers: { 'Some-Other-Header': 'val' } }, { headers: { 'Some-Other-Header': 'val', 'X-Header-Add': 'add-appends-values' } }),
  seen(
    { path: '/add', headers: { 'Some-Other-Header': 'val', 'X-Header-Add': 'some-other-value' } },
    { headers: { 'Some-Other-Header': 'val', 'X-Header-Add': 'some-other-value,add-appends-values' } },
  ),
  seen({ path: '/remove', headers: { 'X-Header-Remove': 'val' } }, {}, ['X-Header-Remove']),
  seen(
    { path: '/multiple', headers: { 'X-Header-Set-2': 'set-val-2', 'X-Header-Add-2': 'add-val-2', 'X-Header-Remove-2': 'remove-val-2', 'Another-Header': 'another-header-val' } },
    {
      headers: {
        'X-Header-Set-1': 'header-set-1',
        'X-Header-Set-2': 'header-set-2',
        'X-Header-Add-1': 'header-add-1',
        'X-Header-Add-2': 'add-val-2,header-add-2',
        'X-Header-Add-3': 'header-add-3',
        'Another-Header': 'another-header-val',
      },
    },
    ['X-Header-Remove-1', 'X-Header-Remove-2'],
  ),
  seen(
    {
      path: '/case-insensitivity',
      headers: { 'x-header-set': 'original-val-set', 'x-header-add': 'original-val-add', 'x-header-remove': 'original-val-remove', 'Another-Header': 'another-header-val' },
    },
    { headers: { 'X-Header-Set': 'header-set', 'X-Header-Add': 'original-val-add,header-add', 'Another-Header': 'another-header-val' } },
    ['x-header-remove', 'X-Header-Remove'],
  ),
];

/** The same rules with each rule's filters on its backendRef (the BackendRequestHeaderModification manifests). */
const onBackendRefs = (rules: Record<string, unknown>[]): Record<string, unknown>[] =>
  rules.map(({ filters, backendRefs, ...rest }) => ({ ...rest, backendRefs: (backendRefs as Record<string, unknown>[]).map((b) => ({ ...b, filters })) }));

describe('GATEWAY-HTTP conformance: HTTPRoute filters', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  const run = async (name: string, rules: readonly unknown[], cases: readonly Expected[], extra: Record<string, unknown> = {}): Promise<void> => {
    await c.apply([httpRoute(name, { ...extra, rules })]);
    await mustBeAccepted(c, 'same-namespace', [[NS, name]]);
    for (const e of cases) await c.expect(e);
  };

  test('HTTPRouteRequestHeaderModifier', async () => {
    await run('request-header-modifier', requestHeaderRules(), requestHeaderCases());
  });

  test('HTTPRouteBackendRequestHeaderModifier', async () => {
    await run('request-header-modifier', onBackendRefs(requestHeaderRules()), requestHeaderCases());
  });

  test('HTTPRouteRequestHeaderModifierBackendWeights', async () => {
    const to = (name: string): Record<string, unknown> => ({ name, port: 8080, weight: 10, filters: [reqHeaders({ set: { Backend: name } })] });
    const expected: Expected = { request: { path: '/' }, response: { statusCode: 200 }, namespace: NS };
    await run('request-header-modifier-backend-weights', [{ backendRefs: [to(V1), to(V2)] }], [expected]);
    for (let i = 0; i < 100; i++) {
      const echo = (await c.roundTrip(expected)).echo;
      const set = echo?.headers['backend'] ?? [];
      assert.equal(set.length, 1, 'one Backend header set by the backendRef');
      assert.ok(echo?.pod.startsWith(set[0] ?? '-'), `the backendRef's own filter: pod ${echo?.pod ?? ''}, header ${set[0] ?? ''}`);
    }
  });

  test('HTTPRouteResponseHeaderModifier', async () => {
    const rules = [
      prefixRule('/set', [respHeaders({ set: { 'X-Header-Set': 'set-overwrites-values' } })], V1),
      prefixRule('/add', [respHeaders({ add: { 'X-Header-Add': 'add-appends-values' } })], V1),
      prefixRule('/remove', [respHeaders({ remove: ['X-Header-Remove'] })], V1),
      prefixRule(
        '/multiple',
        [
          respHeaders({
            set: { 'X-Header-Set-1': 'header-set-1', 'X-Header-Set-2': 'header-set-2' },
            add: { 'X-Header-Add-1': 'header-add-1', 'X-Header-Add-2': 'header-add-2', 'X-Header-Add-3': 'header-add-3' },
            remove: ['X-Header-Remove-1', 'X-Header-Remove-2'],
          }),
        ],
        V1,
      ),
      prefixRule(
        '/case-insensitivity',
        [
          respHeaders({
            set: { 'X-Header-Set': 'header-set' },
            add: {
              'X-Header-Add': 'header-add',
              'x-lowercase-add': 'lowercase-add',
              'x-Mixedcase-ADD-1': 'mixedcase-add-1',
              'X-mixeDcase-add-2': 'mixedcase-add-2',
              'X-UPPERCASE-ADD': 'uppercase-add',
            },
            remove: ['X-Header-Remove'],
          }),
        ],
        V1,
      ),
      prefixRule(
        '/response-and-request-header-modifiers',
        [
          respHeaders({
            set: { 'X-Header-Set-1': 'header-set-1', 'X-Header-Set-2': 'header-set-2' },
            add: { 'X-Header-Add-1': 'header-add-1', 'X-Header-Add-2': 'header-add-2' },
            remove: ['X-Header-Remove-1', 'X-Header-Remove-2'],
          }),
          reqHeaders({ set: { 'X-Header-Set': 'set-overwrites-values' }, add: { 'X-Header-Add': 'header-val-1', 'X-Header-Add-Append': 'header-val-2' }, remove: ['X-Header-Remove'] }),
        ],
        V1,
      ),
    ];
    const both: Expected = {
      request: { path: '/response-and-request-header-modifiers', headers: { 'X-Header-Remove': 'remove-val', 'X-Header-Add-Append': 'append-val-1', 'X-Header-Echo': 'echo' } },
      backendSetResponseHeaders: {
        'X-Header-Set-2': 'set-val-2',
        'X-Header-Add-2': 'add-val-2',
        'X-Header-Remove-2': 'remove-val-2',
        'Another-Header': 'another-header-val',
        'X-Header-Remove-1': 'remove-val-1',
        'X-Header-Echo': 'echo',
      },
      expectedRequest: {
        path: '/response-and-request-header-modifiers',
        headers: { 'X-Header-Add': 'header-val-1', 'X-Header-Set': 'set-overwrites-values', 'X-Header-Add-Append': 'append-val-1,header-val-2', 'X-Header-Echo': 'echo' },
        absentHeaders: ['X-Header-Remove'],
      },
      response: {
        headers: {
          'X-Header-Set-1': 'header-set-1',
          'X-Header-Set-2': 'header-set-2',
          'X-Header-Add-1': 'header-add-1',
          'X-Header-Add-2': 'add-val-2,header-add-2',
          'Another-Header': 'another-header-val',
          'X-Header-Echo': 'echo',
        },
        absentHeaders: ['X-Header-Remove-1', 'X-Header-Remove-2'],
      },
      backend: V1,
      namespace: NS,
    };
    await run('response-header-modifier', rules, [
      answered({ path: '/set' }, { 'Some-Other-Header': 'val' }, { 'Some-Other-Header': 'val', 'X-Header-Set': 'set-overwrites-values' }),
      answered({ path: '/set' }, { 'Some-Other-Header': 'val', 'X-Header-Set': 'some-other-value' }, { 'Some-Other-Header': 'val', 'X-Header-Set': 'set-overwrites-values' }),
      answered({ path: '/add' }, { 'Some-Other-Header': 'val' }, { 'Some-Other-Header': 'val', 'X-Header-Add': 'add-appends-values' }),
      answered({ path: '/add' }, { 'Some-Other-Header': 'val', 'X-Header-Add': 'some-other-value' }, { 'Some-Other-Header': 'val', 'X-Header-Add': 'some-other-value,add-appends-values' }),
      answered({ path: '/remove' }, { 'X-Header-Remove': 'val' }, {}, ['X-Header-Remove']),
      answered(
        { path: '/multiple' },
        { 'X-Header-Set-2': 'set-val-2', 'X-Header-Add-2': 'add-val-2', 'X-Header-Remove-2': 'remove-val-2', 'Another-Header': 'another-header-val', 'X-Header-Remove-1': 'val' },
        {
          'X-Header-Set-1': 'header-set-1',
          'X-Header-Set-2': 'header-set-2',
          'X-Header-Add-1': 'header-add-1',
          'X-Header-Add-2': 'add-val-2,header-add-2',
          'X-Header-Add-3': 'header-add-3',
          'Another-Header': 'another-header-val',
        },
        ['X-Header-Remove-1', 'X-Header-Remove-2'],
      ),
      answered(
        { path: '/case-insensitivity' },
        { 'x-header-set': 'original-val-set', 'x-header-add': 'original-val-add', 'x-header-remove': 'original-val-remove', 'Another-Header': 'another-header-val' },
        {
          'X-Header-Set': 'header-set',
          'X-Header-Add': 'original-val-add,header-add',
          'X-Lowercase-Add': 'lowercase-add',
          'X-Mixedcase-Add-1': 'mixedcase-add-1',
          'X-Mixedcase-Add-2': 'mixedcase-add-2',
          'X-Uppercase-Add': 'uppercase-add',
          'Another-Header': 'another-header-val',
        },
        ['x-header-remove', 'X-Header-Remove'],
      ),
      both,
    ]);
  });

  test('HTTPRouteRedirectHostAndStatus', async () => {
    await run(
      'redirect-host-and-status',
      [prefixRule('/hostname-redirect', [redirect({ hostname: 'example.org' })]), prefixRule('/host-and-status', [redirect({ statusCode: 301, hostname: 'example.org' })])],
      [moved('/hostname-redirect', 302, { host: 'example.org' }), moved('/host-and-status', 301, { host: 'example.org' })],
    );
  });

  test('HTTPRouteRedirectPath', async () => {
    await run(
      'redirect-path',
      [
        prefixRule('/original-prefix', [redirect({ path: prefixPath('/replacement-prefix') })]),
        prefixRule('/full', [redirect({ path: fullPath('/full-path-replacement') })]),
        prefixRule('/path-and-host', [redirect({ hostname: 'example.org', path: prefixPath('/replacement-prefix') })]),
        prefixRule('/path-and-status', [redirect({ path: prefixPath('/replacement-prefix'), statusCode: 301 })]),
        prefixRule('/full-path-and-host', [redirect({ hostname: 'example.org', path: fullPath('/replacement-full') })]),
        prefixRule('/full-path-and-status', [redirect({ path: fullPath('/replacement-full'), statusCode: 301 })]),
      ],
      [
        moved('/original-prefix/lemon', 302, { path: '/replacement-prefix/lemon' }),
        moved('/full/path/original', 302, { path: '/full-path-replacement' }),
        moved('/path-and-host', 302, { host: 'example.org', path: '/replacement-prefix' }),
        moved('/path-and-status', 301, { path: '/replacement-prefix' }),
        moved('/full-path-and-host', 302, { host: 'example.org', path: '/replacement-full' }),
        moved('/full-path-and-status', 301, { path: '/replacement-full' }),
      ],
    );
  });

  test('HTTPRouteRedirectPort', async () => {
    await run(
      'redirect-port',
      [
        prefixRule('/port', [redirect({ port: 8083 })]),
        prefixRule('/port-and-host', [redirect({ hostname: 'example.org', port: 8083 })]),
        prefixRule('/port-and-status', [redirect({ port: 8083, statusCode: 301 })]),
        prefixRule('/port-and-host-and-status', [redirect({ port: 8083, hostname: 'example.org', statusCode: 302 })]),
      ],
      [
        moved('/port', 302, { port: '8083' }),
        moved('/port-and-host', 302, { host: 'example.org', port: '8083' }),
        moved('/port-and-status', 301, { port: '8083' }),
        moved('/port-and-host-and-status', 302, { port: '8083', host: 'example.org' }),
      ],
    );
  });

  test('HTTPRouteRedirectScheme', async () => {
    await run(
      'redirect-scheme',
      [
        prefixRule('/scheme', [redirect({ scheme: 'https' })]),
        prefixRule('/scheme-and-host', [redirect({ hostname: 'example.org', scheme: 'https' })]),
        prefixRule('/scheme-and-status', [redirect({ scheme: 'https', statusCode: 301 })]),
        prefixRule('/scheme-and-host-and-status', [redirect({ scheme: 'https', statusCode: 302, hostname: 'example.org' })]),
      ],
      [
        moved('/scheme', 302, { scheme: 'https' }),
        moved('/scheme-and-host', 302, { host: 'example.org', scheme: 'https' }),
        moved('/scheme-and-status', 301, { scheme: 'https' }),
        moved('/scheme-and-host-and-status', 302, { scheme: 'https', host: 'example.org' }),
      ],
    );
  });

  test('HTTPRoute303Redirect', async () => {
    await run('303-redirect', [prefixRule('/see-other', [redirect({ statusCode: 303 })])], [moved('/see-other', 303, { path: '/see-other' }, 'POST')]);
  });

  test('HTTPRoute307Redirect', async () => {
    await run('307-redirect', [prefixRule('/temporary', [redirect({ statusCode: 307 })])], [moved('/temporary', 307, { path: '/temporary' })]);
  });

  test('HTTPRoute308Redirect', async () => {
    await run('308-redirect', [prefixRule('/permanent', [redirect({ statusCode: 308 })])], [moved('/permanent', 308, { path: '/permanent' })]);
  });

  test('HTTPRouteRewriteHost', async () => {
    const at = (path: string, headers?: Pairs): Expected['request'] => ({ path, host: 'rewrite.example', ...(headers ? { headers } : {}) });
    await run(
      'rewrite-host',
      [
        prefixRule('/one', [rewrite({ hostname: 'one.example.org' })], V1),
        prefixRule(undefined, [rewrite({ hostname: 'example.org' })], V2),
        prefixRule(
          '/rewrite-host-and-modify-headers',
          [
            rewrite({ hostname: 'test.example.org' }),
            reqHeaders({ set: { 'X-Header-Set': 'set-overwrites-values' }, add: { 'X-Header-Add': 'header-val-1', 'X-Header-Add-Append': 'header-val-2' }, remove: ['X-Header-Remove'] }),
          ],
          V2,
        ),
      ],
      [
        seen(at('/one'), { host: 'one.example.org' }, [], V1),
        seen(at('/two'), { host: 'example.org' }, [], V2),
        seen(
          at('/rewrite-host-and-modify-headers', { 'X-Header-Remove': 'remove-val', 'X-Header-Add-Append': 'append-val-1' }),
          { host: 'test.example.org', headers: { 'X-Header-Add': 'header-val-1', 'X-Header-Add-Append': 'append-val-1,header-val-2', 'X-Header-Set': 'set-overwrites-values' } },
          ['X-Header-Remove'],
          V2,
        ),
      ],
      { hostnames: ['rewrite.example'] },
    );
  });

  test('HTTPRouteRewritePath', async () => {
    const modify = reqHeaders({ set: { 'X-Header-Set': 'set-overwrites-values' }, add: { 'X-Header-Add': 'header-val-1', 'X-Header-Add-Append': 'header-val-2' }, remove: ['X-Header-Remove'] });
    const sent = { 'X-Header-Remove': 'remove-val', 'X-Header-Add-Append': 'append-val-1', 'X-Header-Set': 'set-val' };
    const got = { 'X-Header-Add': 'header-val-1', 'X-Header-Add-Append': 'append-val-1,header-val-2', 'X-Header-Set': 'set-overwrites-values' };
    await run(
      'rewrite-path',
      [
        prefixRule('/prefix/one', [rewrite({ path: prefixPath('/one') })], V1),
        prefixRule('/strip-prefix', [rewrite({ path: prefixPath('/') })], V1),
        prefixRule('/full/one', [rewrite({ path: fullPath('/one') })], V1),
        prefixRule('/full/rewrite-path-and-modify-headers', [rewrite({ path: fullPath('/test') }), modify], V1),
        prefixRule('/prefix/rewrite-path-and-modify-headers', [rewrite({ path: prefixPath('/prefix') }), modify], V1),
      ],
      [
        seen({ path: '/prefix/one/two' }, { path: '/one/two' }),
        seen({ path: '/strip-prefix/three' }, { path: '/three' }),
        seen({ path: '/strip-prefix' }, { path: '/' }),
        seen({ path: '/full/one/two' }, { path: '/one' }),
        seen({ path: '/full/rewrite-path-and-modify-headers/test', headers: sent }, { path: '/test', headers: got }, ['X-Header-Remove']),
        seen({ path: '/prefix/rewrite-path-and-modify-headers/one', headers: sent }, { path: '/prefix/one', headers: got }, ['X-Header-Remove']),
      ],
    );
  });
});
