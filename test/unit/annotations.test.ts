// Table-driven: each annotation and ConfigMap key → parsed value → rendered fragment, compared whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnnotations, type ParseOptions } from '../../src/annotations/parse.js';
import { ANNOTATIONS } from '../../src/annotations/table.js';
import { CONFIGMAP_KEYS, parseConfigMap } from '../../src/annotations/configmap.js';
import { GLOBAL_DEFAULTS, NO_HEADERS, type LocationSettings } from '../../src/model/settings.js';
import { locationBody } from '../../src/render/settings.js';
import { httpGlobals } from '../../src/render/globals.js';
import { GRPC_HEADERS } from '../support/grpc-headers.js';

const P = 'nginx.ingress.kubernetes.io';
const OPTS = { prefix: P, riskLevel: 'High' as const, allowSnippets: false, namespace: 'ns' };
const I = '            ';
/** The request headers every gRPC location sends as metadata, as ingress-nginx does (render/settings.ts grpcLines). */
const PASS = `${I}proxy_pass http://portico_balancer;`;

function fragment(settings: LocationSettings, rule = { path: '/', regex: false }): string[] {
  const target = { kind: 'upstream' as const, upstream: 'ns_svc_80', ingress: { kind: 'Ingress', namespace: 'ns', name: 'ing' }, settings, rule };
  // the TLS balancer's name is a digest of the TLS lines (render/proxy-ssl.ts tlsBalancer): shown as <tls>
  return locationBody(target, { global: GLOBAL_DEFAULTS, headers: NO_HEADERS, defaultUpstream: undefined }).map((l) => l.replace(/portico_balancer_tls_[0-9a-f]{16}/, '<tls>'));
}

interface Row {
  a: Record<string, string>;
  settings: LocationSettings;
  lines: string[];
  rule?: { path: string; regex: boolean };
}

const ROWS: Row[] = [
  { a: { 'rewrite-target': '/$2' }, rule: { path: '/something(/|$)(.*)', regex: true }, settings: { rewriteTarget: '/$2' }, lines: [`${I}rewrite "(?i)/something(/|$)(.*)" "/$2" break;`, PASS] },
  { a: { 'use-regex': 'true' }, settings: { useRegex: true }, lines: [PASS] },
  { a: { 'app-root': '/app1' }, settings: { appRoot: '/app1' }, lines: [`${I}if ($uri = /) { return 302 "$scheme://$http_host/app1"; }`, PASS] },
  {
    a: { 'permanent-redirect': 'https://a.test/x', 'permanent-redirect-code': '308' },
    settings: { redirect: { url: 'https://a.test/x', code: 308 } },
    lines: [`${I}return 308 "https://a.test/x";`, PASS],
  },
  {
    a: { 'temporal-redirect': 'https://a.test/t', 'permanent-redirect': 'https://a.test/p' },
    settings: { redirect: { url: 'https://a.test/t', code: 302 } },
    lines: [`${I}return 302 "https://a.test/t";`, PASS],
  },
  // The redirect itself is rendered with the TLS lines (render/tls.ts), which know whether the host has TLS.
  { a: { 'force-ssl-redirect': 'true' }, settings: { forceSslRedirect: true }, lines: [PASS] },
  {
    a: { 'proxy-connect-timeout': '10', 'proxy-send-timeout': '20s', 'proxy-read-timeout': '30' },
    settings: { connectTimeout: 10, sendTimeout: 20, readTimeout: 30 },
    lines: [`${I}proxy_connect_timeout 10s;`, `${I}proxy_send_timeout 20s;`, `${I}proxy_read_timeout 30s;`, PASS],
  },
  {
    a: { 'proxy-body-size': '8M', 'client-body-buffer-size': '16k' },
    settings: { bodySize: '8m', clientBodyBufferSize: '16k' },
    lines: [`${I}client_max_body_size 8m;`, `${I}client_body_buffer_size 16k;`, PASS],
  },
  {
    a: { 'proxy-buffering': 'on', 'proxy-buffer-size': '8k', 'proxy-buffers-number': '8' },
    settings: { buffering: true, bufferSize: '8k', buffersNumber: 8 },
    lines: [`${I}proxy_buffering on;`, `${I}proxy_buffer_size 8k;`, `${I}proxy_buffers 8 8k;`, PASS],
  },
  {
    a: { 'proxy-request-buffering': 'off', 'proxy-http-version': '1.0' },
    settings: { requestBuffering: false, httpVersion: '1.0' },
    lines: [`${I}proxy_request_buffering off;`, `${I}proxy_http_version 1.0;`, PASS],
  },
  {
    a: { 'proxy-next-upstream': 'error http_502', 'proxy-next-upstream-tries': '2', 'proxy-next-upstream-timeout': '5' },
    settings: { nextUpstream: ['error', 'http_502'], nextUpstreamTries: 2, nextUpstreamTimeout: 5 },
    lines: [`${I}proxy_next_upstream error http_502;`, `${I}proxy_next_upstream_tries 2;`, `${I}proxy_next_upstream_timeout 5s;`, PASS],
  },
  {
    a: { 'proxy-redirect-from': 'http://in.test/', 'proxy-redirect-to': '/out/' },
    settings: { redirectFrom: 'http://in.test/', redirectTo: '/out/' },
    lines: [`${I}proxy_redirect "http://in.test/" "/out/";`, PASS],
  },
  {
    a: { 'proxy-cookie-domain': 'in.test out.test', 'proxy-cookie-path': 'off' },
    settings: { cookieDomain: ['in.test', 'out.test'], cookiePath: 'off' },
    lines: [`${I}proxy_cookie_domain "in.test" "out.test";`, `${I}proxy_cookie_path off;`, PASS],
  },
  { a: { 'backend-protocol': 'grpc' }, settings: { backendProtocol: 'GRPC' }, lines: [...GRPC_HEADERS, `${I}grpc_pass grpc://portico_balancer;`] },
  {
    a: { 'backend-protocol': 'HTTPS', 'proxy-ssl-verify': 'on', 'proxy-ssl-verify-depth': '2', 'proxy-ssl-name': 'b.test', 'proxy-ssl-server-name': 'on', 'proxy-ssl-protocols': 'TLSv1.3' },
    settings: { backendProtocol: 'HTTPS', sslVerify: true, sslVerifyDepth: 2, sslName: 'b.test', sslServerName: true, sslProtocols: ['TLSv1.3'] },
    lines: [
      `${I}proxy_ssl_server_name on;`,
      `${I}proxy_ssl_name "b.test";`,
      `${I}proxy_ssl_protocols TLSv1.3;`,
      `${I}proxy_ssl_verify on;`,
      `${I}proxy_ssl_verify_depth 2;`,
      `${I}proxy_ssl_trusted_certificate "/etc/ssl/certs/ca-certificates.crt";`,
      `${I}proxy_pass https://<tls>;`,
    ],
  },
  { a: { 'custom-http-errors': '404, 500' }, settings: { customHttpErrors: [404, 500] }, lines: [PASS] },
  { a: { 'preserve-trailing-slash': 'true', 'ssl-redirect': 'false' }, settings: { preserveTrailingSlash: true, sslRedirect: false }, lines: [PASS] },
];

for (const row of ROWS) {
  void test(`annotation ${Object.keys(row.a).join(' + ')}`, () => {
    const parsed = parseAnnotations(Object.fromEntries(Object.entries(row.a).map(([k, v]) => [`${P}/${k}`, v])), OPTS);
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.settings.location, row.settings);
    assert.deepEqual(fragment(parsed.settings.location, row.rule), row.lines);
  });
}

void test('headers: upstream-vhost, x-forwarded-prefix and connection-proxy-header repeat the whole default list', () => {
  const p = parseAnnotations({ [`${P}/upstream-vhost`]: 'in.test:8080', [`${P}/x-forwarded-prefix`]: '/p', [`${P}/connection-proxy-header`]: 'keep-alive' }, OPTS);
  const lines = fragment(p.settings.location).filter((l) => l.includes('proxy_set_header'));
  assert.equal(lines.length, 19, 'X-Original-URI only with proxy-add-original-uri-header');
  assert.deepEqual([lines[0], lines[2], lines[14]], [`${I}proxy_set_header Host "in.test:8080";`, `${I}proxy_set_header Connection "keep-alive";`, `${I}proxy_set_header X-Forwarded-Prefix "/p";`]);
  // no client-certificate auth on this server: the client's ssl-client-* headers are dropped, as at http level
  assert.deepEqual(
    lines.slice(15),
    ['verify', 'subject-dn', 'issuer-dn', 'cert'].map((h) => `${I}proxy_set_header ssl-client-${h} "";`),
  );
});

void test('server annotations: server-alias, from-to-www-redirect', () => {
  const p = parseAnnotations({ [`${P}/server-alias`]: 'a.test, b.test', [`${P}/from-to-www-redirect`]: 'true' }, OPTS);
  assert.deepEqual(p.settings.server, { serverAlias: ['a.test', 'b.test'], fromToWwwRedirect: true });
});

const REFUSED: [Record<string, string>, ParseOptions, RegExp][] = [
  [{ 'configuration-snippet': 'return 200;' }, { ...OPTS, allowSnippets: true, snippetMode: 'refuse' as const }, /--snippet-mode=refuse/],
  [{ 'server-snippet': 'return 200;' }, { ...OPTS, allowSnippets: true, snippetMode: 'any' as const }, /rated Critical, above --annotations-risk-level High/],
  [{ 'server-snippet': 'root /;' }, { ...OPTS, allowSnippets: true }, /directive root at line 1 is not on the allowlist/],
  [{ 'server-alias': 'a.test' }, { ...OPTS, riskLevel: 'Medium' }, /rated High/],
  [{ 'auth-tls-match-cn': 'O=a' }, OPTS, /does not name CN=/],
  [{ 'auth-tls-match-cn': 'CN=(a+)+$' }, OPTS, /auth-tls-match-cn|nested|backtrack|quantif/i],
  [{ 'auth-tls-match-cn': 'CN=a b' }, OPTS, /not a pattern/],
  [{ 'custom-headers': 'other/hdrs' }, OPTS, /another namespace/],
  [{ 'proxy-redirect-from': 'http://a.test/' }, OPTS, /go together/],
  [{ 'rewrite-target': '/$host' }, OPTS, /not a rewrite target/],
  [{ 'proxy-body-size': '1m;' }, OPTS, /not a size/],
  [{ 'proxy-max-temp-file-size': '1k' }, OPTS, /below the proxy buffer size 4k/],
  [{ 'proxy-max-temp-file-size': '8k', 'proxy-buffer-size': '16k' }, OPTS, /below the proxy buffer size 16k/],
  [{ 'proxy-busy-buffers-size': '64k' }, OPTS, /from the proxy buffer size 4k to all 4 buffers but one/],
];

for (const [a, o, why] of REFUSED) {
  void test(`refused: ${JSON.stringify(a)}`, () => {
    const p = parseAnnotations(Object.fromEntries(Object.entries(a).map(([k, v]) => [`${P}/${k}`, v])), o);
    assert.equal(p.errors.length, 1);
    assert.match(p.errors[0]!.reason, why);
    assert.equal(p.errors[0]!.annotation, `${P}/${Object.keys(a)[0]!}`);
  });
}

void test('every annotation and ConfigMap key has a doc, a default that parses, and a unique key', () => {
  assert.equal(new Set(ANNOTATIONS.map((a) => a.key)).size, ANNOTATIONS.length);
  for (const k of CONFIGMAP_KEYS) {
    assert.ok(k.doc.length > 0);
    if (k.default !== '') assert.deepEqual(parseConfigMap({ [k.key]: k.default }).errors, [], k.key);
  }
});

void test('ConfigMap: values render at http level; a bad value keeps the previous one; unknown keys are listed', () => {
  const first = parseConfigMap({ 'proxy-body-size': '8m', 'proxy-read-timeout': '120', 'server-tokens': 'true', 'compute-full-forwarded-for': 'true', 'x-unknown': '1' });
  assert.deepEqual(first.unknown, ['x-unknown']);
  const http = httpGlobals(first.settings, NO_HEADERS);
  assert.deepEqual(http.slice(0, 5), [
    '    server_tokens on;',
    '    keepalive_timeout 75s; keepalive_requests 1000;',
    '    client_max_body_size 8m; client_body_buffer_size 8k;',
    '    proxy_http_version 1.1;',
    '    proxy_connect_timeout 5s; proxy_send_timeout 60s; proxy_read_timeout 120s;',
  ]);
  assert.ok(http.includes('    proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;'));
  const second = parseConfigMap({ 'proxy-body-size': '8m; include /x', 'proxy-read-timeout': '30' }, first.settings);
  assert.equal(second.settings.proxyBodySize, '8m');
  assert.equal(second.settings.proxyReadTimeout, 30);
  assert.equal(second.errors[0]?.key, 'proxy-body-size');
  const real = httpGlobals(parseConfigMap({ 'use-forwarded-headers': 'true', 'proxy-real-ip-cidr': '10.0.0.0/8', 'block-cidrs': '192.0.2.0/24' }).settings, NO_HEADERS);
  assert.ok(real.includes('    real_ip_header X-Forwarded-For;') && real.includes('    set_real_ip_from 10.0.0.0/8;') && real.includes('    deny 192.0.2.0/24;'));
});
