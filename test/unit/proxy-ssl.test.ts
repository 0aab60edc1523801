// proxy-ssl-secret: Secret → resolved files → rendered proxy_ssl_*/grpc_ssl_* lines and work-dir files, compared whole.
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { selectIngresses } from '../../src/annotations/select.js';
import { buildModel } from '../../src/model/build.js';
import { classSelector } from '../../src/model/classes.js';
import type { ModelOptions, Secret, Snapshot } from '../../src/model/input.js';
import { GLOBAL_AUTH_DEFAULTS } from '../../src/model/settings-auth.js';
import { GLOBAL_DEFAULTS, NO_HEADERS, type LocationSettings } from '../../src/model/settings.js';
import { locationBody } from '../../src/render/settings.js';
import { tlsBalancer, tlsBalancerBlocks } from '../../src/render/proxy-ssl.js';
import { clientFiles } from '../../src/tls/files.js';
import { makeCert } from '../support/certs.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { caSecret, tlsSecret } from '../support/tls-manifests.js';
import { GRPC_HEADERS } from '../support/grpc-headers.js';

const P = 'nginx.ingress.kubernetes.io';
const I = '            ';
/** The request headers every gRPC location sends as metadata, as ingress-nginx does (render/settings.ts grpcLines). */
const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};
const dir = mkdtempSync(join(tmpdir(), 'portico-proxy-ssl-'));
after(() => {
  rmSync(dir, { recursive: true, force: true });
});
const ca = makeCert(dir, 'Backend CA', { isCa: true });
const client = makeCert(dir, 'portico-client', { ca });
const other = makeCert(dir, 'other', { ca });
const sha = (t: string): string => createHash('sha256').update(t).digest('hex').slice(0, 32);
const CA_FILE = `ssl/ca-${sha(`${ca.cert.trim()}\n`)}.pem`;
const CLIENT_FILE = `ssl/proxy-client-${sha(`${client.cert.trim()}\n${client.key.trim()}\n`)}.pem`;

function withKeys(name: string, data: Record<string, string>, namespace = 'ns'): Secret {
  return { apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])) };
}

const SECRETS: Secret[] = [
  caSecret('ca-only', ca.cert, 'ns'),
  withKeys('ca-client', { 'ca.crt': ca.cert, 'tls.crt': client.cert, 'tls.key': client.key }),
  withKeys('mismatch', { 'ca.crt': ca.cert, 'tls.crt': client.cert, 'tls.key': other.key }),
  withKeys('no-key', { 'ca.crt': ca.cert, 'tls.crt': client.cert }),
  withKeys('not-pem', { 'ca.crt': 'hello' }),
  tlsSecret('tls-only', client, 'ns'),
  caSecret('elsewhere', ca.cert, 'other'),
];

function resolve(annotations: Record<string, string>, cross = false): { s: LocationSettings; problems: string[]; files: string[] } {
  const snap: Snapshot = {
    ingresses: [
      ingress('ing', {
        namespace: 'ns',
        host: 'a.test',
        className: 'portico',
        paths: [{ path: '/', type: 'Prefix', service: 'svc' }],
        annotations: Object.fromEntries(Object.entries(annotations).map(([k, v]) => [`${P}/${k}`, v])),
      }),
    ],
    ingressClasses: [ingressClass('portico')],
    services: [service('svc', 'ns')],
    endpointSlices: [slice('svc', 8080, ['10.0.0.1'], { namespace: 'ns' })],
    secrets: SECRETS,
    configMaps: [],
  };
  const sel = selectIngresses(snap, new Map(), {
    prefix: P,
    riskLevel: 'High',
    allowSnippets: false,
    strictPaths: true,
    ours: classSelector(snap.ingressClasses, OPTS),
    auth: { ...GLOBAL_AUTH_DEFAULTS, allowCrossNamespaceResources: cross },
  });
  const model = buildModel(sel.snapshot, OPTS, sel.input);
  return { s: sel.input.settings.get('ns/ing')?.location ?? {}, problems: sel.problems.map((p) => `${p.field}: ${p.reason}`), files: [...clientFiles(model).keys()].sort() };
}

function fragment(s: LocationSettings): string[] {
  const target = { kind: 'upstream' as const, upstream: 'ns_svc_80', ingress: { kind: 'Ingress', namespace: 'ns', name: 'ing' }, settings: s, rule: { path: '/', regex: false } };
  // the TLS balancer's name is a digest of the TLS lines (render/proxy-ssl.ts tlsBalancer): shown as <tls>
  return locationBody(target, { global: GLOBAL_DEFAULTS, headers: NO_HEADERS, defaultUpstream: undefined }).map((l) => l.replace(/portico_balancer_tls_[0-9a-f]{16}/, '<tls>'));
}

const FIELD = `metadata.annotations[${P}/proxy-ssl-secret]`;
// No proxy_ssl_* line at all: proxy_ssl_verify without a trusted file would fail nginx -t for every Ingress.
const DENIED = [`${I}return 503;`, `${I}proxy_pass https://<tls>;`];

test('HTTPS with a CA Secret: the CA file is trusted, no system CAs', () => {
  const r = resolve({ 'backend-protocol': 'HTTPS', 'proxy-ssl-secret': 'ca-only', 'proxy-ssl-verify': 'on', 'proxy-ssl-name': 'b.test', 'proxy-ssl-server-name': 'on' });
  assert.deepEqual(r.problems, []);
  assert.deepEqual(fragment(r.s), [
    `${I}proxy_ssl_server_name on;`,
    `${I}proxy_ssl_name "b.test";`,
    `${I}proxy_ssl_protocols TLSv1.2 TLSv1.3;`,
    `${I}proxy_ssl_verify on;`,
    `${I}proxy_ssl_verify_depth 1;`,
    `${I}proxy_ssl_trusted_certificate "${CA_FILE}";`,
    `${I}proxy_pass https://<tls>;`,
  ]);
  assert.deepEqual(r.files, [CA_FILE]);
});

test('GRPCS with a CA and client certificate: grpc_ssl_* lines, one PEM file for certificate and key', () => {
  const r = resolve({ 'backend-protocol': 'GRPCS', 'proxy-ssl-secret': 'ns/ca-client', 'proxy-ssl-verify': 'on' });
  assert.deepEqual(r.problems, []);
  assert.deepEqual(fragment(r.s), [
    ...GRPC_HEADERS,
    `${I}grpc_ssl_protocols TLSv1.2 TLSv1.3;`,
    `${I}grpc_ssl_verify on;`,
    `${I}grpc_ssl_verify_depth 1;`,
    `${I}grpc_ssl_trusted_certificate "${CA_FILE}";`,
    `${I}grpc_ssl_certificate "${CLIENT_FILE}";`,
    `${I}grpc_ssl_certificate_key "${CLIENT_FILE}";`,
    `${I}grpc_pass grpcs://<tls>;`,
  ]);
  assert.deepEqual(r.files, [CA_FILE, CLIENT_FILE]);
  assert.equal(JSON.stringify(r.s).includes('PRIVATE KEY'), false, 'the key never shows in JSON (debug output)');
});

const REFUSED: [string, Record<string, string>, string, boolean?][] = [
  ['a missing Secret', { 'proxy-ssl-secret': 'nope' }, 'Secret ns/nope not found'],
  ['a Secret without ca.crt', { 'proxy-ssl-secret': 'tls-only' }, 'Secret ns/tls-only has no ca.crt'],
  ['ca.crt that is not PEM', { 'proxy-ssl-secret': 'not-pem' }, 'Secret ns/not-pem: ca.crt is not a bundle of PEM certificates'],
  ['tls.crt without tls.key', { 'proxy-ssl-secret': 'no-key' }, 'Secret ns/no-key has no tls.crt and tls.key (the client certificate for the backend)'],
  ['a key of another certificate', { 'proxy-ssl-secret': 'mismatch' }, 'Secret ns/mismatch: tls.key is not the private key of tls.crt (the client certificate for the backend)'],
  ['another namespace', { 'proxy-ssl-secret': 'other/elsewhere' }, 'Secret other/elsewhere is in another namespace than the Ingress; set allow-cross-namespace-resources in the ConfigMap to allow it'],
];

for (const [what, a, reason] of REFUSED) {
  test(`proxy-ssl-secret: ${what} closes the paths with 503 and a Problem`, () => {
    const r = resolve({ 'backend-protocol': 'HTTPS', 'proxy-ssl-verify': 'on', ...a });
    assert.deepEqual(r.problems, [`${FIELD}: ${reason}; the paths of this Ingress answer 503`]);
    assert.deepEqual(fragment(r.s), DENIED);
    assert.deepEqual(r.files, []);
  });
}

test('another namespace is allowed with allow-cross-namespace-resources', () => {
  const r = resolve({ 'backend-protocol': 'HTTPS', 'proxy-ssl-secret': 'other/elsewhere', 'proxy-ssl-verify': 'on' }, true);
  assert.deepEqual(r.problems, []);
  assert.equal(r.s.sslSecret, 'other/elsewhere');
  assert.deepEqual(r.files, [CA_FILE]);
});

test('backend TLS: one upstream block (so one keep-alive pool) per distinct client certificate and verification', () => {
  const name = (a: Record<string, string>): string => tlsBalancer(resolve(a).s);
  const withClient = name({ 'backend-protocol': 'HTTPS', 'proxy-ssl-secret': 'ns/ca-client', 'proxy-ssl-verify': 'on' });
  const caOnly = name({ 'backend-protocol': 'HTTPS', 'proxy-ssl-secret': 'ca-only', 'proxy-ssl-verify': 'on' });
  const plain = name({ 'backend-protocol': 'HTTPS' });
  assert.equal(new Set([withClient, caOnly, plain]).size, 3, 'a pooled connection never crosses TLS settings');
  assert.equal(name({ 'backend-protocol': 'HTTPS' }), plain, 'the same settings share one pool');
  const blocks = tlsBalancerBlocks([`proxy_pass https://${plain};`, `proxy_pass https://${caOnly};`, `proxy_pass https://${plain};`], '        keepalive 8;');
  assert.deepEqual(
    blocks.filter((l) => l.startsWith('    upstream ')),
    [plain, caOnly].sort().map((n) => `    upstream ${n} {`),
  );
  assert.ok(blocks.includes('        keepalive 8;'));
});
