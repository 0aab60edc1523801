// Property-based: a second victim on the SAME host. Namespace a serves /a on shared.test (HTTP only) and
// secure.test (its own TLS), older. fast-check generates one object of namespace b per round on those hosts: an
// Ingress with any annotations of the table (snippets included), a TLS and a default-backend form, a path that
// Kubernetes' precedence never gives a's requests (or a's own path, or a regex); or an HTTPRoute with any match and
// filter on b's own Gateway or a shared one. Through real nginx, in each snippet mode, a's answers (status, backend,
// what the backend received, headers, certificate, redirects) stay exactly what they were before b. The rounds start
// with the five shared-host attacks of docs/security.md 2a, so the run fails with any one of the guards disabled. Fixed seed, bounded rounds and time.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { ANNOTATIONS } from '../../src/annotations/table.js';
import { startBackend, type Backend } from '../support/backends.js';
import { gateway, httpRoute } from '../support/gateway.js';
import { manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';
import { NEW, SHARED_HOSTS, sharedCerts, victimObjects } from '../support/shared-host.js';
import { tenantAnswers, type Answers } from '../support/answers.js';

const ROUNDS = Number(process.env['PORTICO_FUZZ_ROUNDS'] ?? 40);
const TIME_LIMIT_MS = 100_000;
const P = 'nginx.ingress.kubernetes.io';
const HOSTS = SHARED_HOSTS;
// Kubernetes gives every one of these to a's Prefix /a: no generated path is an Exact /a or a longer prefix of them.
const PROBES = ['/a', '/a/x?q=1', '/a/c/d'];

const SNIPPETS = [
  'return 418;',
  'rewrite ^(.*)$ /b$1 last;',
  'add_header X-Evil 1 always;',
  'more_set_headers "Set-Cookie: stolen=1";',
  'if ($request_uri ~ "^/a") { return 403; }',
  'set $x 1;',
  'proxy_set_header Cookie "";',
  'location /a { return 200 "b"; }',
];
const VALUES = ['', 'true', 'false', '100', '0', 'on', 'optional', 'CN=client', 'b/ca', 'ca', 'attacker', '/b', '/$1', 'https://b.test/', '.*', '10.0.0.0/8', '127.0.0.1/32', 'X-A', 'cookie', '418'];

const TLS_FORMS = [undefined, { hosts: ['HOST'], secretName: 'cert' }, { secretName: 'cert' }, { hosts: ['HOST'], secretName: 'missing' }, { hosts: ['*.test'], secretName: 'cert' }];
type GenPath = { path: string; type: 'Prefix' | 'Exact'; regex?: true };
const OWN_PATH: GenPath = { path: '/b', type: 'Prefix' };
const SAME_PATH: GenPath = { path: '/a', type: 'Prefix' };
const REGEX_PATH: GenPath = { path: '/a.*', type: 'Prefix', regex: true };
const PATHS: readonly GenPath[] = [
  OWN_PATH,
  SAME_PATH,
  { path: '/a/b', type: 'Prefix' },
  { path: '/a/b', type: 'Exact' },
  { path: '/.*', type: 'Prefix', regex: true },
  REGEX_PATH,
  { path: '/a/(.*)', type: 'Prefix', regex: true },
];

const snippetKeys = ANNOTATIONS.filter((a) => a.snippet).map((a) => a.key);
const otherKeys = ANNOTATIONS.filter((a) => !a.snippet).map((a) => a.key);
const annotationsArb = fc.dictionary(
  fc.oneof(fc.constantFrom(...snippetKeys), fc.constantFrom(...otherKeys)),
  fc.oneof(fc.constantFrom(...SNIPPETS), fc.constantFrom(...VALUES), fc.constantFrom(...ANNOTATIONS.map((a) => a.default))),
  { minKeys: 0, maxKeys: 4 },
);

const ingressArb = fc.record({
  kind: fc.constant('ingress' as const),
  host: fc.constantFrom(...HOSTS),
  annotations: annotationsArb,
  path: fc.constantFrom(...PATHS),
  tls: fc.constantFrom(...TLS_FORMS),
  defaultBackend: fc.boolean(),
});

const matchArb = fc.record({
  path: fc.oneof(
    fc.record({ type: fc.constant('PathPrefix'), value: fc.constantFrom('/a', '/a/', '/b', '/a/b', '/') }),
    fc.record({ type: fc.constant('Exact'), value: fc.constantFrom('/a/b', '/b') }),
    fc.record({ type: fc.constant('RegularExpression'), value: fc.constantFrom('/.*', '/a/.*', '/a.*', '.*') }),
  ),
  method: fc.option(fc.constantFrom('GET', 'POST'), { nil: undefined }),
  headers: fc.option(fc.constant([{ name: 'cookie', type: 'RegularExpression', value: '.*' }]), { nil: undefined }),
  queryParams: fc.option(fc.constant([{ name: 'q', value: '1' }]), { nil: undefined }),
});
const filterArb = fc.constantFrom(
  undefined,
  { type: 'RequestHeaderModifier', requestHeaderModifier: { set: [{ name: 'Cookie', value: 'x=1' }] } },
  { type: 'ResponseHeaderModifier', responseHeaderModifier: { set: [{ name: 'X-Evil', value: '1' }] } },
  { type: 'RequestRedirect', requestRedirect: { scheme: 'https', statusCode: 301 } },
  { type: 'URLRewrite', urlRewrite: { path: { type: 'ReplaceFullPath', replaceFullPath: '/b' } } },
  { type: 'RequestMirror', requestMirror: { backendRef: { name: 'attacker', port: 80 } } },
);
const routeArb = fc.record({
  kind: fc.constant('route' as const),
  host: fc.constantFrom(...HOSTS),
  gateway: fc.constantFrom('own-http', 'own-https', 'shared'),
  matches: fc.array(matchArb, { minLength: 1, maxLength: 3 }),
  filter: filterArb,
});
type Gen = (typeof ingressArb extends fc.Arbitrary<infer T> ? T : never) | (typeof routeArb extends fc.Arbitrary<infer T> ? T : never);

/** Namespace b's objects for one generated case. */
function objectsOf(g: Gen): unknown[] {
  if (g.kind === 'ingress') {
    const full = Object.fromEntries(Object.entries(g.annotations).map(([k, v]) => [`${P}/${k}`, v]));
    if (g.path.regex) full[`${P}/use-regex`] = 'true';
    const ing = ingress('gen', { namespace: 'b', className: 'portico', created: NEW, host: g.host, annotations: full, paths: [{ path: g.path.path, type: g.path.type, service: 'attacker' }] });
    const tls = g.tls ? [{ ...g.tls, ...(g.tls.hosts ? { hosts: g.tls.hosts.map((h) => (h === 'HOST' ? g.host : h)) } : {}) }] : undefined;
    const spec = { ...ing.spec, ...(tls ? { tls } : {}), ...(g.defaultBackend ? { defaultBackend: { service: { name: 'attacker', port: { number: 80 } } } } : {}) };
    return [{ ...ing, spec }];
  }
  const listener =
    g.gateway === 'own-https'
      ? { name: 'l', protocol: 'HTTPS' as const, hostname: g.host, certificateRefs: [{ name: 'cert' }] }
      : { name: 'l', hostname: g.host, ...(g.gateway === 'shared' ? { from: 'All' as const } : {}) };
  const ns = g.gateway === 'shared' ? 'infra' : 'b';
  const gw = { ...gateway('gw', [listener], { namespace: ns }), metadata: { name: 'gw', namespace: ns, creationTimestamp: NEW } };
  const rule = { matches: g.matches, backendRefs: g.filter?.type === 'RequestRedirect' ? undefined : [{ name: 'attacker', port: 80 }], ...(g.filter ? { filters: [g.filter] } : {}) };
  const route = { ...httpRoute('gen', { parentRefs: [{ name: 'gw', namespace: ns }], hostnames: [g.host], rules: [rule] }, 'b'), metadata: { name: 'gen', namespace: 'b', creationTimestamp: NEW } };
  return [gw, route];
}

/** The five shared-host attacks, first in every run: with one guard disabled, one of them changes a's answers. */
const KNOWN: Gen[] = [
  { kind: 'ingress', host: 'shared.test', annotations: { 'server-snippet': 'rewrite ^(.*)$ /b$1 last;' }, path: OWN_PATH, tls: undefined, defaultBackend: false },
  { kind: 'route', host: 'shared.test', gateway: 'own-http', matches: [{ path: { type: 'PathPrefix', value: '/a' }, method: 'GET', headers: undefined, queryParams: undefined }], filter: undefined },
  {
    kind: 'route',
    host: 'shared.test',
    gateway: 'shared',
    matches: [{ path: { type: 'RegularExpression', value: '/.*' }, method: undefined, headers: undefined, queryParams: undefined }],
    filter: undefined,
  },
  { kind: 'ingress', host: 'shared.test', annotations: { canary: 'true', 'canary-weight': '100' }, path: SAME_PATH, tls: undefined, defaultBackend: false },
  { kind: 'ingress', host: 'secure.test', annotations: { 'auth-tls-secret': 'b/ca', 'auth-tls-verify-client': 'on' }, path: OWN_PATH, tls: undefined, defaultBackend: false },
  { kind: 'ingress', host: 'shared.test', annotations: {}, path: OWN_PATH, tls: { hosts: ['HOST'], secretName: 'cert' }, defaultBackend: false },
  { kind: 'ingress', host: 'secure.test', annotations: { 'server-alias': 'alias.test' }, path: OWN_PATH, tls: undefined, defaultBackend: false },
  { kind: 'ingress', host: 'shared.test', annotations: {}, path: REGEX_PATH, tls: undefined, defaultBackend: false },
];

for (const mode of ['safe', 'any', 'refuse'] as const) {
  describe(`a generated object of namespace b never changes a's answers on the same host (--snippet-mode=${mode}, real nginx)`, () => {
    let victim: Backend;
    let attacker: Backend;
    let certDir: string;
    let dir: ManifestDir;
    let p: Running;
    let baseline: Answers;

    before(async () => {
      victim = await startBackend('victim');
      attacker = await startBackend('attacker');
      certDir = await mkdtemp(join(tmpdir(), 'portico-fuzz-shared-'));
      dir = await manifestFolder();
      await dir.write('a.json', victimObjects(victim, attacker, sharedCerts(certDir)));
      p = await startPortico(['--manifests', dir.dir, '--allow-snippet-annotations', '--annotations-risk-level=Critical', `--snippet-mode=${mode}`]);
      await until('a served', async () => (await who(p.http, 'shared.test', '/a')) === 'victim');
      baseline = await tenantAnswers(p, HOSTS, PROBES);
    });

    after(async () => {
      await p?.stop();
      await victim?.close();
      await attacker?.close();
      await dir?.remove();
      await rm(certDir, { recursive: true, force: true });
    });

    test(`the shared-host attacks, then ${ROUNDS} generated objects`, async () => {
      const generated = fc.sample(fc.oneof(ingressArb, routeArb), { numRuns: ROUNDS, seed: 2024 }) as Gen[];
      const started = Date.now();
      let round = 0;
      for (const g of [...KNOWN, ...generated]) {
        if (Date.now() - started > TIME_LIMIT_MS) break;
        round += 1;
        const what = JSON.stringify(g).slice(0, 400);
        const marker = ingress(`marker-${round}`, { namespace: 'b', className: 'portico', created: NEW, host: `m${round}.test`, paths: [{ path: '/', type: 'Prefix', service: 'attacker' }] });
        await dir.write('b.json', [...objectsOf(g), marker]);
        await until(`round ${round} applied (${what})`, async () => (await who(p.http, `m${round}.test`, '/')) === 'attacker', 15_000);
        assert.deepEqual(await tenantAnswers(p, HOSTS, PROBES), baseline, `round ${round}: a's answers changed by ${what}`);
        assert.equal((await get(p.healthz, 'localhost', '/healthz')).status, 200, `round ${round}: /healthz`);
      }
      assert.ok(round >= KNOWN.length + Math.min(ROUNDS, 8), `${round} rounds ran within the time limit`);
    });
  });
}
