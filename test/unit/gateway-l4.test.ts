// TCPRoute and UDPRoute in the model and the stream section (docs/adr/0023): port clashes with Portico's own ports,
// a tcp-services key and an older Gateway; weights per endpoint; names that are not Kubernetes names kept out of
// nginx.conf comments; /debug/backends rows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import { streamSection } from '../../src/render/stream.js';
import { debugBackends } from '../../src/apply/stream.js';
import { MODEL_OPTIONS, service, slice } from '../support/objects.js';
import { gatewayClass } from '../support/gateway.js';

const G = 'gateway.networking.k8s.io/v1';
const OPTS = {
  ...MODEL_OPTIONS,
  gateway: {
    controllerName: 'portico.dev/gateway-controller',
    ports: {
      httpPort: 8080,
      httpsPort: 8443,
      portMap: new Map([
        [5432, 15432],
        [10254, 10254],
        [7000, 7000],
      ]),
    },
  },
  stream: { tcp: { namespace: 'ingress', name: 'tcp' }, udp: undefined, passthrough: false, reservedPorts: [8080, 8443, 10254], annotationsPrefix: 'nginx.ingress.kubernetes.io' },
};

function gw(name: string, created: string, listeners: readonly Record<string, unknown>[]): unknown {
  return { apiVersion: G, kind: 'Gateway', metadata: { name, namespace: 'default', creationTimestamp: created }, spec: { gatewayClassName: 'portico', listeners } };
}
function snapshot(gateways: readonly unknown[], routes: readonly unknown[]): Snapshot {
  const ep = (name: string, ips: string[]): unknown => ({ ...slice(name, 5432, ips, { portName: 'p' }), ports: [{ name: 'p', port: 5432, protocol: 'TCP' }] });
  return {
    ...EMPTY_SNAPSHOT,
    gatewayClasses: [gatewayClass('portico')] as Snapshot['gatewayClasses'],
    gateways: gateways as Snapshot['gateways'],
    tcpRoutes: routes as Snapshot['tcpRoutes'],
    services: [service('a', 'default', [{ name: 'p', port: 5432 }]), service('b', 'default', [{ name: 'p', port: 5432 }])],
    endpointSlices: [ep('a', ['10.0.0.1', '10.0.0.2', '10.0.0.3']), ep('b', ['10.0.0.9'])] as Snapshot['endpointSlices'],
    configMaps: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tcp', namespace: 'ingress' }, data: { '7000': 'default/a:5432' } }],
  };
}
const route = (name: string, backendRefs: readonly unknown[], sectionName = 'db'): unknown => ({
  apiVersion: G,
  kind: 'TCPRoute',
  metadata: { name, namespace: 'default' },
  spec: { parentRefs: [{ name: 'old', sectionName }], rules: [{ backendRefs }] },
});

void test('port clashes: Portico own port, a tcp-services key, an older Gateway each PortUnavailable naming the field', () => {
  const snap = snapshot(
    [
      gw('old', '2026-01-01T00:00:00Z', [
        { name: 'db', protocol: 'TCP', port: 5432 },
        { name: 'own', protocol: 'TCP', port: 10254 },
        { name: 'cm', protocol: 'TCP', port: 7000 },
        { name: 'cm-udp', protocol: 'UDP', port: 7000 },
      ]),
      gw('new', '2026-01-02T00:00:00Z', [{ name: 'db', protocol: 'TCP', port: 5432 }]),
    ],
    [route('r', [{ name: 'a', port: 5432 }])],
  );
  const m = buildModel(snap, OPTS);
  const problems = m.problems.map((p) => `${p.object.kind} ${p.object.name} ${p.field}`);
  assert.ok(problems.includes('Gateway old spec.listeners[1].port'), problems.join('\n'));
  assert.ok(problems.includes('Gateway old spec.listeners[2].port'), problems.join('\n'));
  assert.ok(!problems.includes('Gateway old spec.listeners[3].port'), 'UDP 7000 does not clash with the TCP ConfigMap');
  assert.ok(problems.includes('Gateway new spec.listeners[0].port'), problems.join('\n'));
  assert.deepEqual(
    m.stream?.gateway?.map((s) => `${s.protocol} ${s.port} ${s.listener.gateway}/${s.listener.name}`),
    ['tcp 15432 default/old/db'],
  );
});

void test('weights per endpoint: 3 endpoints of weight 2 and 1 endpoint of weight 1 give 2:2:2:3, weight 0 and a missing Service left out', () => {
  const snap = snapshot(
    [gw('old', '2026-01-01T00:00:00Z', [{ name: 'db', protocol: 'TCP', port: 5432 }])],
    [
      route('r', [
        { name: 'a', port: 5432, weight: 2 },
        { name: 'b', port: 5432, weight: 1 },
        { name: 'b', port: 5432, weight: 0 },
        { name: 'gone', port: 5432 },
      ]),
    ],
  );
  const m = buildModel(snap, OPTS);
  const lines = streamSection(m.stream, { workDir: '/w', httpsPort: 8443, listenAddress: '' });
  const from = lines.indexOf('    upstream portico_gw_tcp_15432 {');
  const servers = lines.slice(from, lines.indexOf('    }', from)).filter((l) => l.includes('server 10.'));
  assert.deepEqual(
    servers.map((l) => l.trim()),
    ['server 10.0.0.1:5432 weight=2;', 'server 10.0.0.2:5432 weight=2;', 'server 10.0.0.3:5432 weight=2;', 'server 10.0.0.9:5432 weight=3;'],
  );
  assert.ok(lines.includes('        listen 15432;'));
  assert.ok(m.problems.some((p) => p.object.kind === 'TCPRoute' && p.field === 'spec.rules[0].backendRefs[3]' && JSON.stringify(p.reason).includes('BackendNotFound')));
  const rows = JSON.parse(debugBackends('[]', m)) as { name: string; endpoints: unknown[] }[];
  assert.deepEqual(
    rows.filter((r) => r.name.startsWith('gateway-')).map((r) => [r.name, r.endpoints.length]),
    [['gateway-tcp-15432', 4]],
  );
});

void test('a Gateway or listener name that is not a Kubernetes name never reaches nginx.conf as text', () => {
  const bad = 'x\n} server { listen 1; }';
  const snap = snapshot([{ ...(gw('old', '2026-01-01T00:00:00Z', [{ name: bad, protocol: 'TCP', port: 5432 }]) as object) }], [route('r', [{ name: 'a', port: 5432 }], bad)]);
  const lines = streamSection(buildModel(snap, OPTS).stream, { workDir: '/w', httpsPort: 8443, listenAddress: '' });
  assert.ok(!lines.join('\n').includes('listen 1;'), lines.join('\n'));
  assert.ok(
    lines.some((l) => l.startsWith('    # TCP listener default/old/x???server???listen?1???')),
    lines.join('\n'),
  );
});
