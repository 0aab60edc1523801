// GRPCRoute, unit level: method matches as HTTP/2 paths, refused matches and filters naming their field, the route
// kinds of HTTP and HTTPS listeners (docs/adr/0020), a GRPCRoute and an HTTPRoute on one hostname of one listener, and
// the model and nginx.conf a GRPCRoute makes (grpc_pass, 503 for an invalid backend).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import { grpcMatch, grpcRule } from '../../src/model/gateway/grpc.js';
import { judgeListeners } from '../../src/model/gateway/listeners.js';
import { attachRoutes } from '../../src/model/gateway/claims.js';
import type { Gateway, GRPCRoute, GRPCRouteMatch, HTTPRoute, Listener } from '../../src/model/gateway/api.js';
import { desiredGatewayStatus } from '../../src/status/gateway.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { MODEL_OPTIONS, service, slice, RENDER_OPTIONS } from '../support/objects.js';

const CONTROLLER = 'portico.dev/gateway-controller';
const OPTIONS: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: CONTROLLER } };
const V1 = 'gateway.networking.k8s.io/v1';

const listeners: Listener[] = [
  { name: 'http', port: 80, protocol: 'HTTP' },
  { name: 'https', port: 443, protocol: 'HTTPS', tls: { mode: 'Terminate', certificateRefs: [{ name: 'none' }] } },
];

function grpcRoute(name: string, spec: GRPCRoute['spec'], created = '2026-01-01T00:00:00Z'): GRPCRoute {
  return { apiVersion: V1, kind: 'GRPCRoute', metadata: { name, namespace: 'default', creationTimestamp: created }, spec };
}

function httpRoute(name: string, spec: HTTPRoute['spec'], created: string): HTTPRoute {
  return { apiVersion: V1, kind: 'HTTPRoute', metadata: { name, namespace: 'default', creationTimestamp: created }, spec };
}

function snapshot(grpcRoutes: GRPCRoute[], httpRoutes: HTTPRoute[] = []): Snapshot {
  const gateway: Gateway = { apiVersion: V1, kind: 'Gateway', metadata: { name: 'web', namespace: 'default' }, spec: { gatewayClassName: 'portico', listeners } };
  return {
    ...EMPTY_SNAPSHOT,
    services: [service('a'), service('b')],
    endpointSlices: [slice('a', 8080, ['10.0.0.1']), slice('b', 8080, ['10.0.0.2'])],
    gatewayClasses: [{ apiVersion: V1, kind: 'GatewayClass', metadata: { name: 'portico' }, spec: { controllerName: CONTROLLER } }],
    gateways: [gateway],
    grpcRoutes,
    httpRoutes,
  };
}

const path = (m: GRPCRouteMatch): string => {
  const r = grpcMatch(m, 'm');
  return 'reason' in r ? `refused ${r.field}: ${r.reason}` : `${r.path.type} ${r.path.value}${r.headers.map((h) => ` ${h.name}=${h.value}`).join('')}`;
};

test('a method match is the HTTP/2 path of the call: exact, service only, method only, regular expressions', () => {
  assert.deepEqual(
    [
      path({ method: { service: 'pkg.Echo', method: 'Say' } }),
      path({ method: { type: 'Exact', service: 'pkg.Echo' } }),
      path({ method: { method: 'Say' } }),
      path({ method: { type: 'RegularExpression', service: 'pkg\\.v[0-9]+\\.Echo', method: 'S.*' } }),
      path({ method: { type: 'RegularExpression', method: 'Say' } }),
      path({}),
      path({ method: {} }),
      path({ headers: [{ name: 'Version', value: 'two' }] }),
    ],
    [
      'Exact /pkg.Echo/Say',
      'PathPrefix /pkg.Echo',
      'RegularExpression /[^/]+/Say',
      'RegularExpression /(?:pkg\\.v[0-9]+\\.Echo)/(?:S.*)',
      'RegularExpression /(?:[^/]+)/(?:Say)',
      'PathPrefix /',
      'PathPrefix /',
      'PathPrefix / version=two',
    ],
  );
});

test('a match Portico cannot serve exactly is refused, naming its field', () => {
  assert.deepEqual(
    [
      path({ method: { service: 'pkg/Echo', method: 'Say' } }),
      path({ method: { service: 'pkg.Echo', method: 'Say;' } }),
      path({ method: { type: 'Exact' } }),
      path({ method: { type: 'Prefix' as 'Exact', service: 'a' } }),
      path({ method: { type: 'RegularExpression', service: '(a+)+' } }),
      path({ method: { type: 'RegularExpression', service: '(?=a)' } }),
      path({ headers: [{ name: 'bad_name', value: 'x' }] }),
    ].map((s) => s.replace(/: .*/, '')),
    ['refused m.method.service', 'refused m.method.method', 'refused m.method', 'refused m.method.type', 'refused m.method', 'refused m.method', 'refused m.headers[0].name'],
  );
});

test('filters: the header modifiers are served; RequestMirror and others refuse the rule, naming the filter', () => {
  const ok = grpcRule({ filters: [{ type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'x', value: 'y' }] } }], backendRefs: [{ name: 'a', port: 80 }] }, 'spec.rules[0]');
  assert.ok(!('reason' in ok));
  const mirror = grpcRule({ filters: [{ type: 'ResponseHeaderModifier' }, { type: 'RequestMirror', requestMirror: { backendRef: { name: 'b', port: 80 } } }] }, 'spec.rules[1]');
  assert.ok('reason' in mirror);
  assert.equal(mirror.field, 'spec.rules[1].filters[1].type');
});

test('route kinds: HTTPS listeners admit GRPCRoute, HTTP listeners do not (and say why when asked to)', () => {
  const gw: Gateway = {
    apiVersion: V1,
    kind: 'Gateway',
    metadata: { name: 'web', namespace: 'default' },
    spec: { listeners: [...listeners, { name: 'asks', port: 80, protocol: 'HTTP', allowedRoutes: { kinds: [{ kind: 'HTTPRoute' }, { kind: 'GRPCRoute' }] } }] },
  };
  const judged = judgeListeners(gw, { kind: 'Gateway', namespace: 'default', name: 'web' }, { secrets: [] });
  assert.deepEqual(
    judged.map((j) => [j.listener.name, j.supportedKinds.map((k) => k.kind).join(','), j.routeKinds, j.grpcKinds, j.resolvedRefs[1]]),
    [
      ['http', 'HTTPRoute', true, false, 'ResolvedRefs'],
      ['https', 'HTTPRoute,GRPCRoute', true, true, 'InvalidCertificateRef'],
      ['asks', 'HTTPRoute', true, false, 'InvalidRouteKinds'],
    ],
  );
  assert.match(judged[2]?.warnings[0]?.[1] ?? '', /GRPCRoute is served on HTTPS listeners.*--gateway-h2c-ports.*docs\/adr\/0029/);
});

test('a GRPCRoute and an HTTPRoute on one hostname of one listener: the older keeps it, the newer is not accepted there', () => {
  const rpc = grpcRoute('rpc', { parentRefs: [{ name: 'web', sectionName: 'https' }], hostnames: ['shared.test'], rules: [{ backendRefs: [{ name: 'a', port: 80 }] }] }, '2026-01-02T00:00:00Z');
  const older = httpRoute('web', { parentRefs: [{ name: 'web', sectionName: 'https' }], hostnames: ['*.test'], rules: [{ backendRefs: [{ name: 'b', port: 80 }] }] }, '2026-01-01T00:00:00Z');
  const apart = httpRoute('apart', { parentRefs: [{ name: 'web', sectionName: 'https' }], hostnames: ['other.example'], rules: [{ backendRefs: [{ name: 'b', port: 80 }] }] }, '2026-01-01T00:00:00Z');
  const attached = (s: Snapshot): string[] =>
    attachRoutes(s, CONTROLLER).routes.map((r) => `${r.kind} ${r.route.metadata?.name ?? ''}: ${'reason' in r.attached ? (r.attached.reason.split(':')[0] ?? '') : r.attached.hosts.join(',')}`);
  assert.deepEqual(attached(snapshot([rpc], [older])), ['HTTPRoute web: *.test', 'GRPCRoute rpc: NotAllowedByListeners']);
  assert.deepEqual(attached(snapshot([rpc], [apart])), ['HTTPRoute apart: other.example', 'GRPCRoute rpc: shared.test']);
  // The GRPCRoute older: the HTTPRoute gives way.
  const newer = httpRoute('web', { ...older.spec }, '2026-02-01T00:00:00Z');
  assert.deepEqual(attached(snapshot([rpc], [newer])), ['HTTPRoute web: NotAllowedByListeners', 'GRPCRoute rpc: shared.test']);
  const status = desiredGatewayStatus(snapshot([rpc], [older]), CONTROLLER);
  const conditions = status.grpcRoutes.get('default/rpc')?.[0]?.conditions ?? [];
  assert.deepEqual(
    conditions.map((c) => `${c.type}=${c.status}/${c.reason}`),
    ['Accepted=False/NotAllowedByListeners', 'ResolvedRefs=True/ResolvedRefs'],
  );
  assert.match(conditions[0]?.message ?? '', /older HTTPRoute default\/web/);
});

test('the model: a plain method route is a grpc_pass location, conditions go to Lua with grpc_pass, an invalid share answers 503', () => {
  const route = grpcRoute('rpc', {
    parentRefs: [
      { name: 'web', sectionName: 'https' },
      { name: 'web', sectionName: 'http' },
    ],
    hostnames: ['rpc.test'],
    rules: [
      { matches: [{ method: { service: 'pkg.Echo', method: 'Say' } }], backendRefs: [{ name: 'a', port: 80 }] },
      { matches: [{ method: { service: 'pkg.Echo' }, headers: [{ name: 'version', value: 'two' }] }], backendRefs: [{ name: 'b', port: 80 }] },
      { matches: [{ method: { service: 'pkg.Broken' } }], backendRefs: [{ name: 'missing', port: 80 }] },
      { matches: [{ method: { type: 'RegularExpression', service: 'x"; deny all; #' } }], backendRefs: [{ name: 'a', port: 80 }] },
    ],
  });
  const model = buildModel(snapshot([route]), OPTIONS);
  const server = model.servers.find((s) => s.host === 'rpc.test');
  assert.ok(server);
  const conf = renderNginxConf(model, RENDER_OPTIONS).text;
  const block = conf.slice(conf.indexOf('server_name "rpc.test"'));
  const location = (p: string): string => block.slice(block.indexOf(`location ${p} {`), block.indexOf('\n        }', block.indexOf(`location ${p} {`)));
  assert.match(location('= "/pkg.Echo/Say"'), /grpc_pass grpc:\/\/portico_balancer;/);
  assert.match(location('"/pkg.Echo/"'), /rewrite_by_lua_block \{ require\("portico.gateway"\).rewrite\(\) \}[\s\S]*grpc_pass grpc:\/\/portico_balancer;/);
  // Every location of the host passes over gRPC, the catch-all 404 aside.
  const own = block.slice(0, block.indexOf('server_name', 10) > 0 ? block.indexOf('server_name', 10) : undefined);
  assert.equal((own.match(/proxy_pass /g) ?? []).length, 0, own);
  // A regex from a route is data for Lua, never nginx.conf text.
  assert.ok(!conf.includes('deny all'), 'the hostile regex stays out of nginx.conf');
  assert.ok(JSON.stringify(model.gateway?.locations).includes('deny all'), 'it is a candidate of the route table');
  const broken = model.gateway?.actions.find((a) => a.route.name === 'rpc' && a.rule === 2);
  assert.deepEqual([broken?.failStatus, broken?.grpc, broken?.backends.length], [503, true, 1]);
  const warning = model.problems.find((p) => p.object.kind === 'GRPCRoute' && p.field === 'spec.rules[2].backendRefs[0]');
  assert.match(warning?.reason ?? '', /BackendNotFound: .*answers 503 \(gRPC UNAVAILABLE\)/);
});
