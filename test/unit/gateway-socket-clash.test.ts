// One local TCP port, one nginx section (model/gateway/socket-clash.ts): an HTTP or HTTPS listener and a TCP or TLS
// listener mapped to the same local port are not both served (nginx would fail the whole reload binding it twice); the
// oldest Gateway's listener, then the first in spec.listeners, keeps the port and the other is PortUnavailable on
// spec.listeners[i].port. A UDP listener on the same number binds a UDP socket and is served.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import { MODEL_OPTIONS, service, slice } from '../support/objects.js';
import { gatewayClass } from '../support/gateway.js';

const G = 'gateway.networking.k8s.io/v1';
const OPTS: ModelOptions = {
  ...MODEL_OPTIONS,
  gateway: {
    controllerName: 'portico.dev/gateway-controller',
    ports: {
      httpPort: 8000,
      httpsPort: 8001,
      portMap: new Map([
        [8080, 18080],
        [8443, 18080],
        [5432, 18080],
        [5353, 18080],
        [6000, 19000],
        [9090, 19000],
      ]),
    },
  },
  stream: { tcp: undefined, udp: undefined, passthrough: false, reservedPorts: [8000, 8001], annotationsPrefix: 'nginx.ingress.kubernetes.io' },
};

function gw(name: string, created: string, listeners: readonly Record<string, unknown>[]): unknown {
  return { apiVersion: G, kind: 'Gateway', metadata: { name, namespace: 'default', creationTimestamp: created }, spec: { gatewayClassName: 'portico', listeners } };
}

function snapshot(): Snapshot {
  return {
    ...EMPTY_SNAPSHOT,
    gatewayClasses: [gatewayClass('portico')] as Snapshot['gatewayClasses'],
    gateways: [
      gw('old', '2026-01-01T00:00:00Z', [
        { name: 'web', protocol: 'HTTP', port: 8080 },
        { name: 'tls', protocol: 'TLS', port: 8443, tls: { mode: 'Passthrough' } },
        { name: 'raw', protocol: 'TCP', port: 6000 },
      ]),
      gw('new', '2026-01-02T00:00:00Z', [
        { name: 'db', protocol: 'TCP', port: 5432 },
        { name: 'dns', protocol: 'UDP', port: 5353 },
        { name: 'alt', protocol: 'HTTP', port: 9090 },
      ]),
    ] as Snapshot['gateways'],
    services: [service('app')],
    endpointSlices: [slice('app', 80, ['10.0.0.1'])],
    httpRoutes: [
      { apiVersion: G, kind: 'HTTPRoute', metadata: { name: 'r', namespace: 'default' }, spec: { parentRefs: [{ name: 'old' }], rules: [{ backendRefs: [{ name: 'app', port: 80 }] }] } },
    ] as Snapshot['httpRoutes'],
    tcpRoutes: [
      {
        apiVersion: G,
        kind: 'TCPRoute',
        metadata: { name: 't', namespace: 'default' },
        spec: { parentRefs: [{ name: 'old', sectionName: 'raw' }], rules: [{ backendRefs: [{ name: 'app', port: 80 }] }] },
      },
    ] as Snapshot['tcpRoutes'],
    udpRoutes: [
      {
        apiVersion: G,
        kind: 'UDPRoute',
        metadata: { name: 'u', namespace: 'default' },
        spec: { parentRefs: [{ name: 'new', sectionName: 'dns' }], rules: [{ backendRefs: [{ name: 'app', port: 80 }] }] },
      },
    ] as Snapshot['udpRoutes'],
  };
}

test('an HTTP listener and a TCP or TLS listener on one local port: the older or first keeps it, the other is PortUnavailable', () => {
  const m = buildModel(snapshot(), OPTS);
  const refused = m.problems.filter((p) => p.object.kind === 'Gateway').map((p) => `${p.object.name} ${p.field}: ${typeof p.reason === 'string' ? p.reason : JSON.stringify(p.reason)}`);
  assert.deepEqual(refused, [
    'old spec.listeners[1].port: port 8443 (local port 18080, --gateway-port-map) is not served: listener web (HTTP, port 8080) of Gateway default/old, older or first, serves it; an HTTP or HTTPS listener and a TCP or TLS listener cannot share a local port (map one of them to another local port)',
    'new spec.listeners[0].port: port 5432 (local port 18080, --gateway-port-map) is not served: listener web (HTTP, port 8080) of Gateway default/old, older or first, serves it; an HTTP or HTTPS listener and a TCP or TLS listener cannot share a local port (map one of them to another local port)',
    'new spec.listeners[2].port: port 9090 (local port 19000, --gateway-port-map) is not served: listener raw (TCP, port 6000) of Gateway default/old, older or first, serves it; an HTTP or HTTPS listener and a TCP or TLS listener cannot share a local port (map one of them to another local port)',
  ]);
  // nginx binds each local TCP port in one section only; the UDP listener on 18080 is served beside HTTP
  assert.deepEqual(m.gatewayPorts, { http: [18080], https: [] });
  assert.deepEqual(
    m.stream?.gateway?.map((s) => `${s.protocol} ${String(s.port)} ${s.listener.gateway}/${s.listener.name}`),
    ['tcp 19000 default/old/raw', 'udp 18080 default/new/dns'],
  );
});
