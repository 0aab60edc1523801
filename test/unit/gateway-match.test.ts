// Gateway API route table, unit level: match validation, the specification's precedence, Durations, where Lua runs,
// and that values of HTTPRoutes reach Lua as data, never nginx.conf (docs/adr/0011).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import { comparePrecedence, gatewayMatch } from '../../src/model/gateway/match.js';
import { durationMs, ruleFilters } from '../../src/model/gateway/filters.js';
import type { GatewayMatch } from '../../src/model/gateway/route-types.js';
import type { HTTPRoute, HTTPRouteRule } from '../../src/model/gateway/api.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { gatewayJson } from '../../src/render/lua-payload.js';
import { planApply } from '../../src/apply/plan.js';
import { MODEL_OPTIONS, ingress, ingressClass, service, slice, RENDER_OPTIONS } from '../support/objects.js';

const OPTIONS: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: 'portico.dev/gateway-controller' } };

function snapshot(rules: unknown[]): Snapshot {
  const route = {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'r', namespace: 'default' },
    spec: { parentRefs: [{ name: 'web' }], hostnames: ['h.test'], rules },
  } as unknown as HTTPRoute;
  return {
    ...EMPTY_SNAPSHOT,
    services: [service('a'), service('b')],
    endpointSlices: [slice('a', 8080, ['10.0.0.1']), slice('b', 8080, ['10.0.0.2'])],
    gatewayClasses: [{ apiVersion: 'gateway.networking.k8s.io/v1', kind: 'GatewayClass', metadata: { name: 'portico' }, spec: { controllerName: 'portico.dev/gateway-controller' } }],
    gateways: [
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: 'web', namespace: 'default' },
        spec: { gatewayClassName: 'portico', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
      },
    ],
    httpRoutes: [route],
  };
}

const m = (raw: Parameters<typeof gatewayMatch>[0]): GatewayMatch => {
  const r = gatewayMatch(raw, 'x');
  if ('reason' in r) throw new Error(r.reason);
  return r;
};

test('precedence: Exact, then RegularExpression, then the longest PathPrefix, then method, most headers, most query parameters', () => {
  const ordered = [
    m({ path: { type: 'Exact', value: '/a/b' } }),
    m({ path: { type: 'RegularExpression', value: '/a/.*' } }),
    m({ path: { type: 'PathPrefix', value: '/a/b' } }),
    m({ path: { type: 'PathPrefix', value: '/a' }, method: 'GET' }),
    m({
      path: { type: 'PathPrefix', value: '/a' },
      headers: [
        { name: 'x', value: '1' },
        { name: 'y', value: '1' },
      ],
    }),
    m({ path: { type: 'PathPrefix', value: '/a' }, headers: [{ name: 'x', value: '1' }], queryParams: [{ name: 'q', value: '1' }] }),
    m({ path: { type: 'PathPrefix', value: '/a' }, headers: [{ name: 'x', value: '1' }] }),
    m({ path: { type: 'PathPrefix', value: '/a' } }),
  ];
  const shuffled = [5, 2, 7, 0, 3, 6, 1, 4].map((i) => ordered[i] as GatewayMatch);
  assert.deepEqual([...shuffled].sort(comparePrecedence), ordered);
});

test('matches Portico cannot run exactly are refused with the field: header names nginx drops, lower-case methods, backtracking regexes', () => {
  const why = (raw: Parameters<typeof gatewayMatch>[0]): string => {
    const r = gatewayMatch(raw, 'spec.rules[0].matches[0]');
    return 'reason' in r ? r.field : 'accepted';
  };
  assert.deepEqual(
    [
      why({ headers: [{ name: 'x_under', value: '1' }] }),
      why({ method: 'get' }),
      why({ headers: [{ type: 'RegularExpression', name: 'x', value: '(a|ab)*' }] }),
      why({ queryParams: [{ name: 'q', value: 'a\nb' }] }),
      why({ path: { type: 'RegularExpression', value: 'no-slash' } }),
      why({ path: { type: 'PathPrefix', value: '/_portico_x' } }),
      why({ headers: [{ name: 'X-Ok', value: 'fine' }], method: 'PATCH' }),
    ],
    [
      'spec.rules[0].matches[0].headers[0].name',
      'spec.rules[0].matches[0].method',
      'spec.rules[0].matches[0].headers[0].value',
      'spec.rules[0].matches[0].queryParams[0].value',
      'spec.rules[0].matches[0].path.value',
      'spec.rules[0].matches[0].path.value',
      'accepted',
    ],
  );
});

test('Gateway API Durations', () => {
  assert.deepEqual(['1h', '1m30s', '500ms', '0s', '10 seconds', '1d', ''].map(durationMs), [3_600_000, 90_000, 500, 0, undefined, undefined, undefined]);
});

test('a path-only route with one backend runs no Lua; a header match, a second backendRef or a filter does', () => {
  const plain = buildModel(snapshot([{ matches: [{ path: { type: 'PathPrefix', value: '/p' } }], backendRefs: [{ name: 'a', port: 80 }] }]), OPTIONS);
  assert.equal(plain.gateway, undefined);
  assert.ok(plain.servers.every((s) => s.locations.every((l) => l.gateway === undefined)));
  for (const rule of [
    { matches: [{ path: { type: 'PathPrefix', value: '/p' }, headers: [{ name: 'x', value: '1' }] }], backendRefs: [{ name: 'a', port: 80 }] },
    {
      matches: [{ path: { type: 'PathPrefix', value: '/p' } }],
      backendRefs: [
        { name: 'a', port: 80 },
        { name: 'b', port: 80, weight: 0 },
      ],
    },
    {
      matches: [{ path: { type: 'PathPrefix', value: '/p' } }],
      backendRefs: [{ name: 'a', port: 80 }],
      filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x', value: '1' }] } }],
    },
  ]) {
    const model = buildModel(snapshot([rule]), OPTIONS);
    const keyed = model.servers.flatMap((s) => s.locations.filter((l) => l.gateway !== undefined).map((l) => `${s.host} ${l.match} ${l.path}`));
    assert.deepEqual(keyed, ['h.test exact /p', 'h.test prefix /p/'], JSON.stringify(rule));
  }
});

test('values of HTTPRoutes go to Lua as data: a hostile header value, regex or redirect host never appears in nginx.conf', () => {
  const hostile = 'x"; return 200 "pwned';
  const model = buildModel(
    snapshot([
      {
        matches: [{ path: { type: 'PathPrefix', value: '/p' }, headers: [{ type: 'RegularExpression', name: 'x', value: '[a-z]+"; deny all;' }] }],
        backendRefs: [{ name: 'a', port: 80 }],
        filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'X-H', value: hostile }] } }],
      },
    ]),
    OPTIONS,
  );
  const conf = renderNginxConf(model, RENDER_OPTIONS).text;
  assert.match(conf, /set \$portico_gw "gw[0-9a-f]{16}";/);
  assert.ok(!conf.includes('pwned') && !conf.includes('deny all'));
  const payload = JSON.parse(gatewayJson(model)) as { actions: { requestHeaders?: { set: { value: string }[] } }[] };
  assert.equal(payload.actions[0]?.requestHeaders?.set[0]?.value, hostile);
});

test('--strict-host-ownership: a route without hostnames of another namespace gets no candidate on an owned host', () => {
  const snap = snapshot([]);
  const route = {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: 'r', namespace: 'default' },
    spec: { parentRefs: [{ name: 'web' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' }, headers: [{ name: 'x', value: '1' }] }], backendRefs: [{ name: 'a', port: 80 }] }] },
  } as unknown as HTTPRoute;
  const owned = ingress('mine', { namespace: 'team', className: 'portico', host: 'owned.test', paths: [{ path: '/app', type: 'Prefix', service: 'svc' }] });
  const classes = [ingressClass('portico')];
  const keyed = (strict: boolean): string[] =>
    buildModel(
      { ...snap, httpRoutes: [route], ingresses: [owned], ingressClasses: classes, services: [...snap.services, service('svc', 'team')] },
      { ...OPTIONS, strictHostOwnership: strict },
    ).servers.flatMap((s) => s.locations.filter((l) => l.gateway !== undefined).map((l) => `${s.host} ${l.match} ${l.path}`));
  assert.deepEqual(keyed(false), ['owned.test prefix /', '_ prefix /']);
  assert.deepEqual(keyed(true), ['_ prefix /']);
});

test('a change of the route table alone is a dynamic update, not a reload', () => {
  const base = { confHash: 'h', backends: '[]', certificates: 'c', clientFiles: 'f', routes: '', gateway: '{"actions":[],"locations":{}}' };
  assert.deepEqual([planApply(base, { ...base }), planApply(base, { ...base, gateway: '{"actions":[1],"locations":{}}' }), planApply(base, { ...base, confHash: 'x' })], ['noop', 'dynamic', 'reload']);
});

test('filters Portico would apply more broadly than asked, or cannot apply, refuse their rule with the field', () => {
  const field = (filters: unknown[]): string => {
    const r = ruleFilters({ filters } as HTTPRouteRule, 'spec.rules[0]', true);
    return 'reason' in r && 'field' in r ? r.field : 'accepted';
  };
  const mirror = { backendRef: { name: 'a', port: 80 } };
  assert.deepEqual(
    [
      field([{ type: 'RequestMirror', requestMirror: { ...mirror, percent: 101 } }]),
      field([{ type: 'ExtensionRef', extensionRef: {} }]),
      field([
        { type: 'RequestHeaderModifier', requestHeaderModifier: {} },
        { type: 'RequestHeaderModifier', requestHeaderModifier: {} },
      ]),
      field([{ type: 'RequestRedirect', requestRedirect: { statusCode: 304 } }]),
      field([{ type: 'URLRewrite', urlRewrite: { hostname: '*.wild.test' } }]),
      field([{ type: 'RequestHeaderModifier', requestHeaderModifier: { remove: ['Content-Length'] } }]),
      field([
        { type: 'RequestRedirect', requestRedirect: {} },
        { type: 'URLRewrite', urlRewrite: {} },
      ]),
      field([
        { type: 'RequestMirror', requestMirror: mirror },
        { type: 'URLRewrite', urlRewrite: { path: { type: 'ReplacePrefixMatch', replacePrefixMatch: '' } } },
      ]),
    ],
    [
      'spec.rules[0].filters[0].requestMirror.percent',
      'spec.rules[0].filters[0].type',
      'spec.rules[0].filters[1]',
      'spec.rules[0].filters[0].requestRedirect.statusCode',
      'spec.rules[0].filters[0].urlRewrite.hostname',
      'spec.rules[0].filters[0].requestHeaderModifier.remove[0]',
      'spec.rules[0].filters',
      'accepted',
    ],
  );
});
