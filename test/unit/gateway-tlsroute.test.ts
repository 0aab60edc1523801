// TLSRoute, unit level (docs/adr/0022): listeners of protocol TLS (Passthrough and Terminate served), the stream
// section a TLSRoute makes (the 443 front without --enable-ssl-passthrough, another port closing an unknown SNI),
// weights per endpoint, and hostile hostnames refused with a Problem naming their field, never reaching nginx.conf.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import type { Gateway, HTTPRoute, Listener, TLSRoute } from '../../src/model/gateway/api.js';
import { portJudge } from '../../src/model/gateway/listener-ports.js';
import { judgeListeners } from '../../src/model/gateway/listeners.js';
import { endpointWeights } from '../../src/render/stream-tls.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { MODEL_OPTIONS, service, slice, RENDER_OPTIONS } from '../support/objects.js';

const CONTROLLER = 'portico.dev/gateway-controller';
const V1 = 'gateway.networking.k8s.io/v1';
const OPTIONS: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: CONTROLLER, ports: { httpPort: 80, httpsPort: 443, portMap: new Map([[8443, 18443]]) } } };

const listeners: Listener[] = [
  { name: 'tls', port: 443, protocol: 'TLS', tls: { mode: 'Passthrough' } },
  { name: 'alt', port: 8443, protocol: 'TLS', hostname: '*.alt.test', tls: { mode: 'Passthrough' } },
  { name: 'term', port: 9443, protocol: 'TLS', tls: { mode: 'Terminate', certificateRefs: [{ name: 'x' }] } },
];

function tlsRoute(name: string, hostnames: string[], sectionName: string, backendRefs: { name: string; port: number; weight?: number }[]): TLSRoute {
  return {
    apiVersion: V1,
    kind: 'TLSRoute',
    metadata: { name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { parentRefs: [{ name: 'gw', sectionName }], hostnames, rules: [{ backendRefs }] },
  };
}

function snapshot(tlsRoutes: TLSRoute[], httpRoutes: HTTPRoute[] = []): Snapshot {
  const gateway: Gateway = { apiVersion: V1, kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { gatewayClassName: 'portico', listeners } };
  return {
    ...EMPTY_SNAPSHOT,
    services: [service('a'), service('b')],
    endpointSlices: [slice('a', 8443, ['10.0.0.1', '10.0.0.2']), slice('b', 8443, ['10.0.0.3'])],
    gatewayClasses: [{ apiVersion: V1, kind: 'GatewayClass', metadata: { name: 'portico' }, spec: { controllerName: CONTROLLER } }],
    gateways: [gateway],
    tlsRoutes,
    httpRoutes,
  };
}

const render = (s: Snapshot): string => renderNginxConf(buildModel(s, OPTIONS), RENDER_OPTIONS).text;

test('TLS listeners: Passthrough and Terminate accepted on any listed port with TLSRoute as their kind', () => {
  const g = snapshot([]).gateways?.[0] as Gateway;
  // 8443 and 9443 are listed in --gateway-port-map: a TLS listener on an unlisted port is PortUnavailable
  const policy = {
    ports: {
      httpPort: 80,
      httpsPort: 443,
      portMap: new Map([
        [8443, 18443],
        [9443, 19443],
      ]),
    },
    own: [],
    stream: [],
  };
  const judged = judgeListeners(g, { kind: 'Gateway', namespace: 'default', name: 'gw' }, snapshot([]), { ports: portJudge([g], policy) });
  assert.deepEqual(
    judged.map((j) => [j.listener.name, j.accepted[1], j.supportedKinds.map((k) => k.kind).join(','), j.routeKinds, j.tlsKinds]),
    [
      ['tls', 'Accepted', 'TLSRoute', false, true],
      ['alt', 'Accepted', 'TLSRoute', false, true],
      ['term', 'Accepted', 'TLSRoute', false, true],
    ],
  );
});

test('a TLSRoute on 443 turns the SNI front on without --enable-ssl-passthrough; another port closes an SNI no route takes', () => {
  const conf = render(
    snapshot([
      tlsRoute('front', ['one.test', '*.wild.test'], 'tls', [
        { name: 'a', port: 80, weight: 1 },
        { name: 'b', port: 80, weight: 3 },
      ]),
      tlsRoute('alt', ['x.alt.test', 'y.elsewhere.test'], 'alt', [{ name: 'b', port: 80 }]),
    ]),
  );
  const stream = conf.slice(conf.indexOf('stream {'));
  assert.match(stream, /map \$ssl_preread_server_name \$portico_sni_target \{\n {8}hostnames;\n {8}default portico_https;\n {8}"\*\.wild\.test" portico_tls_0;\n {8}"one\.test" portico_tls_1;/);
  // a's two endpoints share weight 1, b's one endpoint has 3: 1+1 against 6
  assert.match(stream, /upstream portico_tls_backend_1 \{\n {8}server 10\.0\.0\.1:8443;\n {8}server 10\.0\.0\.2:8443;\n {8}server 10\.0\.0\.3:8443 weight=6;\n {4}\}/);
  assert.match(stream, /map \$ssl_preread_server_name \$portico_tls_18443 \{\n {8}hostnames;\n {8}default portico_tls_closed;\n {8}"x\.alt\.test" portico_tls_18443_0;\n {4}\}/);
  assert.match(stream, /listen 18443;\n {8}ssl_preread on;/);
  assert.doesNotMatch(stream, /elsewhere/, "outside the listener's *.alt.test");
  // the HTTPS server moved behind the front
  assert.match(conf, /listen "unix:\/w\/https\.sock"/);
});

test('weights per endpoint keep each backendRef share whatever its endpoint count', () => {
  const ep = (n: number): { address: string; port: number }[] => Array.from({ length: n }, (_, i) => ({ address: `10.0.0.${i + 1}`, port: 1 }));
  const b = (weight: number, n: number): { service: { kind: string; namespace: string; name: string }; servicePort: number; weight: number; endpoints: { address: string; port: number }[] } => ({
    service: { kind: 'Service', namespace: 'd', name: 's' },
    servicePort: 1,
    weight,
    endpoints: ep(n),
  });
  assert.deepEqual(endpointWeights([b(1, 2), b(3, 1)]), [[1, 1], [6]]);
  assert.deepEqual(endpointWeights([b(1, 3), b(1, 2)]), [
    [2, 2, 2],
    [3, 3],
  ]);
  assert.deepEqual(endpointWeights([b(5, 1), b(5, 1)]), [[1], [1]]);
});

test('hostile or invalid hostnames and backendRefs are Problems naming their field; nothing of them reaches nginx.conf', () => {
  const s = snapshot([
    tlsRoute('bad', ['evil.test;\n}', 'ok.test'], 'tls', [
      { name: 'a', port: 80 },
      { name: 'missing', port: 80 },
    ]),
  ]);
  const model = buildModel(s, OPTIONS);
  const mine = model.problems.filter((p) => p.object.kind === 'TLSRoute').map((p) => `${p.field}: ${p.reason}`);
  assert.deepEqual(mine, [
    'spec.rules[0].backendRefs[1]: BackendNotFound: Service default/missing not found; its share of connections is not served',
    'spec.hostnames: "evil.test;\\n}" is not a DNS name or a *. wildcard of one; not served',
  ]);
  const conf = render(s);
  assert.doesNotMatch(conf, /evil/);
  assert.match(conf, /"ok\.test" portico_tls_0;/);
});

test('an HTTPRoute does not attach to a TLS listener', () => {
  const route: HTTPRoute = {
    apiVersion: V1,
    kind: 'HTTPRoute',
    metadata: { name: 'h', namespace: 'default' },
    spec: { parentRefs: [{ name: 'gw', sectionName: 'tls' }], rules: [{ backendRefs: [{ name: 'a', port: 80 }] }] },
  };
  const model = buildModel(snapshot([], [route]), OPTIONS);
  assert.ok(model.problems.some((p) => p.object.kind === 'HTTPRoute' && p.reason.startsWith('NotAllowedByListeners')));
});
