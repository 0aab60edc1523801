// HTTPRoute retries, deadline, CORS, backendRef URLRewrite/RequestRedirect and appProtocol at unit level: bad values
// refused with the field named (docs/adr/0026), what nginx.conf gets (Portico's own words only) and what Lua gets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import { backendFilters, ruleFilters } from '../../src/model/gateway/filters.js';
import type { HTTPRoute } from '../../src/model/gateway/api.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { gatewayJson } from '../../src/render/lua-payload.js';
import { MODEL_OPTIONS, service, slice, RENDER_OPTIONS } from '../support/objects.js';

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
    services: [
      service('a', 'default', [
        { name: 'http', port: 80 },
        { name: 'h2c', port: 81, appProtocol: 'kubernetes.io/h2c' },
        { name: 'ws', port: 82, appProtocol: 'kubernetes.io/ws' },
      ]),
    ],
    endpointSlices: [slice('a', 8080, ['10.0.0.1']), slice('a', 8081, ['10.0.0.1'], { portName: 'h2c', name: 'a-h2c' }), slice('a', 8082, ['10.0.0.1'], { portName: 'ws', name: 'a-ws' })],
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

const prefix = (value: string): unknown => ({ matches: [{ path: { type: 'PathPrefix', value } }] });
/** The field named by the refusal of `rule`, or undefined when it is served. */
const refusedAt = (rule: Record<string, unknown>): string | undefined => {
  const r = ruleFilters(rule, 'spec.rules[0]', true);
  return 'reason' in r && 'field' in r ? r.field : undefined;
};

test('retry: codes nginx cannot retry on, a non-zero backoff, attempts out of 1-10 are refused, the field named', () => {
  assert.equal(refusedAt({ retry: { codes: [500, 501] } }), 'spec.rules[0].retry.codes[1]');
  assert.equal(refusedAt({ retry: { codes: [399] } }), 'spec.rules[0].retry.codes[0]');
  assert.equal(refusedAt({ retry: { backoff: '100ms' } }), 'spec.rules[0].retry.backoff');
  assert.equal(refusedAt({ retry: { backoff: 'soon' } }), 'spec.rules[0].retry.backoff');
  assert.equal(refusedAt({ retry: { attempts: 11 } }), 'spec.rules[0].retry.attempts');
  assert.equal(refusedAt({ retry: { attempts: 0 } }), 'spec.rules[0].retry.attempts');
  assert.deepEqual(ruleFilters({ retry: { codes: [503, 500, 503], backoff: '0s' } }, 'x', true), { retry: { codes: [500, 503], attempts: 1 } });
});

test('timeouts: each try gets backendRequest (else request), and request is one deadline across the tries', () => {
  assert.deepEqual(ruleFilters({ timeouts: { request: '2s', backendRequest: '500ms' } }, 'x', true), { timeoutMs: 500, deadlineMs: 2000 });
  assert.deepEqual(ruleFilters({ timeouts: { request: '2s' } }, 'x', true), { timeoutMs: 2000, deadlineMs: 2000 });
  assert.deepEqual(ruleFilters({ timeouts: { backendRequest: '1s' } }, 'x', true), { timeoutMs: 1000 });
  assert.equal(refusedAt({ timeouts: { request: '1s', backendRequest: '2s' } }), 'spec.rules[0].timeouts.backendRequest');
});

test('CORS: origins, methods, headers, maxAge and allowCredentials are checked, the field named', () => {
  const at = (cors: Record<string, unknown>): string | undefined => refusedAt({ filters: [{ type: 'CORS', cors }] });
  assert.equal(at({ allowOrigins: ['https://ok.test', 'not an origin'] }), 'spec.rules[0].filters[0].cors.allowOrigins[1]');
  assert.equal(at({ allowOrigins: ['https://*.ok.test', 'https://a.test:99999'] }), 'spec.rules[0].filters[0].cors.allowOrigins[1]');
  assert.equal(at({ allowOrigins: ['https://ok.test"; add_header x y;'] }), 'spec.rules[0].filters[0].cors.allowOrigins[0]');
  assert.equal(at({ allowMethods: ['GET', '*'] }), 'spec.rules[0].filters[0].cors.allowMethods[1]');
  assert.equal(at({ allowMethods: ['FETCH'] }), 'spec.rules[0].filters[0].cors.allowMethods[0]');
  assert.equal(at({ allowHeaders: ['x y'] }), 'spec.rules[0].filters[0].cors.allowHeaders[0]');
  assert.equal(at({ exposeHeaders: ['x\r\ny'] }), 'spec.rules[0].filters[0].cors.exposeHeaders[0]');
  assert.equal(at({ maxAge: 0 }), 'spec.rules[0].filters[0].cors.maxAge');
  assert.equal(at({ maxAge: 2 ** 31 }), 'spec.rules[0].filters[0].cors.maxAge');
  // Any int32 from 1 is valid (the CRD sets no maximum): ingress-nginx's default of 20 days, converted, is served.
  assert.equal(at({ maxAge: 1_728_000 }), undefined);
  assert.deepEqual(ruleFilters({ filters: [{ type: 'CORS', cors: { allowOrigins: ['HTTPS://A.test'] } }] }, 'x', true), {
    cors: { origins: ['https://a.test'], methods: [], headers: [], expose: [], maxAge: 5, credentials: false },
  });
});

test('backendRef URLRewrite and RequestRedirect: taken, but not beside the rule own URLRewrite, nor together', () => {
  const rewrite = { type: 'URLRewrite', urlRewrite: { path: { type: 'ReplaceFullPath' as const, replaceFullPath: '/x' } } };
  const redirect = { type: 'RequestRedirect', requestRedirect: { statusCode: 301 } };
  assert.deepEqual(backendFilters([rewrite], 'f'), { rewrite: { path: { type: 'ReplaceFullPath', value: '/x' } } });
  assert.deepEqual(backendFilters([redirect], 'f'), { redirect: { statusCode: 301 } });
  assert.deepEqual(backendFilters([rewrite], 'f', { prefixMatch: true, rewrites: true }), {
    field: 'f[0].type',
    reason: "URLRewrite on a backendRef cannot be served beside the rule's own URLRewrite",
  });
  assert.equal((backendFilters([rewrite, redirect], 'f') as { field?: string }).field, 'f');
  assert.equal((backendFilters([{ type: 'RequestRedirect', requestRedirect: { statusCode: 418 } }], 'f') as { field?: string }).field, 'f[0].requestRedirect.statusCode');
  assert.equal((backendFilters([{ type: 'CORS', cors: {} }], 'f') as { field?: string }).field, 'f[0].type');
});

test('appProtocol: a kubernetes.io/h2c port is reached with grpc_pass, kubernetes.io/ws with proxy_pass; a rule mixing h2c and HTTP/1.1, or h2c with timeouts, is refused naming its backendRefs', () => {
  const model = buildModel(
    snapshot([
      { ...(prefix('/h2') as object), backendRefs: [{ name: 'a', port: 81 }] },
      { ...(prefix('/ws') as object), backendRefs: [{ name: 'a', port: 82 }] },
      {
        ...(prefix('/mixed') as object),
        backendRefs: [
          { name: 'a', port: 81 },
          { name: 'a', port: 80 },
        ],
      },
      { ...(prefix('/slow') as object), timeouts: { request: '3s' }, backendRefs: [{ name: 'a', port: 81 }] },
    ]),
    OPTIONS,
  );
  const problems = model.problems.filter((p) => p.object.kind === 'HTTPRoute');
  assert.deepEqual(
    problems.map((p) => [p.field, p.reason.split(';')[0]]),
    [
      ['spec.rules[2].backendRefs', 'UnsupportedProtocol: the backendRefs mix Service ports of appProtocol kubernetes.io/h2c (HTTP/2 cleartext) and HTTP/1.1 ones'],
      ['spec.rules[3].backendRefs', 'UnsupportedProtocol: timeouts not served to Service ports of appProtocol kubernetes.io/h2c (reached with grpc_pass)'],
    ],
  );
  const conf = renderNginxConf(model, RENDER_OPTIONS).text;
  const block = (path: string): string => {
    const at = conf.indexOf(`location "${path}" {`);
    return at < 0 ? '' : conf.slice(at, conf.indexOf('        }', at));
  };
  assert.match(block('/h2/'), /grpc_pass grpc:\/\/portico_balancer;/);
  assert.doesNotMatch(block('/h2/'), /proxy_pass/);
  assert.match(block('/ws/'), /proxy_pass http:\/\/portico_balancer;/);
  assert.equal(block('/mixed/') + block('/slow/'), '', 'the refused rules have no location');
});

test('retries and CORS reach nginx.conf as Portico words only; the policy travels to Lua as data', () => {
  const model = buildModel(
    snapshot([
      { ...(prefix('/r') as object), retry: { codes: [502, 500], attempts: 3 }, timeouts: { request: '3s', backendRequest: '1s' }, backendRefs: [{ name: 'a', port: 80 }] },
      { ...(prefix('/c') as object), filters: [{ type: 'CORS', cors: { allowOrigins: ['https://*.evil.test'], exposeHeaders: ['x-secret'] } }], backendRefs: [{ name: 'a', port: 80 }] },
    ]),
    OPTIONS,
  );
  assert.deepEqual(model.problems, []);
  const conf = renderNginxConf(model, RENDER_OPTIONS).text;
  assert.match(conf, /proxy_next_upstream error timeout http_500 http_502;\n\s+proxy_next_upstream_tries 0;/);
  assert.match(conf, /upstream portico_gateway \{/);
  assert.doesNotMatch(conf, /evil|x-secret/);
  const lua = JSON.parse(gatewayJson(model)) as { actions: { retry?: unknown; deadlineMs?: number; timeoutMs?: number; cors?: { origins: string[] } }[] };
  const policies = lua.actions.map((a) => [a.retry, a.deadlineMs, a.timeoutMs, a.cors?.origins]).sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y)));
  assert.deepEqual(policies, [
    [{ codes: [500, 502], attempts: 3 }, 3000, 1000, undefined],
    [undefined, undefined, undefined, ['https://*.evil.test']],
  ]);
});
