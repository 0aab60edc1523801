// Injection: hostile values in every annotation, ConfigMap key, host, path, service, port and Secret reference are
// refused with a reason, or render into a configuration that `nginx -t` accepts and whose directive tree is the one
// the model asked for (compared with the same Ingresses carrying a harmless sentinel value).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { makeSelfSigned } from '../../src/tls/self-signed.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseConfigMap } from '../../src/annotations/configmap.js';
import { checkAdminSnippets } from '../../src/model/snippets/admin.js';
import { CONFIGMAP_KEYS } from '../../src/annotations/configmap.js';
import { selectIngresses } from '../../src/annotations/select.js';
import { ANNOTATIONS } from '../../src/annotations/table.js';
import { buildModel } from '../../src/model/build.js';
import { classSelector } from '../../src/model/classes.js';
import type { Ingress, ModelOptions, Snapshot } from '../../src/model/input.js';
import { GLOBAL_DEFAULTS, NO_HEADERS, type GlobalSettings } from '../../src/model/settings.js';
import { renderNginxConf, type RenderOptions } from '../../src/render/nginx-conf.js';
import { Nginx } from '../../src/nginx/process.js';
import { createLogger } from '../../src/log.js';
import { ingress, ingressClass, service, slice } from '../support/objects.js';
import { configMap } from '../support/manifests.js';
import { parseNginx, walk, type Directive } from '../support/nginx-tree.js';
import { REPO } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';
const OPTS: ModelOptions = {
  controllerClass: 'portico.dev/ingress-controller',
  ingressClass: 'portico',
  watchIngressWithoutClass: false,
  defaultBackendService: undefined,
  loadBalance: 'round_robin',
};

const CORPUS: string[] = [
  '"',
  "'",
  '";',
  '"; } server { listen 1; } #',
  '}',
  '{',
  ';',
  'a;b',
  'a b',
  '\n',
  'x\nload_module /tmp/evil.so;',
  '#',
  '# comment',
  '$host',
  '${host}',
  '$1',
  '$request_uri',
  '\\',
  '\\"',
  'a\\',
  '} location / { return 200 "pwn"; } #',
  'include /etc/passwd;',
  'load_module /tmp/x.so;',
  'content_by_lua_block { os.execute("id") }',
  '" ; access_by_lua "os.execute(1)',
  '\u0000',
  'a\u0000b',
  '\u0001',
  '\r\n',
  '\t',
  '\u007f',
  'x'.repeat(100_000),
  '/a"b',
  '/$x',
  '/a;b',
  '/a{b}',
  '/a b',
  '/a#b',
  '/a\nb',
  'http://x.test/";return 200 "x',
  'https://evil.test/$request_uri',
  'http://a.test/}',
  '1m;',
  '60s;',
  'true;',
  '1k include x',
  '*',
  '..',
  '../../etc/passwd',
  'a\u2028b',
  'é',
  '%00',
  '/a%0aB',
  '/\\x',
  "/' ",
  '/}',
  '/(?=x)',
  '/(a',
  '(?i)',
  '/ok',
  'ok',
  'on;',
  'off }',
  '404;500',
  '404,500 }',
  'TLSv1.2; ssl_x',
  'a.test,b"c',
  'a.test\nb',
  '0x10',
  '-1',
  '1e3',
  '99999999999',
  'default/x;y',
  'ns/../x',
  'UPPER',
  'keep-alive"',
  'GRPC;',
  'HTTPS }',
  '/$2;',
  '/${1}',
  '/$0',
  '~*.*',
  '~"',
  'a/b/c',
  // Hostile snippets: code, files, other upstreams, blocks that close the location, quoting and escape tricks,
  // comments hiding a brace, Portico's own variables; and snippets the safe allowlist takes.
  'access_by_lua_block { os.execute("id") }',
  'set_by_lua $x "os.exit()";',
  'alias /etc/;',
  'root /;',
  'proxy_pass http://127.0.0.1:10246;',
  'add_header X-A b; # }\n} location /evil { return 200 x; }',
  "return 200 'a\\'}'; }",
  'return 200 a\\}; }',
  'if (-f /etc/passwd) { return 200; }',
  'set $portico_backend x;',
  'if ($uri) { return 200 "}"; }',
  'add_header X-A "$document_root";',
  'location /x { return 200; }',
  'add_header X-Frame-Options DENY;',
  'if ($http_x_forwarded_proto != "https") { return 301 https://$host$request_uri; }',
];

const FRAGMENTS = [
  '"',
  "'",
  ';',
  '{',
  '}',
  '#',
  '$',
  '\\',
  '\n',
  '\u0000',
  ' ',
  '/',
  'a',
  'x.test',
  '1',
  'm',
  's',
  'on',
  'http://',
  ',',
  'include',
  'load_module',
  'by_lua',
  'return 200',
  '(',
  ')',
  '*',
  '~',
  '%',
  '.',
  '-',
  '=',
  ':',
  '?',
  '&',
  '\t',
  '\r',
  '$1',
  '404',
];

function generated(n: number, seed: number): string[] {
  let s = seed;
  const rand = (): number => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  return Array.from({ length: n }, () =>
    Array.from({ length: 1 + Math.floor(rand() * 6) }, () => (rand() < 0.85 ? FRAGMENTS[Math.floor(rand() * FRAGMENTS.length)]! : String.fromCharCode(Math.floor(rand() * 128)))).join(''),
  );
}

/** A harmless value of each annotation, rendered in place of the hostile one to get the expected tree. */
const SENTINEL: Record<string, string> = {
  'rewrite-target': '/x',
  // A valid sentinel: the default '' is refused (it fails open), and the shared upstream's hooks follow whoever sets it.
  'upstream-hash-by': '$request_uri',
  'app-root': '/x',
  'permanent-redirect': 'http://a.test/',
  'temporal-redirect': 'http://a.test/',
  'x-forwarded-prefix': '/p',
  'upstream-vhost': 'a.test',
  'server-alias': 'alias.test',
  'default-backend': 'svc',
  'custom-http-errors': '404',
  'custom-headers': 'hdrs',
  'proxy-ssl-name': 'a.test',
  'connection-proxy-header': 'close',
  'auth-type': 'basic',
  'auth-secret': 'missing',
  'auth-secret-type': 'auth-file',
  'auth-realm': 'r',
  'auth-url': 'http://auth.inj.test/auth',
  'auth-method': 'GET',
  'auth-signin': 'http://a.test/signin',
  'auth-signin-redirect-param': 'rd',
  'auth-response-headers': 'X-User',
  'auth-request-redirect': '/x',
  'auth-cache-key': '$remote_user',
  'auth-cache-duration': '200 5m',
  'auth-proxy-set-headers': 'missing',
  'allowlist-source-range': '10.0.0.0/8',
  'whitelist-source-range': '10.0.0.0/8',
  'denylist-source-range': '10.0.0.0/8',
  satisfy: 'any',
  // limit-rps, -rpm and -connections keep their default 0: a zone's size counts its Ingresses, and the sentinel twins
  // of refused values would count in the expected render only.
  'limit-whitelist': '10.0.0.0/8',
  'limit-allowlist': '10.0.0.0/8',
  'limit-rate': '100',
  'limit-rate-after': '10',
  'enable-cors': 'true',
  'cors-allow-origin': 'https://a.test',
  'cors-expose-headers': 'X-A',
  'canary-by-header': 'X-Canary',
  'canary-by-header-value': 'yes',
  'canary-by-header-pattern': '^a.*',
  'canary-by-cookie': 'c',
  'mirror-target': 'http://a.test/m',
  'mirror-host': 'a.test',
  'enable-access-log': 'false',
  'enable-rewrite-log': 'true',
  // A hostile name that parses names a missing Secret too: both answer 503 with no proxy_ssl_* line (nginx -t must pass).
  'proxy-ssl-secret': 'missing',
  'service-upstream': 'true',
};
/**
 * A Secret or ConfigMap that a valid hostile name points to does not exist, so its paths answer 503: the sentinels of
 * auth-secret and auth-proxy-set-headers name missing objects too. Auth annotations mean something only with their companions: each slot carries them beside the hostile value. */
const BASIC = { 'auth-type': 'basic', 'auth-secret': 'htp' };
const EXTERNAL = { 'auth-url': 'http://auth.inj.test/auth', 'auth-signin': 'http://a.test/signin', 'auth-response-headers': 'X-User', 'auth-cache-key': '$remote_user' };
const COMPANIONS: Record<string, Record<string, string>> = {
  'proxy-ssl-secret': { 'backend-protocol': 'HTTPS', 'proxy-ssl-verify': 'on' },
  'auth-type': BASIC,
  'auth-secret': BASIC,
  'auth-secret-type': BASIC,
  'auth-realm': BASIC,
  satisfy: { ...BASIC, 'allowlist-source-range': '10.0.0.0/8' },
  ...Object.fromEntries(
    [
      'auth-url',
      'auth-method',
      'auth-signin',
      'auth-signin-redirect-param',
      'auth-response-headers',
      'auth-request-redirect',
      'auth-cache-key',
      'auth-cache-duration',
      'auth-always-set-cookie',
      'auth-proxy-set-headers',
      'enable-global-auth',
    ].map((k) => [k, EXTERNAL]),
  ),
};
const LISTY = new Set([
  'limit-whitelist',
  'limit-allowlist',
  'allowlist-source-range',
  'whitelist-source-range',
  'denylist-source-range',
  'auth-response-headers',
  'auth-cache-duration',
  'proxy-cookie-domain',
  'proxy-cookie-path',
  'proxy-redirect-from',
  'proxy-redirect-to',
  'server-alias',
  'custom-http-errors',
  'proxy-next-upstream',
  'proxy-ssl-protocols',
  'custom-headers',
  'from-to-www-redirect',
]);

let workDir = '';
let nginx: Nginx;
const stats = { tried: 0, refused: 0, nginxTests: 0 };

/** Snippets are refused here (their own test below: an accepted snippet adds statements, so it has no sentinel twin). */
function render(snap: Snapshot, global: GlobalSettings = GLOBAL_DEFAULTS, snippetMode: 'refuse' | 'safe' = 'refuse'): { text: string; refused: Set<string>; servedWithout: Set<string> } {
  // global-allowed-response-headers names the custom-headers ConfigMap's one header, so that slot is served and compared.
  const sel = selectIngresses(snap, new Map(), {
    prefix: P,
    riskLevel: 'High',
    allowSnippets: true,
    snippetMode,
    strictPaths: true,
    ours: classSelector(snap.ingressClasses, OPTS),
    auth: { ...global, allowedResponseHeaders: ['X-A'] },
  });
  const model = buildModel(sel.snapshot, OPTS, sel.input);
  const refused = new Set([...sel.problems, ...model.problems].filter((p) => p.severity === 'dropped').map((p) => p.object.name));
  // An annotation that fails open (docs/adr/0016) is left out and its Ingress served without it.
  const servedWithout = new Set(sel.problems.filter((p) => p.reason.endsWith('the Ingress is served without this annotation')).map((p) => p.object.name));
  const o: RenderOptions = {
    workDir,
    luaDir: join(REPO, 'lua'),
    httpPort: 18080,
    httpsPort: 18443,
    statusPort: 18246,
    defaultServerPort: 18181,
    listenAddress: '127.0.0.1',
    user: undefined,
    workerProcesses: 1,
    global,
    headers: NO_HEADERS,
    // The test runner's stdout is a pipe nginx -t cannot reopen as /dev/stdout: the access log goes to a file here.
    defaultAccessLog: join(workDir, 'access.log'),
  };
  return { text: renderNginxConf(model, o).text, refused, servedWithout };
}

function snapshotOf(ingresses: Ingress[]): Snapshot {
  return {
    ingresses,
    ingressClasses: [ingressClass('portico')],
    services: [service('svc')],
    endpointSlices: [slice('svc', 8080, ['10.0.0.1'])],
    secrets: [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: 'htp', namespace: 'default' }, stringData: { auth: 'u:{SHA}xjbo4jj9evl+LlAPjG8PTAvtr7A=\n' } }],
    configMaps: [configMap('hdrs', { 'X-A': 'b' })],
  };
}

/** Names, nesting and argument counts (argument counts dropped for list-valued slots). */
function shape(tree: readonly Directive[], listy: boolean): string {
  return tree
    .map((d) => `${d.name}${listy ? '' : `/${d.args.length}`}${d.lua !== undefined ? `<${d.lua}>` : ''}${d.block ? `{${shape(d.block, listy)}}` : ''}`)
    .filter((x, i, all) => !listy || all[i - 1] !== x)
    .join(';');
}

const serversOf = (tree: readonly Directive[]): Directive[] => (tree.find((d) => d.name === 'http')?.block ?? []).filter((d) => d.name === 'server');
const outside = (tree: readonly Directive[]): string => JSON.stringify(tree.map((d) => (d.name === 'http' ? { ...d, block: d.block?.filter((x) => x.name !== 'server') } : d)));

/** Checks one rendered batch against its sentinel twin; runs `nginx -t` on it. */
/** For path slots the number of locations varies; each location must still look like one the sentinel has. */
function pathShape(server: readonly Directive[], allowed: ReadonlySet<string>, label: string): string {
  for (const l of server.filter((d) => d.name === 'location')) assert.ok(allowed.has(shape(l.block ?? [], false)), `${label}: unexpected location ${shape(l.block ?? [], false)}`);
  return shape(
    server.filter((d) => d.name !== 'location'),
    false,
  );
}

/** `served.accepted`: the Ingresses served; `served.without`: the hosts of those served without a fail-open annotation. */
async function check(label: string, hostile: string, expected: string, listy: boolean | 'paths', served: { accepted: number; without?: ReadonlySet<string> }): Promise<void> {
  const { accepted, without = new Set<string>() } = served;
  const got = parseNginx(hostile);
  const want = parseNginx(expected);
  assert.equal(outside(got), outside(want), `${label}: main/http-level directives differ`);
  const wantServer = serversOf(want).find((s) => s.args.length === 0 && s.block?.some((d) => d.name === 'server_name' && d.args[0] === 'h0.inj.test'));
  const user = serversOf(got).filter((s) => s.block?.some((d) => d.name === 'server_name' && d.args[0] !== '_') && !s.block.some((d) => d.name === 'return'));
  assert.equal(user.length, accepted, `${label}: ${user.length} servers for ${accepted} accepted Ingresses`);
  if (wantServer && listy === 'paths') {
    const allowed = new Set(serversOf(want).flatMap((x) => (x.block ?? []).filter((d) => d.name === 'location').map((l) => shape(l.block ?? [], false))));
    for (const s of user) {
      if (without.has(s.block?.find((d) => d.name === 'server_name')?.args[0] ?? '')) continue;
      assert.equal(pathShape(s.block ?? [], allowed, label), pathShape(wantServer.block ?? [], allowed, label), `${label}: server tree differs`);
    }
  } else if (wantServer) {
    // Each server is compared with its twin in the expected render (same name), else with the sentinel's.
    const nameOf = (x: Directive): string | undefined => x.block?.find((d) => d.name === 'server_name')?.args[0];
    const twins = new Map(serversOf(want).map((x) => [nameOf(x), x] as const));
    for (const s of user) {
      if (without.has(nameOf(s) ?? '')) continue;
      const twin: Directive = twins.get(nameOf(s)) ?? wantServer;
      assert.equal(shape(s.block ?? [], listy === true), shape(twin.block ?? [], listy === true), `${label}: server tree of ${nameOf(s) ?? '?'} differs`);
    }
  }
  for (const { d } of walk(got)) {
    assert.ok(
      !['include', 'access_by_lua_block', 'content_by_lua_block', 'access_by_lua', 'content_by_lua'].includes(d.name) || d.lua === 'require("portico.configuration").call()',
      `${label}: ${d.name}`,
    );
  }
  if (accepted > 0) {
    stats.nginxTests += 1;
    await nginx.test(hostile);
  }
}

before(async () => {
  workDir = await mkdtemp(join(tmpdir(), 'portico-inject-'));
  nginx = new Nginx({ binary: '/usr/sbin/nginx', workDir, statusPort: 18246, log: createLogger('silent') });
  await nginx.prepare(undefined, undefined);
  await makeSelfSigned(workDir); // the static fallback certificate every rendered configuration names
});
after(async () => {
  await rm(workDir, { recursive: true, force: true });
});

/** `trims`: the slot's value is trimmed before it is parsed (annotations other than snippets, see parse.ts). */
type Slot = { name: string; make: (v: string, i: number) => Ingress; sentinel: string; listy: boolean | 'paths'; trims?: boolean };

const ing = (i: number, o: { annotations?: Record<string, string>; host?: string; path?: string; service?: string; port?: number | string; type?: 'Prefix' | 'ImplementationSpecific' }): Ingress =>
  ingress(`i${i}`, {
    host: o.host ?? `h${i}.inj.test`,
    className: 'portico',
    annotations: o.annotations,
    paths: [{ path: o.path ?? '/', type: o.type ?? 'Prefix', service: o.service ?? 'svc', port: o.port ?? 80 }],
  });

const SLOTS: Slot[] = [
  ...ANNOTATIONS.map((a) => ({
    name: a.key,
    sentinel: SENTINEL[a.key] ?? a.default,
    listy: LISTY.has(a.key),
    trims: a.snippet !== true,
    make: (v: string, i: number) => ing(i, { annotations: { ...Object.fromEntries(Object.entries(COMPANIONS[a.key] ?? {}).map(([k, x]) => [`${P}/${k}`, x])), [`${P}/${a.key}`]: v } }),
  })),
  { name: 'host', sentinel: 'h0.inj.test', listy: false, make: (v, i) => ing(i, { host: i === 0 ? 'h0.inj.test' : v }) },
  { name: 'path', sentinel: '/x', listy: 'paths', make: (v, i) => ing(i, { path: v }) },
  { name: 'regex path', sentinel: '/x', listy: 'paths', make: (v, i) => ing(i, { path: v, type: 'ImplementationSpecific', annotations: { [`${P}/use-regex`]: 'true' } }) },
  { name: 'service name', sentinel: 'svc', listy: false, make: (v, i) => ing(i, { service: v }) },
  { name: 'port name', sentinel: 'http', listy: false, make: (v, i) => ing(i, { port: v }) },
  {
    name: 'tls secret',
    sentinel: 's',
    listy: false,
    make: (v, i) => {
      const x = ing(i, {});
      return { ...x, spec: { ...x.spec, tls: [{ hosts: [`h${i}.inj.test`], secretName: v }] } };
    },
  },
];

void test('hostile values in every annotation, host, path, service, port and Secret reference', async () => {
  const values = [...CORPUS, ...generated(10_000, 7)];
  const perSlot = new Map<string, { tried: number; refused: number }>();
  for (const [k, slot] of SLOTS.entries()) {
    // Every slot gets the whole fixed corpus; the generated values are spread over the slots.
    const mine = [...CORPUS, ...values.slice(CORPUS.length).filter((_, j) => j % SLOTS.length === k)];
    for (let start = 0; start < mine.length; start += 200) {
      const batch = mine.slice(start, start + 200);
      // Ingress 0 always carries the sentinel, so the expected server tree exists in both renders.
      const hostile = render(snapshotOf([slot.make(slot.sentinel, 0), ...batch.map((v, j) => slot.make(v, j + 1))]));
      // A value of letters and digits only cannot carry a directive; it may legitimately change the shape (use-regex: t),
      // so its twin is itself (trimmed where the parser trims: ' 404' is read as 404). Every other value is compared
      // with the sentinel's shape.
      const twin = (v: string): string => {
        const t = slot.trims ? v.trim() : v;
        return /^[A-Za-z0-9]*$/.test(t) ? t : slot.sentinel;
      };
      const expected = render(snapshotOf([slot.make(slot.sentinel, 0), ...batch.map((v, j) => slot.make(twin(v), j + 1))]));
      // A value that fails open (docs/adr/0016) leaves its Ingress served without the annotation: its server has no
      // sentinel twin (a shared upstream's settings may differ too), so it is held to nginx -t and the directive walk only.
      const without = new Set([...hostile.servedWithout].map((n) => `h${n.slice(1)}.inj.test`));
      const refused = batch.filter((_, j) => hostile.refused.has(`i${j + 1}`)).length;
      const accepted = batch.length - refused + (hostile.refused.has('i0') ? 0 : 1);
      await check(`${slot.name} batch ${start}`, hostile.text, expected.text, slot.listy, { accepted, without });
      const s = perSlot.get(slot.name) ?? { tried: 0, refused: 0 };
      perSlot.set(slot.name, { tried: s.tried + batch.length, refused: s.refused + refused });
      stats.tried += batch.length;
      stats.refused += refused;
    }
  }
  process.stdout.write(`injection (Ingress slots): tried ${stats.tried}, refused ${stats.refused}, nginx -t runs ${stats.nginxTests}\n`);
  for (const [name, s] of perSlot) process.stdout.write(`  ${name}: tried ${s.tried}, refused ${s.refused}\n`);
  assert.ok(stats.tried >= 10_000);
});

void test('hostile values in every ConfigMap key', async () => {
  let tried = 0;
  let refused = 0;
  let tests = 0;
  const snap = snapshotOf([ing(0, {})]);
  const expected = render(snap).text;
  for (const key of CONFIGMAP_KEYS) {
    for (const v of CORPUS) {
      tried += 1;
      const r = parseConfigMap({ [key.key]: v });
      // As the annotation stage does: admin snippets pass the --snippet-mode allowlist (safe, the default) too.
      const admin = checkAdminSnippets(r.settings, 'safe');
      if (r.errors.length > 0 || admin.refused.length > 0) {
        refused += 1;
        continue;
      }
      const text = render(snap, admin.settings).text;
      const got = parseNginx(text);
      // Accepted values may change http-level settings, never the set of directive kinds outside the allowed ones.
      const names = new Set(walk(parseNginx(expected)).map(({ d }) => d.name));
      for (const { d, path } of walk(got))
        assert.ok(
          path.at(-1) === 'map' ||
            names.has(d.name) ||
            ['real_ip_header', 'real_ip_recursive', 'set_real_ip_from', 'deny', 'map', 'default', 'log_format', 'add_header', 'if'].includes(d.name) ||
            /^[~"A-Za-z0-9]/.test(d.name),
          `${key.key}=${JSON.stringify(v.slice(0, 40))}: ${d.name}`,
        );
      tests += 1;
      await nginx.test(text);
    }
  }
  process.stdout.write(`injection (ConfigMap keys): tried ${tried}, refused ${refused}, nginx -t runs ${tests}\n`);
});

void test('hostile snippets under --snippet-mode=safe: refused, or confined to their own location (same servers and locations), and nginx -t passes', async () => {
  const values = [...CORPUS, ...generated(2_000, 11)];
  const sentinel = render(snapshotOf([ing(0, {})]), GLOBAL_DEFAULTS, 'safe');
  const count = (text: string): string =>
    JSON.stringify(
      walk(parseNginx(text))
        .map(({ d }) => d.name)
        .filter((n) => n === 'server' || n === 'location').length,
    );
  let accepted = 0;
  for (const [name, field] of [
    ['configuration-snippet', 'location'],
    ['server-snippet', 'server'],
  ] as const) {
    for (const v of values) {
      const r = render(snapshotOf([ing(0, { annotations: { [`${P}/${name}`]: v } })]), GLOBAL_DEFAULTS, 'safe');
      if (r.refused.has('i0')) continue;
      accepted += 1;
      assert.equal(count(r.text), count(sentinel.text), `${name}=${JSON.stringify(v.slice(0, 40))}: a ${field} snippet added a server or location`);
      // Portico's own Lua hooks are *_by_lua_block with a body; its load_module lines stay as the sentinel's.
      for (const { d } of walk(parseNginx(r.text))) assert.ok(!/_by_lua|^include$|^alias$|^root$/.test(d.name) || d.lua !== undefined, `${name}: ${d.name}`);
      assert.equal(r.text.split('load_module').length, sentinel.text.split('load_module').length, `${name}: load_module`);
      await nginx.test(r.text);
    }
  }
  process.stdout.write(`injection (safe snippets): tried ${values.length * 2}, accepted ${accepted}\n`);
});
