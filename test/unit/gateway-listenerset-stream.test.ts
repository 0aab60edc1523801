// The model of ListenerSet listeners of every protocol (docs/adr/0035): TCP, UDP and TLS listeners of a ListenerSet
// become stream servers as a Gateway's do, their local ports are claimed as their Gateway's, and a TCP server stays
// beside the TLSRoutes of one build and keeps its local port against a TLS listener mapped there. End to end through
// nginx: test/e2e/gateway-listenerset-stream.test.ts.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import type { Gateway, Listener, ListenerSet, ParentReference } from '../../src/model/gateway/api.js';
import { desiredGatewayStatus } from '../../src/status/gateway.js';
import { MODEL_OPTIONS, RENDER_OPTIONS, service, slice } from '../support/objects.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { makeCert } from '../support/certs.js';
import { tlsSecret } from '../support/tls-manifests.js';

const CONTROLLER = 'portico.dev/gateway-controller';
const G = 'gateway.networking.k8s.io';
const V1 = `${G}/v1`;
const PORTS = {
  httpPort: 80,
  httpsPort: 443,
  portMap: new Map([
    [8443, 18443],
    [9000, 19000],
    [5300, 15300],
    [9100, 19100],
  ]),
};
const OPTIONS: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: CONTROLLER, ports: PORTS } };

const tls: Listener = { name: 'tls', port: 8443, protocol: 'TLS', tls: { mode: 'Passthrough' } };
const tcp: Listener = { name: 'tcp', port: 9000, protocol: 'TCP' };
const udp: Listener = { name: 'udp', port: 5300, protocol: 'UDP' };

function gateway(name: string, listeners: Listener[], from: 'Same' | 'All' | undefined, created: string): Gateway {
  return {
    apiVersion: V1,
    kind: 'Gateway',
    metadata: { name, namespace: 'infra', creationTimestamp: created },
    spec: { gatewayClassName: 'portico', listeners, ...(from ? { allowedListeners: { namespaces: { from } } } : {}) },
  };
}
function listenerSet(name: string, namespace: string, parent: string, listeners: Listener[]): ListenerSet {
  return { apiVersion: V1, kind: 'ListenerSet', metadata: { name, namespace, creationTimestamp: '2026-02-01T00:00:00Z' }, spec: { parentRef: { name: parent, namespace: 'infra' }, listeners } };
}
const parent = (set: string, sectionName: string): ParentReference => ({ group: G, kind: 'ListenerSet', name: set, sectionName });

function snapshot(gateways: Gateway[], sets: ListenerSet[], ns = 'infra', parentRef: ParentReference = parent('ls', 'tcp')): Snapshot {
  return {
    ...EMPTY_SNAPSHOT,
    services: [service('echo', ns, [{ name: 'p', port: 7000 }])],
    endpointSlices: [slice('echo', 7000, ['10.0.0.1'], { namespace: ns, portName: 'p' })],
    gatewayClasses: [{ apiVersion: V1, kind: 'GatewayClass', metadata: { name: 'portico' }, spec: { controllerName: CONTROLLER } }],
    gateways,
    listenerSets: sets,
    tcpRoutes: [{ apiVersion: V1, kind: 'TCPRoute', metadata: { name: 'r-tcp', namespace: ns }, spec: { parentRefs: [parentRef], rules: [{ backendRefs: [{ name: 'echo', port: 7000 }] }] } }],
    tlsRoutes: [
      {
        apiVersion: V1,
        kind: 'TLSRoute',
        metadata: { name: 'r-tls', namespace: ns },
        spec: { parentRefs: [parent('ls', 'tls')], hostnames: ['a.example.com'], rules: [{ backendRefs: [{ name: 'echo', port: 7000 }] }] },
      },
    ],
  };
}

test('a ListenerSet TCP listener and a TLS one: both served by the stream section of one build', () => {
  const m = buildModel(snapshot([gateway('gw', [], 'Same', '2026-01-01T00:00:00Z')], [listenerSet('ls', 'infra', 'gw', [tls, tcp, udp])]), OPTIONS);
  const servers = m.stream?.gateway ?? [];
  assert.deepEqual(
    servers.map((s) => [s.protocol, s.port, s.listener.gateway, s.listener.name, s.route]),
    [['tcp', 19000, 'infra/gw', 'infra/ls/tcp', 'infra/r-tcp']],
  );
  assert.deepEqual(
    m.stream?.tlsRoutes?.ports.map((p) => [p.port, p.hosts.map((h) => h.host)]),
    [[18443, ['a.example.com']]],
  );
});

test('a Gateway whose own TCP and TLS listeners both have routes keeps its TCP server beside the TLSRoutes', () => {
  const g = gateway('gw', [tls, tcp], undefined, '2026-01-01T00:00:00Z');
  const s = snapshot([g], []);
  const own = {
    ...s,
    tcpRoutes: s.tcpRoutes?.map((r) => ({ ...r, spec: { ...r.spec, parentRefs: [{ name: 'gw', sectionName: 'tcp' }] } })),
    tlsRoutes: s.tlsRoutes?.map((r) => ({ ...r, spec: { ...r.spec, parentRefs: [{ name: 'gw', sectionName: 'tls' }] } })),
  };
  const m = buildModel(own, OPTIONS);
  assert.deepEqual(
    (m.stream?.gateway ?? []).map((x) => [x.protocol, x.port]),
    [['tcp', 19000]],
  );
  assert.equal(m.stream?.tlsRoutes?.ports.length, 1);
});

test("a ListenerSet of a namespace its Gateway does not admit: no stream server, its TCPRoute's parent not accepted", () => {
  const s = snapshot([gateway('gw', [], 'Same', '2026-01-01T00:00:00Z')], [listenerSet('ls', 'tenant', 'gw', [tls, tcp])], 'tenant');
  const m = buildModel(s, OPTIONS);
  assert.deepEqual(m.stream?.gateway ?? [], []);
  assert.deepEqual(m.stream?.tlsRoutes?.ports ?? [], []);
  const st = desiredGatewayStatus(s, CONTROLLER, undefined, undefined, { ports: { ports: PORTS, own: [], stream: [] }, l4Flags: { ports: PORTS } });
  assert.equal(st.listenerSets?.get('tenant/ls')?.conditions[0]?.reason, 'NotAllowed');
  assert.equal(st.tcpRoutes?.get('tenant/r-tcp')?.[0]?.conditions[0]?.status, 'False');
  // the same objects admitted: served
  const admitted = { ...s, gateways: [gateway('gw', [], 'All', '2026-01-01T00:00:00Z')] };
  assert.equal(buildModel(admitted, OPTIONS).stream?.gateway?.length, 1);
});

test("a ListenerSet's listener claims its local port at its Gateway's age, against another Gateway's listener of another nginx section", () => {
  // ListenerSet TCP 9100 of the older Gateway; the newer Gateway's HTTP listener 9100 maps to the same local port
  const older = gateway('old', [], 'Same', '2026-01-01T00:00:00Z');
  const newer = gateway('new', [{ name: 'web', port: 9100, protocol: 'HTTP' }], undefined, '2026-03-01T00:00:00Z');
  const s = snapshot([newer, older], [listenerSet('ls', 'infra', 'old', [{ name: 'tcp', port: 9100, protocol: 'TCP' }])]);
  const st = desiredGatewayStatus(s, CONTROLLER, undefined, undefined, { ports: { ports: PORTS, own: [], stream: [] }, l4Flags: { ports: PORTS } });
  const web = st.gateways.get('infra/new')?.listeners.find((l) => l.name === 'web');
  assert.equal(web?.conditions.find((c) => c.type === 'Accepted')?.reason, 'PortUnavailable');
  assert.equal(st.listenerSets?.get('infra/ls')?.listeners[0]?.conditions[0]?.status, 'True');
  const m = buildModel(s, OPTIONS);
  assert.deepEqual(
    (m.stream?.gateway ?? []).map((x) => x.port),
    [19100],
  );
  assert.deepEqual(m.gatewayPorts?.http ?? [], []);
});

test("a ListenerSet's HTTP listener claims its local port against a newer Gateway's HTTPS listener there", () => {
  const older = gateway('old', [], 'Same', '2026-01-01T00:00:00Z');
  const newer = gateway('new', [{ name: 'secure', port: 9100, protocol: 'HTTPS', tls: { certificateRefs: [{ name: 'missing' }] } }], undefined, '2026-03-01T00:00:00Z');
  const s = snapshot([newer, older], [listenerSet('ls', 'infra', 'old', [{ name: 'web', port: 9100, protocol: 'HTTP' }])]);
  const st = desiredGatewayStatus(s, CONTROLLER, undefined, undefined, { ports: { ports: PORTS, own: [], stream: [] }, l4Flags: { ports: PORTS } });
  const secure = st.gateways.get('infra/new')?.listeners.find((l) => l.name === 'secure');
  assert.equal(secure?.conditions.find((c) => c.type === 'Accepted')?.reason, 'PortUnavailable');
  assert.deepEqual(buildModel(s, OPTIONS).gatewayPorts, { http: [19100], https: [] });
});

test("a ListenerSet's TLS Terminate listener terminates with the certificate of the ListenerSet's namespace, never the Gateway's", () => {
  const dir = mkdtempSync(join(tmpdir(), 'portico-ls-stream-unit-'));
  after(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const pem = makeCert(dir, 'tenant', { sans: ['a.example.com'] });
  const term: Listener = { name: 'tls', port: 8443, protocol: 'TLS', tls: { mode: 'Terminate', certificateRefs: [{ name: 'cert' }] } };
  const base = snapshot([gateway('gw', [], 'All', '2026-01-01T00:00:00Z')], [listenerSet('ls', 'tenant', 'gw', [term])], 'tenant');
  const served = buildModel({ ...base, secrets: [tlsSecret('cert', pem, 'tenant')] }, OPTIONS);
  const host = served.stream?.tlsRoutes?.ports[0]?.hosts[0];
  assert.equal(host?.host, 'a.example.com');
  assert.equal(host?.terminate?.certificate?.secret, 'tenant/cert');
  // a Secret of that name in the Gateway's namespace is not the ListenerSet's: its only listener is not valid, so the
  // ListenerSet serves nothing (ListenersNotValid)
  const other = buildModel({ ...base, secrets: [tlsSecret('cert', pem, 'infra')] }, OPTIONS);
  assert.deepEqual(other.stream?.tlsRoutes?.ports ?? [], []);
});

test('a TLS listener mapped to the local port of a TCP listener: the TCP server keeps it, the TLSRoute there is a Problem, one stream listen', () => {
  const ports = { ...PORTS, portMap: new Map([...PORTS.portMap, [9000, 18443]]) };
  const opts: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: CONTROLLER, ports } };
  const m = buildModel(snapshot([gateway('gw', [], 'Same', '2026-01-01T00:00:00Z')], [listenerSet('ls', 'infra', 'gw', [tls, tcp])]), opts);
  assert.deepEqual(
    (m.stream?.gateway ?? []).map((s) => [s.protocol, s.port]),
    [['tcp', 18443]],
  );
  assert.deepEqual(m.stream?.tlsRoutes?.ports ?? [], []);
  assert.ok(
    m.problems.some((p) => p.object.kind === 'TLSRoute' && p.object.name === 'r-tls' && p.reason.includes('local port 18443')),
    JSON.stringify(m.problems),
  );
  assert.equal(renderNginxConf(m, RENDER_OPTIONS).text.match(/listen 18443\b/g)?.length, 1);
});
