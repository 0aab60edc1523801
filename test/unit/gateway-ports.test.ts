// Gateway listener ports, unit level: which listener ports are PortUnavailable and why (Portico's own ports, the
// traffic ports under another listener port, a tcp-services key, an older Gateway's other protocol), the local ports
// a route's matches are limited to, and the listen lines and redirect ports the model gives nginx and Lua.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import { judgeListeners } from '../../src/model/gateway/listeners.js';
import { portJudge, type ListenerPortPolicy } from '../../src/model/gateway/listener-ports.js';
import type { Gateway, HTTPRoute, Listener } from '../../src/model/gateway/api.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { MODEL_OPTIONS, service, slice, RENDER_OPTIONS } from '../support/objects.js';

const CONTROLLER = 'portico.dev/gateway-controller';
const V1 = 'gateway.networking.k8s.io/v1';
const POLICY: ListenerPortPolicy = {
  ports: {
    httpPort: 8000,
    httpsPort: 8001,
    portMap: new Map([
      [8080, 18080],
      [8081, 8000],
      [9443, 19443],
      // listed, so the checks after the listing speak: Portico's own port, a tcp-services key, HTTPS on 80
      [10254, 10254],
      [9000, 9000],
      [80, 18443],
    ]),
  },
  own: [[10254, '--healthz-port']],
  stream: [{ namespace: 'ops', name: 'tcp', flag: '--tcp-services-configmap' }],
};
const OPTIONS: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: CONTROLLER, ports: POLICY.ports, reserved: { own: POLICY.own, stream: POLICY.stream } } };

function gw(name: string, listeners: Listener[], created = '2026-01-01T00:00:00Z'): Gateway {
  return { apiVersion: V1, kind: 'Gateway', metadata: { name, namespace: 'default', creationTimestamp: created }, spec: { gatewayClassName: 'portico', listeners } };
}

function route(name: string, port: number): HTTPRoute {
  return {
    apiVersion: V1,
    kind: 'HTTPRoute',
    metadata: { name, namespace: 'default' },
    spec: { parentRefs: [{ name: 'web', port }], hostnames: ['p.test'], rules: [{ backendRefs: [{ name: 'app', port: 80 }] }] },
  };
}

function snapshot(gateways: Gateway[], routes: HTTPRoute[] = []): Snapshot {
  return {
    ...EMPTY_SNAPSHOT,
    services: [service('app')],
    endpointSlices: [slice('app', 80, ['10.0.0.1'])],
    configMaps: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tcp', namespace: 'ops' }, data: { '9000': 'default/app:80' } }],
    gatewayClasses: [{ apiVersion: V1, kind: 'GatewayClass', metadata: { name: 'portico' }, spec: { controllerName: CONTROLLER } }],
    gateways,
    httpRoutes: routes,
  };
}

const accepted = (g: Gateway, all: Gateway[] = [g]): string[] =>
  judgeListeners(g, { kind: 'Gateway', namespace: 'default', name: g.metadata?.name ?? '' }, snapshot(all), { ports: portJudge(all, POLICY) }).map(
    (j) => `${j.listener.name} ${j.accepted[1]}${j.accepted[0] ? '' : `: ${j.accepted[2]}`}`,
  );

test('PortUnavailable names what holds the local port; other ports are served', () => {
  const web = gw('web', [
    { name: 'http', port: 80, protocol: 'HTTP' },
    { name: 'alt', port: 8080, protocol: 'HTTP' },
    { name: 'healthz', port: 10254, protocol: 'HTTP' },
    { name: 'onto-http', port: 8081, protocol: 'HTTP' },
    { name: 'tcp', port: 9000, protocol: 'HTTP' },
    { name: 'https-80', port: 80, protocol: 'HTTPS', tls: { certificateRefs: [{ name: 'c' }] } },
  ]);
  assert.deepEqual(accepted(web), [
    'http Accepted',
    'alt Accepted',
    "healthz PortUnavailable: port 10254 is Portico's own (--healthz-port); map it to another local port with --gateway-port-map: the listener is not served",
    'onto-http PortUnavailable: port 8081 (local port 8000, --gateway-port-map) is --http-port, which serves HTTP listeners of port 80 only; map it to another local port with --gateway-port-map: the listener is not served',
    'tcp PortUnavailable: port 9000 is taken by the --tcp-services-configmap ConfigMap ops/tcp (key 9000): the listener is not served',
    // listener port 80 is --http-port only for HTTP; HTTPS on 80 would be local port 80 (Conflicted says the rest)
    'https-80 Accepted',
  ]);
});

test("a local port an older Gateway's listener of another protocol holds is PortUnavailable for the newer", () => {
  const old = gw('old', [{ name: 'h', port: 9443, protocol: 'HTTP' }], '2026-01-01T00:00:00Z');
  const young = gw('young', [{ name: 's', port: 9443, protocol: 'HTTPS', tls: { certificateRefs: [{ name: 'c' }] } }], '2026-02-01T00:00:00Z');
  assert.deepEqual(accepted(old, [old, young]), ['h Accepted']);
  assert.match(accepted(young, [old, young])[0] ?? '', /^s PortUnavailable: local port 19443 serves the HTTP listener port 9443 of the older Gateway default\/old/);
});

test("each route's matches carry the local ports of its listeners; every server listens on them; redirects learn the listener port", () => {
  const web = gw('web', [
    { name: 'http', port: 80, protocol: 'HTTP' },
    { name: 'alt', port: 8080, protocol: 'HTTP' },
  ]);
  const model = buildModel(snapshot([web], [route('on-80', 80), route('on-8080', 8080)]), OPTIONS);
  const ports = Object.values(model.gateway?.locations ?? {}).flatMap((list) => list.map((c) => `${model.gateway?.actions[c.action]?.route.name ?? ''} ${JSON.stringify(c.match.ports)}`));
  // --http-port 8000 keeps --https-port 8001 (HTTP listeners' routes are answered over HTTPS too), 8080 is 18080
  assert.deepEqual(ports.sort(), ['on-80 [8000,8001]', 'on-8080 [18080]']);
  assert.deepEqual(model.gatewayPorts, { http: [18080], https: [] });
  assert.deepEqual(model.gateway?.listenerPorts, { '18080': 8080 });
  const conf = renderNginxConf(model, { ...RENDER_OPTIONS, httpPort: 8000, httpsPort: 8001, statusPort: 8002 }).text;
  const servers = conf.split('    server {').filter((b) => b.includes('listen 8000'));
  assert.ok(servers.length >= 2, 'the catch-all and p.test');
  for (const s of servers) assert.match(s, /listen 18080( default_server backlog=4096)?;/);
});

test('with listeners on 80 and 443 only, matches carry no ports and nginx.conf has no other listen socket', () => {
  const web = gw('web', [{ name: 'http', port: 80, protocol: 'HTTP' }]);
  const model = buildModel(snapshot([web], [route('on-80', 80)]), OPTIONS);
  assert.equal(model.gateway, undefined, 'a plain route runs no Lua');
  assert.equal(model.gatewayPorts, undefined);
});
