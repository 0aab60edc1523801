// TLSRoute on TLS Terminate listeners, unit level (docs/adr/0032): the listener needs certificateRefs, an unusable
// certificate serves Portico's default one, a Terminate host goes through a terminating unix socket server (with the
// PROXY line from the 443 front), Passthrough and Terminate hosts share one port, and the certificate file is named
// by its content, so a changed Secret changes nginx.conf.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type ModelOptions, type Snapshot } from '../../src/model/input.js';
import type { Gateway, Listener, TLSRoute } from '../../src/model/gateway/api.js';
import { judgeListeners } from '../../src/model/gateway/listeners.js';
import { portJudge } from '../../src/model/gateway/listener-ports.js';
import { renderNginxConf } from '../../src/render/nginx-conf.js';
import { clientFiles } from '../../src/tls/files.js';
import { makeCert, type Pem } from '../support/certs.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { MODEL_OPTIONS, RENDER_OPTIONS, service, slice } from '../support/objects.js';

const CONTROLLER = 'portico.dev/gateway-controller';
const V1 = 'gateway.networking.k8s.io/v1';
const PORTS = { httpPort: 80, httpsPort: 443, portMap: new Map([[8443, 18443]]) };
const OPTIONS: ModelOptions = { ...MODEL_OPTIONS, gateway: { controllerName: CONTROLLER, ports: PORTS } };
const dir = mkdtempSync(join(tmpdir(), 'portico-tlsterm-unit-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});
const first = makeCert(dir, 'first', { sans: ['t.test'] });
const second = makeCert(dir, 'second', { sans: ['t.test'] });

const terminate = (name: string, port: number, refs: readonly { name: string; namespace?: string }[] = [{ name: 'gw-cert' }]): Listener => ({
  name,
  port,
  protocol: 'TLS',
  tls: { mode: 'Terminate', certificateRefs: refs },
});

function route(name: string, section: string, hostnames: string[]): TLSRoute {
  return {
    apiVersion: V1,
    kind: 'TLSRoute',
    metadata: { name, namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { parentRefs: [{ name: 'gw', sectionName: section }], hostnames, rules: [{ backendRefs: [{ name: 'a', port: 80 }] }] },
  };
}

function snapshot(listeners: Listener[], routes: TLSRoute[], cert: Pem | null = first): Snapshot {
  const gateway: Gateway = { apiVersion: V1, kind: 'Gateway', metadata: { name: 'gw', namespace: 'default' }, spec: { gatewayClassName: 'portico', listeners } };
  return {
    ...EMPTY_SNAPSHOT,
    services: [service('a')],
    endpointSlices: [slice('a', 3000, ['10.0.0.1'])],
    secrets: cert ? [tlsSecret('gw-cert', cert, 'default')] : [],
    gatewayClasses: [{ apiVersion: V1, kind: 'GatewayClass', metadata: { name: 'portico' }, spec: { controllerName: CONTROLLER } }],
    gateways: [gateway],
    tlsRoutes: routes,
  };
}

const streamOf = (s: Snapshot): string => {
  const conf = renderNginxConf(buildModel(s, OPTIONS), RENDER_OPTIONS).text;
  return conf.slice(conf.indexOf('stream {'));
};

test('a Terminate listener: Accepted with its certificate; without certificateRefs refused; a missing or ungranted Secret is InvalidCertificateRef or RefNotPermitted', () => {
  const named = (l: Listener): Listener => ({ ...l, hostname: `${l.name}.test` });
  const listeners = [terminate('ok', 8443), terminate('none', 8443, []), terminate('missing', 8443, [{ name: 'nope' }]), terminate('foreign', 8443, [{ name: 'gw-cert', namespace: 'other' }])].map(
    named,
  );
  const g = snapshot(listeners, []).gateways?.[0] as Gateway;
  const judged = judgeListeners(g, { kind: 'Gateway', namespace: 'default', name: 'gw' }, snapshot(listeners, []), { ports: portJudge([g], { ports: PORTS, own: [], stream: [] }) });
  assert.deepEqual(
    judged.map((j) => [j.listener.name, j.accepted[1], j.resolvedRefs[1], j.refusal ?? '']),
    [
      ['ok', 'Accepted', 'ResolvedRefs', ''],
      ['none', 'Accepted', 'InvalidCertificateRef', 'a TLS listener of tls.mode Terminate needs tls.certificateRefs'],
      ['missing', 'Accepted', 'InvalidCertificateRef', ''],
      ['foreign', 'Accepted', 'RefNotPermitted', ''],
    ],
  );
});

test('a Terminate host on a listed port: ssl_preread picks it, a unix socket server terminates with the certificate file and proxies to the backends', () => {
  const stream = streamOf(snapshot([terminate('t', 8443)], [route('r', 't', ['t.test'])]));
  assert.match(stream, /map \$ssl_preread_server_name \$portico_tls_18443 \{\n {8}hostnames;\n {8}default portico_tls_closed;\n {8}"t\.test" portico_tls_18443_0;\n {4}\}/);
  assert.match(stream, /upstream portico_tls_18443_0 \{ server "unix:\/w\/tls-18443-0\.sock"; \}\n {4}upstream portico_tls_18443_0_backend \{\n {8}server 10\.0\.0\.1:3000;\n {4}\}/);
  assert.match(
    stream,
    / {4}server \{\n {8}listen "unix:\/w\/tls-18443-0\.sock" ssl;\n {8}ssl_certificate "ssl\/stream-[0-9a-f]{32}\.pem";\n {8}ssl_certificate_key "ssl\/stream-[0-9a-f]{32}\.pem";\n {8}ssl_protocols TLSv1\.2 TLSv1\.3;\n {8}proxy_pass portico_tls_18443_0_backend;\n {4}\}/,
  );
  assert.match(stream, /listen 18443;\n {8}ssl_preread on;\n {8}proxy_pass \$portico_tls_18443;/);
});

test('on 443 the front sends the PROXY line, so the terminating socket takes it: listen ... ssl proxy_protocol', () => {
  const stream = streamOf(snapshot([terminate('t', 443)], [route('r', 't', ['t.test'])]));
  assert.match(stream, /"t\.test" portico_tls_0;/);
  assert.match(stream, /listen "unix:\/w\/tls-0\.sock" ssl proxy_protocol;\n {8}ssl_certificate "ssl\/stream-[0-9a-f]{32}\.pem";/);
});

test('Passthrough and Terminate on one port: the passthrough host goes straight to its backends, the terminate host through the socket', () => {
  const listeners: Listener[] = [
    { ...terminate('t', 8443), hostname: 't.test' },
    { name: 'p', port: 8443, protocol: 'TLS', hostname: 'p.test', tls: { mode: 'Passthrough' } },
  ];
  const stream = streamOf(snapshot(listeners, [route('rt', 't', ['t.test']), route('rp', 'p', ['p.test'])]));
  assert.match(stream, /"p\.test" portico_tls_18443_0;\n {8}"t\.test" portico_tls_18443_1;/);
  assert.match(stream, /upstream portico_tls_18443_0 \{\n {8}server 10\.0\.0\.1:3000;\n {4}\}/);
  assert.match(stream, /upstream portico_tls_18443_1 \{ server "unix:\/w\/tls-18443-1\.sock"; \}/);
  assert.equal((stream.match(/ ssl;/g) ?? []).length, 1, 'one terminating server');
});

test('an unusable certificate serves the default one; a changed Secret is a new file name, so nginx.conf changes and nginx reloads', () => {
  assert.match(streamOf(snapshot([terminate('t', 8443)], [route('r', 't', ['t.test'])], null)), /ssl_certificate "ssl\/default\.crt";\n {8}ssl_certificate_key "ssl\/default\.key";/);
  const files = (cert: Pem): Map<string, string | Uint8Array> => clientFiles(buildModel(snapshot([terminate('t', 8443)], [route('r', 't', ['t.test'])], cert), OPTIONS));
  const [a] = [...files(first)];
  const [b] = [...files(second)];
  assert.ok(a && b);
  assert.match(a[0], /^ssl\/stream-[0-9a-f]{32}\.pem$/);
  assert.notEqual(a[0], b[0]);
  assert.equal(a[1], `${first.cert.trim()}\n${first.key.trim()}\n`);
  assert.ok(streamOf(snapshot([terminate('t', 8443)], [route('r', 't', ['t.test'])], second)).includes(b[0]));
});
