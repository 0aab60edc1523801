// Table-driven: each traffic annotation → parsed settings → rendered location fragment, compared whole; http-level
// zones and maps; canary attachment in the model; the ConfigMap keys.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseAnnotations } from '../../src/annotations/parse.js';
import { parseConfigMap } from '../../src/annotations/configmap.js';
import { selectIngresses } from '../../src/annotations/select.js';
import { buildModel } from '../../src/model/build.js';
import { classSelector } from '../../src/model/classes.js';
import type { ModelOptions, Snapshot } from '../../src/model/input.js';
import { GLOBAL_DEFAULTS, NO_HEADERS, type LocationSettings } from '../../src/model/settings.js';
import type { TrafficSettings } from '../../src/model/settings-traffic.js';
import { corsId, resolveCors } from '../../src/render/cors.js';
import { backendsPayload } from '../../src/render/lua-payload.js';
import { mirrorUri, trafficHttp, trafficLocation, trafficServer, zoneMiB } from '../../src/render/traffic.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';

const P = 'nginx.ingress.kubernetes.io';
const OPTS = { prefix: P, riskLevel: 'High' as const, allowSnippets: false, namespace: 'ns' };
const I = '            ';
const REF = { kind: 'Ingress', namespace: 'ns', name: 'ing' };
const ID = 'f83b8024'; // limit id of ns/ing: first 8 hex of sha256("ns/ing")

const target = (settings: LocationSettings) => ({ kind: 'upstream' as const, upstream: 'ns_svc_80', ingress: REF, settings });
const parse = (a: Record<string, string>) => parseAnnotations(Object.fromEntries(Object.entries(a).map(([k, v]) => [`${P}/${k}`, v])), OPTS);

interface Row {
  a: Record<string, string>;
  traffic: TrafficSettings;
  lines: (id: string) => string[];
}

const cors = (t: TrafficSettings): string => {
  const c = resolveCors(t.cors);
  return c ? corsId(c) : '';
};

const ROWS: Row[] = [
  {
    a: { 'limit-rps': '10' },
    traffic: { limit: { rps: 10 } },
    lines: () => [`${I}set $portico_limit_id ${ID};`, `${I}set $portico_limit_skip 0;`, `${I}limit_req zone=portico_rps_10 burst=50 nodelay;`],
  },
  {
    a: { 'limit-rpm': '60', 'limit-burst-multiplier': '2', 'limit-connections': '4' },
    traffic: { limit: { rpm: 60, burstMultiplier: 2, connections: 4 } },
    lines: () => [`${I}set $portico_limit_id ${ID};`, `${I}set $portico_limit_skip 0;`, `${I}limit_req zone=portico_rpm_60 burst=120 nodelay;`, `${I}limit_conn portico_conn 4;`],
  },
  {
    a: { 'limit-rps': '1', 'limit-whitelist': '10.0.0.0/8, 192.0.2.1' },
    traffic: { limit: { rps: 1, whitelist: ['10.0.0.0/8', '192.0.2.1'] } },
    lines: () => [`${I}set $portico_limit_id ${ID};`, `${I}set $portico_limit_skip $portico_limit_wl_c4631f4e1099;`, `${I}limit_req zone=portico_rps_1 burst=5 nodelay;`],
  },
  { a: { 'limit-allowlist': '::1' }, traffic: { limit: { whitelist: ['::1'] } }, lines: () => [] },
  { a: { 'limit-rate': '100', 'limit-rate-after': '1024' }, traffic: { limit: { rate: 100, rateAfter: 1024 } }, lines: () => [`${I}limit_rate 100k;`, `${I}limit_rate_after 1024k;`] },
  { a: { 'limit-rps': '0' }, traffic: { limit: { rps: 0 } }, lines: () => [] },
  {
    a: { 'enable-cors': 'true' },
    traffic: { cors: { enabled: true } },
    lines: (id) => [
      `${I}if ($portico_cors_pre_${id}) {`,
      `${I}    more_set_headers "Access-Control-Allow-Origin: $portico_cors_${id}";`,
      `${I}    more_set_headers "Access-Control-Allow-Credentials: true";`,
      `${I}    more_set_headers "Access-Control-Allow-Methods: GET, PUT, POST, DELETE, PATCH, OPTIONS";`,
      `${I}    more_set_headers "Access-Control-Allow-Headers: DNT, Keep-Alive, User-Agent, X-Requested-With, If-Modified-Since, Cache-Control, Content-Type, Range, Authorization";`,
      `${I}    more_set_headers "Access-Control-Max-Age: 1728000";`,
      `${I}    return 204;`,
      `${I}}`,
      `${I}more_set_headers "Access-Control-Allow-Origin: $portico_cors_h_${id}";`,
      `${I}more_set_headers "Access-Control-Allow-Credentials: $portico_cors_cred_${id}";`,
    ],
  },
  {
    a: {
      'enable-cors': 'true',
      'cors-allow-origin': 'https://A.test, https://*.b.test:8443',
      'cors-allow-methods': 'get, post',
      'cors-allow-headers': 'X-A',
      'cors-allow-credentials': 'false',
      'cors-expose-headers': 'X-B, X-C',
      'cors-max-age': '60',
    },
    traffic: {
      cors: {
        enabled: true,
        allowOrigin: ['https://a.test', 'https://*.b.test:8443'],
        allowMethods: ['GET', 'POST'],
        allowHeaders: ['X-A'],
        allowCredentials: false,
        exposeHeaders: ['X-B', 'X-C'],
        maxAge: 60,
      },
    },
    lines: (id) => [
      `${I}if ($portico_cors_pre_${id}) {`,
      `${I}    more_set_headers "Access-Control-Allow-Origin: $portico_cors_${id}";`,
      `${I}    more_set_headers "Access-Control-Allow-Methods: GET, POST";`,
      `${I}    more_set_headers "Access-Control-Allow-Headers: X-A";`,
      `${I}    more_set_headers "Access-Control-Max-Age: 60";`,
      `${I}    return 204;`,
      `${I}}`,
      `${I}more_set_headers "Access-Control-Allow-Origin: $portico_cors_h_${id}";`,
      `${I}more_set_headers "Access-Control-Expose-Headers: $portico_cors_exp_${id}";`,
      `${I}more_set_headers "Vary: $portico_cors_vary";`,
    ],
  },
  { a: { 'cors-allow-origin': 'https://a.test' }, traffic: { cors: { allowOrigin: ['https://a.test'] } }, lines: () => [] },
  {
    a: { 'mirror-target': 'https://m.test/x$request_uri', 'mirror-request-body': 'false' },
    traffic: { mirror: { target: 'https://m.test/x$request_uri', requestBody: false } },
    lines: () => [`${I}mirror "${mirrorUri({ target: 'https://m.test/x$request_uri', requestBody: false })}";`, `${I}mirror_request_body off;`],
  },
  { a: { 'enable-access-log': 'false', 'enable-rewrite-log': 'true' }, traffic: { accessLog: false, rewriteLog: true }, lines: () => [`${I}access_log off;`, `${I}rewrite_log on;`] },
  {
    a: {
      canary: 'true',
      'canary-by-header': 'X-Canary',
      'canary-by-header-value': 'yes',
      'canary-by-header-pattern': '(?i)^b.*',
      'canary-by-cookie': 'c',
      'canary-weight': '5',
      'canary-weight-total': '10',
    },
    traffic: { canary: { enabled: true, header: 'X-Canary', headerValue: 'yes', headerPattern: '(?i)^b.*', cookie: 'c', weight: 5, weightTotal: 10 } },
    lines: () => [],
  },
];

for (const row of ROWS) {
  void test(`traffic annotation ${Object.keys(row.a).join(' + ')}`, () => {
    const p = parse(row.a);
    assert.deepEqual(p.errors, []);
    assert.deepEqual(p.settings.location, { traffic: row.traffic });
    assert.deepEqual(trafficLocation(target(p.settings.location), I), row.lines(cors(row.traffic)));
  });
}

const REFUSED: [Record<string, string>, RegExp][] = [
  [{ 'limit-rps': '-1' }, /not an integer/],
  [{ 'limit-whitelist': '10.0.0.0/8; allow all' }, /not an IP address/],
  [{ 'cors-allow-origin': 'https://a.test"; return 200' }, /not an origin/],
  [{ 'cors-allow-origin': 'https://a.test, a.test' }, /not an origin/],
  [{ 'cors-allow-origin': 'https://*' }, /not an origin/],
  [{ 'cors-allow-origin': 'https://a.test/path' }, /not an origin/],
  [{ 'cors-allow-methods': 'GET;' }, /not an HTTP method/],
  [{ 'cors-allow-headers': 'X-A"' }, /not a header name/],
  [{ 'canary-by-header-pattern': '(' }, /not a valid regular expression/],
  [{ 'canary-by-header-value': 'a$b' }, /not a header value/],
  [{ 'canary-weight-total': '0' }, /not an integer/],
  [{ 'mirror-target': 'http://m.test/$host' }, /not an http\(s\) URL/],
  [{ 'mirror-target': 'file:///etc/passwd' }, /not an http\(s\) URL/],
  [{ 'mirror-host': 'a.test;' }, /not a host name/],
];

for (const [a, why] of REFUSED) {
  void test(`traffic refused: ${JSON.stringify(a)}`, () => {
    const p = parse(a);
    assert.equal(p.errors.length, 1);
    assert.match(p.errors[0]!.reason, why);
  });
}

const MODEL_OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};

function model(ingresses: Snapshot['ingresses']) {
  const snap: Snapshot = {
    ingresses,
    ingressClasses: [ingressClass('portico')],
    services: [service('main'), service('alt')],
    endpointSlices: [slice('main', 8080, ['10.0.0.1']), slice('alt', 8080, ['10.0.0.2'])],
    secrets: [],
    configMaps: [],
  };
  const sel = selectIngresses(snap, new Map(), { prefix: P, riskLevel: 'High', allowSnippets: false, strictPaths: true, ours: classSelector(snap.ingressClasses, MODEL_OPTS) });
  return buildModel(sel.snapshot, MODEL_OPTS, sel.input);
}
const an = (o: Record<string, string>) => Object.fromEntries(Object.entries(o).map(([k, v]) => [`${P}/${k}`, v]));

void test('canary: attached to the main path by route key, not a path conflict; a canary path without a main path is a problem', () => {
  const m = model([
    ingress('main', { host: 'a.test', className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'main' }], created: '2026-01-02T00:00:00Z' }),
    ingress('other', { host: 'b.test', className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'main' }] }),
    // Older than main: the canary must still not take the path over.
    ingress('can', {
      host: 'a.test',
      className: 'portico',
      annotations: an({ canary: 'true', 'canary-weight': '20' }),
      paths: [
        { path: '/', type: 'Prefix', service: 'alt' },
        { path: '/own', type: 'Prefix', service: 'alt' },
      ],
    }),
  ]);
  assert.deepEqual(
    m.problems.map((p) => [p.object.name, p.field, p.severity]),
    [['can', 'spec.rules[0].http.paths[1].path', 'dropped']],
  );
  const a = m.servers.find((s) => s.host === 'a.test')!;
  const b = m.servers.find((s) => s.host === 'b.test')!;
  const ta = a.locations.map((l) => l.target);
  assert.ok(ta.every((t) => t.kind === 'upstream' && t.upstream === 'default_main_80' && /^c[0-9a-f]{12}$/.test(t.canary ?? '')));
  assert.ok(b.locations.every((l) => l.target.kind === 'upstream' && l.target.canary === undefined));
  const key = ta[0]!.kind === 'upstream' ? ta[0]!.canary! : '';
  const payload = backendsPayload(m).find((x) => x.name === 'default_main_80');
  assert.deepEqual(payload?.canary, { [key]: { backend: 'default_alt_80', header: '', headerValue: '', headerPattern: '', cookie: '', weight: 20, weightTotal: 100 } });
  assert.ok(m.ingresses.some((r) => r.name === 'can'));
});

void test('canary: weight above the total is a problem; canary-* without canary: "true" is a plain Ingress', () => {
  const m = model([
    ingress('main', { host: 'a.test', className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'main' }] }),
    ingress('can', { host: 'a.test', className: 'portico', annotations: an({ canary: 'true', 'canary-weight': '101' }), paths: [{ path: '/', type: 'Prefix', service: 'alt' }] }),
  ]);
  assert.match(m.problems[0]?.reason ?? '', /above canary-weight-total 100/);
  assert.equal(backendsPayload(m).find((x) => x.name === 'default_main_80')?.canary, undefined);
});

void test('http level: one limit_req zone per distinct rate, sized by its Ingresses; whitelist geo; CORS maps; referers', () => {
  const mk = (name: string, traffic: TrafficSettings) => ({ match: 'prefix' as const, path: '/', target: { ...target({ traffic }), ingress: { ...REF, name } } });
  const locs = [
    ...Array.from({ length: 3 }, (_, i) => mk(`r${i}`, { limit: { rps: 10 } })),
    mk('w', { limit: { rpm: 6, connections: 2, whitelist: ['127.0.0.1'] } }),
    mk('c', { cors: { enabled: true, allowOrigin: ['https://*.a.test', 'https://b.test'] } }),
  ];
  const m = { servers: [{ host: 'x.test', locations: locs }], upstreams: [], ingresses: [], problems: [], tls: undefined as never };
  const g = parseConfigMap({ 'limit-req-status-code': '429', 'block-referers': 'bad.test, ~*spam' }).settings;
  const id = corsId(resolveCors({ enabled: true, allowOrigin: ['https://*.a.test', 'https://b.test'] })!);
  assert.deepEqual(trafficHttp(m, g), [
    '    limit_req_status 429; limit_conn_status 503;',
    '    map $portico_limit_skip $portico_limit_key { "1" ""; default "$binary_remote_addr$portico_limit_id"; }',
    '    geo $portico_limit_wl_12ca17b49af2 { default 0; 127.0.0.1 1; }',
    '    limit_conn_zone $portico_limit_key zone=portico_conn:1m;',
    '    limit_req_zone $portico_limit_key zone=portico_rpm_6:1m rate=6r/m;',
    '    limit_req_zone $portico_limit_key zone=portico_rps_10:4m rate=10r/s;',
    `    map $http_origin $portico_cors_${id} {`,
    '        default "";',
    '        "~*^https://[a-z0-9-]+\\\\.a\\\\.test$" $http_origin;',
    '        "https://b.test" $http_origin;',
    '    }',
    `    map "$request_method:$portico_cors_${id}" $portico_cors_pre_${id} { default 0; "~^OPTIONS:." 1; }`,
    `    map $portico_cors_${id} $portico_cors_h_${id} { "" $sent_http_access_control_allow_origin; default $portico_cors_${id}; }`,
    `    map $portico_cors_${id} $portico_cors_cred_${id} { "" $sent_http_access_control_allow_credentials; default "true"; }`,
    '    map $sent_http_vary $portico_cors_vary { "" "Origin"; "~*(^|[,\\s])origin($|[,\\s])" $sent_http_vary; default "$sent_http_vary, Origin"; }',
    '    map $http_referer $portico_block_referer {',
    '        default 0;',
    '        "bad.test" 1;',
    '        "~*spam" 1;',
    '    }',
  ]);
  assert.deepEqual(trafficServer({ host: 'x.test', locations: [] }, g, NO_HEADERS), ['        if ($portico_block_referer) { return 403; }']);
  assert.deepEqual(trafficHttp({ ...m, servers: [] }, GLOBAL_DEFAULTS), []);
  assert.deepEqual([1, 2, 3, 64, 1000].map(zoneMiB), [1, 2, 4, 64, 64]);
});

void test('ConfigMap: limit status codes (400-599) and block-referers', () => {
  assert.deepEqual([GLOBAL_DEFAULTS.limitReqStatusCode, GLOBAL_DEFAULTS.limitConnStatusCode], [503, 503]);
  const r = parseConfigMap({ 'limit-conn-status-code': '200', 'block-referers': 'a"b' });
  assert.deepEqual(
    r.errors.map((e) => e.key),
    ['block-referers', 'limit-conn-status-code'],
  );
  // Backslashes only inside a ~regex, and only one that compiles (ingress-nginx's own examples escape / and spaces).
  assert.deepEqual(parseConfigMap({ 'block-referers': '~*example\\.com', 'block-user-agents': '~*chrome\\/68\\ safari' }).errors, []);
  for (const bad of ['a\\b', '~*ex(ample', '~*x\\']) assert.equal(parseConfigMap({ 'block-user-agents': bad }).errors.length, 1, bad);
});
