// Table-driven: auth and access-list annotations → resolved settings → rendered location fragment, compared whole.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { selectIngresses } from '../../src/annotations/select.js';
import { checkUsers, parseHtpasswd } from '../../src/annotations/auth-resolve.js';
import { parseConfigMap } from '../../src/annotations/configmap.js';
import { classSelector } from '../../src/model/classes.js';
import type { ModelOptions, Secret, Snapshot } from '../../src/model/input.js';
import { GLOBAL_DEFAULTS, NO_HEADERS, type GlobalSettings, type LocationSettings } from '../../src/model/settings.js';
import { authHttpLines, authLocations, externalId, resolverLines } from '../../src/render/auth.js';
import { locationBody } from '../../src/render/settings.js';
import { proxyHeaders } from '../../src/render/globals.js';
import type { Model, Server } from '../../src/model/types.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { configMap } from '../support/manifests.js';

const P = 'nginx.ingress.kubernetes.io';
const I = '            ';
const PASS = `${I}proxy_pass http://portico_balancer;`;
const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};
const SHA = 'bob:{SHA}xjbo4jj9evl+LlAPjG8PTAvtr7A=';
const secret = (name: string, stringData: Record<string, string>, namespace = 'ns'): Secret => ({ apiVersion: 'v1', kind: 'Secret', metadata: { name, namespace }, stringData });

/** Runs the annotation stage on one Ingress in namespace `ns`; returns its location settings and the problems. */
function stage(a: Record<string, string>, global: GlobalSettings = GLOBAL_DEFAULTS): { s: LocationSettings; problems: string[]; refused: boolean } {
  const snap: Snapshot = {
    ingresses: [
      ingress('ing', {
        namespace: 'ns',
        host: 'a.test',
        className: 'portico',
        annotations: Object.fromEntries(Object.entries(a).map(([k, v]) => [`${P}/${k}`, v])),
        paths: [{ path: '/', type: 'Prefix', service: 'svc' }],
      }),
    ],
    ingressClasses: [ingressClass('portico')],
    services: [service('svc', 'ns')],
    endpointSlices: [slice('svc', 80, ['10.0.0.1'], { namespace: 'ns' })],
    secrets: [secret('htp', { auth: `${SHA}\n` }), secret('users', { ann: '$apr1$abcdefgh$paCto.rW8wn6thJ8b0QQY.' }), secret('htp', { auth: `${SHA}\n` }, 'other')],
    configMaps: [configMap('auth-hdrs', { 'X-Tenant': 'blue' }, 'ns')],
  };
  const sel = selectIngresses(snap, new Map(), { prefix: P, riskLevel: 'High', allowSnippets: true, strictPaths: true, ours: classSelector(snap.ingressClasses, OPTS), auth: global });
  return { s: sel.input.settings.get('ns/ing')?.location ?? {}, problems: sel.problems.map((p) => `${p.field}: ${p.reason}`), refused: sel.snapshot.ingresses.length === 0 };
}

function fragment(s: LocationSettings): string[] {
  const target = { kind: 'upstream' as const, upstream: 'ns_svc_80', ingress: { kind: 'Ingress', namespace: 'ns', name: 'ing' }, settings: s, rule: { path: '/', regex: false } };
  return locationBody(target, { global: GLOBAL_DEFAULTS, headers: NO_HEADERS, defaultUpstream: undefined });
}

const extLines = (id: string, more: string[] = []): string[] => [
  `${I}auth_request /_portico_external_auth_${id};`,
  `${I}auth_request_set $portico_auth_cookie $upstream_http_set_cookie;`,
  `${I}header_filter_by_lua_block { require("portico.auth").set_cookie(false) }`,
  ...more,
];

interface Row {
  a: Record<string, string>;
  lines: (s: LocationSettings) => string[];
}
const ROWS: Row[] = [
  { a: { 'auth-type': 'basic', 'auth-secret': 'htp', 'auth-realm': 'Staff only' }, lines: () => [`${I}auth_basic "Staff only";`, `${I}auth_basic_user_file "auth/ns.ing.htpasswd";`, PASS] },
  {
    a: { 'auth-type': 'basic', 'auth-secret': 'users', 'auth-secret-type': 'auth-map' },
    lines: () => [`${I}auth_basic "Authentication Required";`, `${I}auth_basic_user_file "auth/ns.ing.htpasswd";`, PASS],
  },
  {
    a: { 'whitelist-source-range': '10.0.0.0/8, 2001:db8::/32', 'denylist-source-range': '10.1.0.0/16', satisfy: 'any' },
    lines: () => [`${I}deny 10.1.0.0/16;`, `${I}allow 10.0.0.0/8;`, `${I}allow 2001:db8::/32;`, `${I}deny all;`, `${I}satisfy any;`, PASS],
  },
  { a: { 'allowlist-source-range': '192.0.2.1', 'whitelist-source-range': '10.0.0.0/8' }, lines: () => [`${I}allow 192.0.2.1;`, `${I}deny all;`, PASS] },
  { a: { 'auth-url': 'http://10.0.0.9:8080/auth' }, lines: (s) => [...extLines(externalId(s.auth!.external!)), PASS] },
  {
    a: { 'auth-url': 'http://10.0.0.9:8080/auth', 'auth-signin': 'https://login.test/?a=1', 'auth-response-headers': 'X-User' },
    lines: (s) => {
      const id = externalId(s.auth!.external!);
      return [
        ...extLines(id, [`${I}auth_request_set $portico_auth_x_user $upstream_http_x_user;`, `${I}error_page 401 = @portico_signin_${id};`]),
        ...proxyHeaders(GLOBAL_DEFAULTS, NO_HEADERS, { vars: [['X-User', 'portico_auth_x_user']] }, I),
        PASS,
      ];
    },
  },
];

for (const row of ROWS) {
  void test(`auth ${Object.keys(row.a).join(' + ')}`, () => {
    const r = stage(row.a);
    assert.deepEqual(r.problems, []);
    assert.deepEqual(fragment(r.s), row.lines(r.s));
  });
}

void test('auth settings: the Secret is resolved into a per-Ingress file, users hidden from JSON', () => {
  const r = stage({ 'auth-type': 'basic', 'auth-secret': 'htp' });
  assert.equal(
    JSON.stringify(r.s.auth),
    '{"enableGlobal":true,"basic":{"secret":"ns/htp","secretType":"auth-file","realm":"Authentication Required","file":"auth/ns.ing.htpasswd","users":"[redacted]"}}',
  );
  assert.equal(r.s.auth?.basic?.users?.reveal(), `${SHA}\n`);
});

const CLOSED: [Record<string, string>, RegExp][] = [
  [{ 'auth-type': 'basic', 'auth-secret': 'nope' }, /auth-secret\]: Secret ns\/nope not found; the paths of this Ingress answer 503/],
  [{ 'auth-type': 'basic', 'auth-secret': 'other/htp' }, /Secret other\/htp is in another namespace than the Ingress; set allow-cross-namespace-resources/],
  [{ 'auth-url': 'http://10.0.0.9/a', 'auth-proxy-set-headers': 'nope' }, /auth-proxy-set-headers\]: ConfigMap ns\/nope not found/],
];
for (const [a, why] of CLOSED) {
  void test(`fails closed (503): ${JSON.stringify(a)}`, () => {
    const r = stage(a);
    assert.equal(r.problems.length, 1);
    assert.match(r.problems[0]!, why);
    assert.deepEqual(fragment(r.s), [`${I}return 503;`, PASS]);
  });
}

void test('allow-cross-namespace-resources lets auth-secret name another namespace', () => {
  const r = stage({ 'auth-type': 'basic', 'auth-secret': 'other/htp' }, parseConfigMap({ 'allow-cross-namespace-resources': 'true' }).settings);
  assert.deepEqual(r.problems, []);
  assert.equal(r.s.auth?.basic?.secret, 'other/htp');
});

const REFUSED: [Record<string, string>, RegExp][] = [
  [{ 'auth-type': 'digest', 'auth-secret': 'htp' }, /digest authentication is not supported: Debian's nginx has no digest module/],
  [{ 'auth-type': 'basic' }, /auth-type and auth-secret go together/],
  [{ 'auth-url': 'http://a.test/$request_uri' }, /variables are allowed only as the whole host/],
  [{ 'auth-url': 'ftp://a.test/' }, /not an absolute http or https URL/],
  [{ 'auth-realm': 'a"b' }, /not a realm/],
  [{ 'auth-cache-key': '$request_body' }, /not a cache key of known nginx variables/],
  [{ 'auth-cache-duration': '200 5m;' }, /not status codes followed by a time/],
  [{ 'whitelist-source-range': '10.0.0.0/33' }, /not an IP address or CIDR/],
  [{ 'denylist-source-range': 'fe80::1%eth0' }, /not an IP address or CIDR/],
  [{ satisfy: 'some' }, /not one of any, all/],
  [{ 'auth-snippet': 'proxy_pass http://127.0.0.1:10246/;' }, /directive proxy_pass at line 1 is not on the allowlist of safe snippets/],
];
for (const [a, why] of REFUSED) {
  void test(`refused (not served): ${JSON.stringify(a)}`, () => {
    const r = stage(a);
    assert.ok(r.refused);
    assert.match(r.problems.join('\n'), why);
  });
}

void test('htpasswd lines are checked strictly; reasons never quote a hash', () => {
  assert.deepEqual(parseHtpasswd(`# c\n${SHA}\r\n\nann:$apr1$abcdefgh$paCto.rW8wn6thJ8b0QQY.\n`, 'S'), { ok: true, lines: `${SHA}\nann:$apr1$abcdefgh$paCto.rW8wn6thJ8b0QQY.\n` });
  const bad: [string, RegExp][] = [
    ['', /holds no users/],
    ['bob', /line 1 is not user:hash/],
    ['bob:secret', /user "bob": not a password hash/],
    ['bob:{PLAIN}x', /plain-text passwords are refused/],
    [`${SHA}\n${SHA}`, /appears twice/],
    ['b b:{SHA}xjbo4jj9evl+LlAPjG8PTAvtr7A=', /entry 1: the user name/],
  ];
  for (const [text, why] of bad) {
    const r = parseHtpasswd(text, 'S');
    assert.ok(!r.ok && why.test(r.reason) && !r.reason.includes('{SHA}x'), text);
  }
  assert.ok(!checkUsers([['a', '$apr1$x$y\n']], 'S').ok, 'no newline smuggled in a hash');
});

void test('global auth from the ConfigMap applies unless enable-global-auth is false; its own auth-url wins', () => {
  const g = parseConfigMap({ 'global-auth-url': 'http://10.0.0.9/global', 'global-auth-response-headers': 'X-User' }).settings;
  assert.equal(stage({}, g).s.auth?.external?.url, 'http://10.0.0.9/global');
  assert.equal(stage({}, g).s.auth?.external?.global, true);
  assert.equal(stage({ 'enable-global-auth': 'false' }, g).s.auth?.external, undefined);
  assert.equal(stage({ 'auth-url': 'http://10.0.0.9/own' }, g).s.auth?.external?.url, 'http://10.0.0.9/own');
  assert.equal(stage({}).s.auth, undefined, 'no auth at all: the settings are unchanged');
});

void test('the server gets one auth location per setup; http gets the resolver and a small cache zone', () => {
  const s = stage({
    'auth-url': 'https://auth.example.test/check',
    'auth-method': 'post',
    'auth-signin': 'https://login.test/',
    'auth-signin-redirect-param': 'next',
    'auth-proxy-set-headers': 'auth-hdrs',
    'auth-cache-key': '$remote_user$http_authorization',
    'auth-cache-duration': '200 1m',
    'auth-request-redirect': '/back',
  }).s;
  const id = externalId(s.auth!.external!);
  const target = { kind: 'upstream' as const, upstream: 'ns_svc_80', ingress: { kind: 'Ingress', namespace: 'ns', name: 'ing' }, settings: s };
  const server: Server = {
    host: 'a.test',
    locations: [
      { match: 'prefix', path: '/', target },
      { match: 'exact', path: '/x', target },
    ],
  };
  assert.deepEqual(authLocations(server), [
    `        location = /_portico_external_auth_${id} {`,
    `${I}internal;`,
    `${I}rewrite_by_lua_block { }`,
    `${I}proxy_pass_request_body off;`,
    `${I}proxy_set_header Content-Length "";`,
    `${I}proxy_set_header X-Forwarded-Proto "";`,
    `${I}proxy_set_header Host "auth.example.test";`,
    `${I}proxy_set_header X-Original-URL $scheme://$http_host$request_uri;`,
    `${I}proxy_set_header X-Original-Method $request_method;`,
    `${I}proxy_set_header X-Sent-From "portico";`,
    `${I}proxy_set_header X-Real-IP $remote_addr;`,
    `${I}proxy_set_header X-Forwarded-For $remote_addr;`,
    `${I}proxy_set_header X-Request-ID $req_id;`,
    `${I}proxy_set_header X-Auth-Request-Redirect "/back";`,
    `${I}proxy_set_header X-Tenant "blue";`,
    `${I}proxy_http_version 1.1;`,
    `${I}proxy_ssl_server_name on;`,
    `${I}proxy_method POST;`,
    `${I}proxy_buffering on;`,
    `${I}proxy_cache portico_auth;`,
    `${I}proxy_cache_key "${id}\${host}$remote_user$http_authorization";`,
    `${I}proxy_cache_valid 200 1m;`,
    `${I}set $portico_auth_url "https://auth.example.test/check";`,
    `${I}proxy_pass $portico_auth_url;`,
    '        }',
    `        location @portico_signin_${id} {`,
    `${I}set_by_lua_block $portico_escaped_uri { return ngx.escape_uri(ngx.var.request_uri) }`,
    `${I}return 302 "https://login.test/?next=$scheme://$http_host$portico_escaped_uri";`,
    '        }',
  ]);
  const model = { servers: [server] } as unknown as Model; // only servers are read
  assert.deepEqual(resolverLines(['10.96.0.10', 'fd00::a']), ['    resolver 10.96.0.10 [fd00::a] valid=30s;']);
  assert.deepEqual(resolverLines([]), []);
  assert.deepEqual(authHttpLines(model, '/w'), ['    proxy_cache_path "/w/tmp/auth_cache" levels=1:2 keys_zone=portico_auth:1m max_size=64m inactive=30m use_temp_path=off;']);
  assert.deepEqual(authHttpLines({ servers: [] } as unknown as Model, '/w'), []);
});
