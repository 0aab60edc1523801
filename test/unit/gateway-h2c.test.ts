// HTTP/2 cleartext (h2c) on Gateway HTTP listeners, unit level (docs/adr/0029): --gateway-h2c-ports parsed and
// checked against the ports HTTP listeners are served on; an HTTP listener on an h2c local port admits GRPCRoute and
// a GRPCRoute attaches there, one on a plain port is refused as before; nginx.conf puts `http2` on every plain listen
// of an h2c port and on no other; and no Gateway, of any namespace, turns a port h2c.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import { judgeListeners } from '../../src/model/gateway/listeners.js';
import { attachRoutes } from '../../src/model/gateway/claims.js';
import { portJudge, type ListenerPortPolicy } from '../../src/model/gateway/listener-ports.js';
import type { Gateway, GRPCRoute, HTTPRoute, Listener } from '../../src/model/gateway/api.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { parseFlags } from '../../src/config/flags.js';
import { MODEL_OPTIONS, service, slice, RENDER_OPTIONS } from '../support/objects.js';

const CONTROLLER = 'portico.dev/gateway-controller';
const V1 = 'gateway.networking.k8s.io/v1';
/** --http-port 8000 is h2c, and the listener port 8080 on local 18080; 8090 on local 18090 stays HTTP/1.x. */
const POLICY: ListenerPortPolicy = {
  ports: {
    httpPort: 8000,
    httpsPort: 8001,
    portMap: new Map([
      [8080, 18080],
      [8090, 18090],
      [8443, 18443],
    ]),
    h2c: [8000, 18080],
  },
  own: [],
  stream: [],
};
const OPTIONS: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: CONTROLLER, ports: POLICY.ports, reserved: { own: [], stream: [] } } };

function gw(name: string, namespace: string, listeners: Listener[], created = '2026-01-01T00:00:00Z'): Gateway {
  return { apiVersion: V1, kind: 'Gateway', metadata: { name, namespace, creationTimestamp: created }, spec: { gatewayClassName: 'portico', listeners } };
}

function grpcRoute(name: string, namespace: string, gateway: string, sectionName: string, host: string): GRPCRoute {
  return {
    apiVersion: V1,
    kind: 'GRPCRoute',
    metadata: { name, namespace, creationTimestamp: '2026-01-02T00:00:00Z' },
    spec: { parentRefs: [{ name: gateway, sectionName }], hostnames: [host], rules: [{ backendRefs: [{ name: 'app', port: 80 }] }] },
  };
}

function httpRoute(name: string, namespace: string, gateway: string, sectionName: string, host: string): HTTPRoute {
  return {
    apiVersion: V1,
    kind: 'HTTPRoute',
    metadata: { name, namespace, creationTimestamp: '2026-01-02T00:00:00Z' },
    spec: { parentRefs: [{ name: gateway, sectionName }], hostnames: [host], rules: [{ backendRefs: [{ name: 'app', port: 80 }] }] },
  };
}

function snapshot(gateways: Gateway[], grpcRoutes: GRPCRoute[] = [], httpRoutes: HTTPRoute[] = []): Snapshot {
  return {
    ...EMPTY_SNAPSHOT,
    services: [service('app', 'team-a'), service('app', 'team-b')],
    endpointSlices: [slice('app', 8080, ['10.0.0.1'], { namespace: 'team-a' }), slice('app', 8080, ['10.0.0.2'], { namespace: 'team-b' })],
    gatewayClasses: [{ apiVersion: V1, kind: 'GatewayClass', metadata: { name: 'portico' }, spec: { controllerName: CONTROLLER } }],
    gateways,
    grpcRoutes,
    httpRoutes,
  };
}

const kinds = (g: Gateway): string[] =>
  judgeListeners(g, { kind: 'Gateway', namespace: g.metadata?.namespace ?? '', name: g.metadata?.name ?? '' }, snapshot([g]), { ports: portJudge([g], POLICY) }).map(
    (j) => `${j.listener.name} ${j.supportedKinds.map((k) => k.kind).join(',')} ${j.resolvedRefs[1]}`,
  );

const attached = (s: Snapshot): string[] =>
  attachRoutes(s, CONTROLLER, undefined, POLICY).routes.map(
    (r) => `${r.kind} ${r.route.metadata?.namespace ?? ''}/${r.route.metadata?.name ?? ''}: ${'reason' in r.attached ? (r.attached.reason.split(':')[0] ?? '') : r.attached.hosts.join(',')}`,
  );

/** The listen lines of the rendered nginx.conf on `port`, deduplicated. */
function listens(s: Snapshot, port: number): string[] {
  const conf = renderNginxConf(buildModel(s, OPTIONS), { ...RENDER_OPTIONS, httpPort: 8000, httpsPort: 8001, h2cPorts: POLICY.ports.h2c ?? [] }).text;
  return [
    ...new Set(
      conf
        .split('\n')
        .filter((l) => new RegExp(`^\\s*listen ${String(port)}\\b`).test(l))
        .map((l) => l.trim().replace(/ default_server backlog=4096/, '')),
    ),
  ];
}

test('--gateway-h2c-ports: sorted distinct ports, each --http-port or a LOCAL_PORT of --gateway-port-map', () => {
  const parse = (...argv: string[]): readonly number[] => parseFlags(['--http-port', '8000', '--gateway-port-map', '8080=18080', ...argv], {}).gatewayH2cPorts;
  assert.deepEqual(parse(), []);
  assert.deepEqual(parse('--gateway-h2c-ports', '18080,8000'), [8000, 18080]);
  assert.throws(() => parse('--gateway-h2c-ports', '8000,8000'), /--gateway-h2c-ports: port 8000 is listed twice/);
  assert.throws(() => parse('--gateway-h2c-ports', 'http'), /--gateway-h2c-ports: expected a port number/);
  // 8080 is a listener port, not a local one; --https-port is TLS (HTTP/2 by ALPN there already)
  assert.throws(() => parse('--gateway-h2c-ports', '8080'), /--gateway-h2c-ports: 8080 is neither --http-port \(8000\) nor a LOCAL_PORT of --gateway-port-map/);
  assert.throws(() => parse('--https-port', '8443', '--gateway-h2c-ports', '8443'), /8443 is neither --http-port/);
});

test('an HTTP listener on an h2c local port admits GRPCRoute; on a plain port it does not; HTTPS as before', () => {
  const asks = { kinds: [{ kind: 'GRPCRoute' }] };
  const web = gw('web', 'team-a', [
    { name: 'http', port: 80, protocol: 'HTTP' },
    { name: 'h2c', port: 8080, protocol: 'HTTP', allowedRoutes: asks },
    { name: 'plain', port: 8090, protocol: 'HTTP', allowedRoutes: asks },
    { name: 'https', port: 8443, protocol: 'HTTPS', tls: { certificateRefs: [{ name: 'none' }] } },
  ]);
  assert.deepEqual(kinds(web), ['http HTTPRoute,GRPCRoute ResolvedRefs', 'h2c GRPCRoute ResolvedRefs', 'plain  InvalidRouteKinds', 'https HTTPRoute,GRPCRoute InvalidCertificateRef']);
});

test('GRPCRoutes attach to HTTP listeners on h2c ports, HTTPRoutes beside them still do; on a plain port NotAllowedByListeners', () => {
  const web = gw('web', 'team-a', [
    { name: 'http', port: 80, protocol: 'HTTP' },
    { name: 'plain', port: 8090, protocol: 'HTTP' },
  ]);
  const s = snapshot(
    [web],
    [grpcRoute('rpc', 'team-a', 'web', 'http', 'rpc.test'), grpcRoute('late', 'team-a', 'web', 'plain', 'late.test')],
    [httpRoute('site', 'team-a', 'web', 'http', 'site.test')],
  );
  assert.deepEqual(attached(s), ['HTTPRoute team-a/site: site.test', 'GRPCRoute team-a/rpc: rpc.test', 'GRPCRoute team-a/late: NotAllowedByListeners']);
});

test('nginx.conf: every plain listen of an h2c port says http2, of no other port; HTTPS listens as before', () => {
  const web = gw('web', 'team-a', [
    { name: 'http', port: 80, protocol: 'HTTP' },
    { name: 'h2c', port: 8080, protocol: 'HTTP' },
    { name: 'plain', port: 8090, protocol: 'HTTP' },
  ]);
  const s = snapshot([web], [grpcRoute('rpc', 'team-a', 'web', 'h2c', 'rpc.test')], [httpRoute('site', 'team-a', 'web', 'plain', 'site.test')]);
  assert.deepEqual(listens(s, 8000), ['listen 8000 http2;']);
  assert.deepEqual(listens(s, 18080), ['listen 18080 http2;']);
  assert.deepEqual(listens(s, 18090), ['listen 18090;']);
  assert.deepEqual(listens(s, 8001), ['listen 8001 ssl http2;'], 'HTTPS as before: HTTP/2 by ALPN (use-http2)');
});

test('security: a Gateway of another namespace cannot make a port h2c, nor get GRPCRoute on a plain port', () => {
  // team-a holds the plain listener port 8090 (older); team-b's Gateway asks for GRPCRoute on the same port and on
  // another plain listing, and attaches a GRPCRoute: refused everywhere, and nginx.conf keeps both ports HTTP/1.x.
  const a = gw('site', 'team-a', [{ name: 'plain', port: 8090, protocol: 'HTTP' }], '2026-01-01T00:00:00Z');
  const b = gw('rpc', 'team-b', [{ name: 'plain', port: 8090, protocol: 'HTTP', allowedRoutes: { kinds: [{ kind: 'HTTPRoute' }, { kind: 'GRPCRoute' }] } }], '2026-01-03T00:00:00Z');
  const s = snapshot([a, b], [grpcRoute('rpc', 'team-b', 'rpc', 'plain', 'rpc.test')], [httpRoute('site', 'team-a', 'site', 'plain', 'site.test')]);
  assert.deepEqual(kinds(b), ['plain HTTPRoute InvalidRouteKinds']);
  assert.deepEqual(attached(s), ['HTTPRoute team-a/site: site.test', 'GRPCRoute team-b/rpc: NotAllowedByListeners']);
  assert.deepEqual(listens(s, 18090), ['listen 18090;']);
  // and what --gateway-h2c-ports made h2c stays so, whoever's Gateway serves there: the operator's decision alone
  const c = gw('alt', 'team-b', [{ name: 'h2c', port: 8080, protocol: 'HTTP', allowedRoutes: { kinds: [{ kind: 'HTTPRoute' }] } }]);
  assert.deepEqual(listens(snapshot([c]), 18080), ['listen 18080 http2;']);
});
