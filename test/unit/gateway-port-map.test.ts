// --gateway-port-map's per-Gateway entries (docs/adr/0030): the flag's grammar and its errors, and what the model
// makes of a Gateway given local ports of its own: its listeners served there, its routes limited to them, and two
// Gateways' routes for one host and path kept apart by local port instead of refused as a conflict.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseFlags } from '../../src/config/flags.js';
import { parseGatewayPortMap } from '../../src/config/port-map.js';
import { ConfigError } from '../../src/errors.js';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import { judgeListeners } from '../../src/model/gateway/listeners.js';
import { portJudge, type ListenerPortPolicy } from '../../src/model/gateway/listener-ports.js';
import { localPort, unlisted, type PortOptions } from '../../src/model/gateway/ports.js';
import type { Gateway, HTTPRoute, Listener } from '../../src/model/gateway/api.js';
import { MODEL_OPTIONS, service, slice } from '../support/objects.js';

const CONTROLLER = 'portico.dev/gateway-controller';
const V1 = 'gateway.networking.k8s.io/v1';
const FLAG = 'gateway-port-map';

test('generic and per-Gateway entries parse apart; the flag carries both', () => {
  const m = parseGatewayPortMap(FLAG, ' 8080=18080, team-a/web:80=18000 ,team-a/web:8080=18081,team-b/api.v2:443=18443');
  assert.deepEqual([...m.portMap], [[8080, 18080]]);
  assert.deepEqual(
    [...m.gatewayMaps].map(([g, ports]) => [g, [...ports]]),
    [
      [
        'team-a/web',
        [
          [80, 18000],
          [8080, 18081],
        ],
      ],
      ['team-b/api.v2', [[443, 18443]]],
    ],
  );
  const c = parseFlags(['--manifests', '/m', '--gateway-port-map', 'ns/gw:80=9080'], {});
  assert.deepEqual([...c.gatewayPortMap.portMap], []);
  assert.deepEqual([...(c.gatewayPortMap.gatewayMaps.get('ns/gw') ?? [])], [[80, 9080]]);
  assert.deepEqual([...parseGatewayPortMap(FLAG, '').gatewayMaps], []);
});

test('a malformed or repeated entry is a ConfigError naming the flag and the entry', () => {
  const cases: [string, RegExp][] = [
    ['web:80=8081', /entry "web:80=8081" names "web", not a Gateway NAMESPACE\/NAME/],
    ['Team/web:80=8081', /entry "Team\/web:80=8081" names "Team\/web", not a Gateway NAMESPACE\/NAME/],
    ['a/b/c:80=8081', /names "a\/b\/c", not a Gateway/],
    [':80=8081', /names "", not a Gateway/],
    ['ns/web:http=8081', /entry "ns\/web:http=8081" has listener port "http", not a port number 1-65535/],
    ['ns/web:80=0', /entry "ns\/web:80=0" has local port "0", not a port number/],
    ['8080=70000', /entry "8080=70000" has local port "70000"/],
    ['ns/web:80', /entry "ns\/web:80" is not one LISTENER_PORT=LOCAL_PORT/],
    ['8080=1=2', /is not one LISTENER_PORT=LOCAL_PORT/],
    ['ns/web:80=8081,ns/web:80=8082', /entry "ns\/web:80=8082" maps listener port 80 of Gateway ns\/web a second time/],
    ['8080=1,8080=2', /entry "8080=2" maps listener port 8080 a second time/],
  ];
  for (const [value, want] of cases) {
    assert.throws(
      () => parseGatewayPortMap(FLAG, value),
      (err: unknown) => err instanceof ConfigError && err.message.startsWith('--gateway-port-map: ') && want.test(err.message),
      value,
    );
  }
  // the same listener port for two Gateways, or generic and per-Gateway, is no repetition
  assert.doesNotThrow(() => parseGatewayPortMap(FLAG, 'a/web:80=1,b/web:80=2,80=3'));
  assert.throws(() => parseFlags(['--manifests', '/m', '--gateway-port-map', 'web:80=1'], {}), /--gateway-port-map: entry "web:80=1"/);
});

const PORTS: PortOptions = {
  httpPort: 8000,
  httpsPort: 8001,
  portMap: new Map([[8080, 18080]]),
  gatewayMaps: new Map([
    [
      'team-a/web',
      new Map([
        [80, 18000],
        [443, 18443],
        [8080, 18081],
        [9090, 19090],
      ]),
    ],
  ]),
};

test('a per-Gateway entry wins over the generic one and the traffic ports, for that Gateway only', () => {
  assert.deepEqual(
    ['team-a/web', 'team-b/web'].map((g) => [localPort(PORTS, 'HTTP', 80, g), localPort(PORTS, 'HTTPS', 443, g), localPort(PORTS, 'HTTP', 8080, g), localPort(PORTS, 'HTTP', 9090, g)]),
    [
      [18000, 18443, 18081, 19090],
      [8000, 8001, 18080, 9090],
    ],
  );
  assert.equal(unlisted(PORTS, 'HTTP', 9090, 'team-a/web'), undefined);
  assert.match(unlisted(PORTS, 'HTTP', 9090, 'team-b/web') ?? '', /^port 9090 is not listed in --gateway-port-map/);
});

function gw(namespace: string, listeners: Listener[], created: string): Gateway {
  return { apiVersion: V1, kind: 'Gateway', metadata: { name: 'web', namespace, creationTimestamp: created }, spec: { gatewayClassName: 'portico', listeners } };
}
const HTTP80: Listener = { name: 'http', port: 80, protocol: 'HTTP' };

function rootRoute(namespace: string, created: string): HTTPRoute {
  return {
    apiVersion: V1,
    kind: 'HTTPRoute',
    metadata: { name: 'root', namespace, creationTimestamp: created },
    spec: { parentRefs: [{ name: 'web' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/' } }], backendRefs: [{ name: 'app', port: 80 }] }] },
  };
}

function snapshot(gateways: Gateway[], routes: HTTPRoute[]): Snapshot {
  const ns = ['team-a', 'team-b'];
  return {
    ...EMPTY_SNAPSHOT,
    services: ns.map((n) => ({ ...service('app'), metadata: { name: 'app', namespace: n } })),
    endpointSlices: ns.map((n, i) => ({ ...slice('app', 80, [`10.0.0.${String(i + 1)}`]), metadata: { name: 'app-1', namespace: n, labels: { 'kubernetes.io/service-name': 'app' } } })),
    gatewayClasses: [{ apiVersion: V1, kind: 'GatewayClass', metadata: { name: 'portico' }, spec: { controllerName: CONTROLLER } }],
    gateways,
    httpRoutes: routes,
  };
}

test("two Gateways' routes for one host and path on different local ports are both served, each limited to its Gateway's ports", () => {
  const options: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: CONTROLLER, ports: PORTS } };
  // team-b's Gateway and route are the older: on one local port they would win; on their own ports they take nothing of team-a's
  const model = buildModel(
    snapshot(
      [gw('team-a', [HTTP80], '2026-02-01T00:00:00Z'), gw('team-b', [HTTP80], '2026-01-01T00:00:00Z')],
      [rootRoute('team-a', '2026-02-01T00:00:00Z'), rootRoute('team-b', '2026-01-01T00:00:00Z')],
    ),
    options,
  );
  const candidates = Object.values(model.gateway?.locations ?? {}).flatMap((list) => list.map((c) => `${model.gateway?.actions[c.action]?.route.namespace ?? ''} ${JSON.stringify(c.match.ports)}`));
  assert.deepEqual(candidates.sort(), ['team-a [18000]', 'team-b [8000,8001]']);
  assert.deepEqual(model.gatewayPorts, { http: [18000], https: [] });
  assert.deepEqual(model.gateway?.listenerPorts, { '18000': 80 });
  assert.deepEqual(
    model.problems.filter((p) => p.object.kind !== 'GatewayClass'),
    [],
  );
});

test("a per-Gateway entry onto the other traffic port, or onto a local port another Gateway's listener of another port holds, is PortUnavailable", () => {
  const policy: ListenerPortPolicy = {
    ports: {
      ...PORTS,
      gatewayMaps: new Map([
        ['team-a/web', new Map([[80, 8001]])],
        ['team-b/web', new Map([[80, 18080]])],
      ]),
    },
    own: [],
    stream: [],
  };
  const a = gw('team-a', [HTTP80], '2026-01-01T00:00:00Z');
  const b = gw('team-b', [HTTP80], '2026-02-01T00:00:00Z');
  const c = gw('team-c', [{ name: 'alt', port: 8080, protocol: 'HTTP' }], '2026-01-01T00:00:00Z');
  const all = [a, b, c];
  const judged = (g: Gateway): string[] =>
    judgeListeners(g, { kind: 'Gateway', namespace: g.metadata?.namespace ?? '', name: 'web' }, snapshot(all, []), { ports: portJudge(all, policy) }).map(
      (j) => `${j.listener.name} ${j.accepted[1]}${j.accepted[0] ? '' : `: ${j.accepted[2]}`}`,
    );
  assert.deepEqual(judged(a), [
    'http PortUnavailable: port 80 (local port 8001, --gateway-port-map) is --https-port, which serves HTTPS listeners of port 443 only; map it to another local port with --gateway-port-map: the listener is not served',
  ]);
  // team-c's 8080 (generic entry 8080=18080) is the older claim of local port 18080
  assert.deepEqual(judged(c), ['alt Accepted']);
  assert.deepEqual(judged(b), [
    'http PortUnavailable: local port 18080 serves the HTTP listener port 8080 of the older Gateway team-c/web; one local port serves one protocol and listener port: the listener is not served',
  ]);
});
