// migrate-check's verdicts agree with what the controller does: the same folder, served by a real Portico in local
// mode (real nginx, real backends on 127.0.0.1) with the flags the report says it evaluated with. Each Ingress has a
// request that reaches its own backend when served; skipped ones answer 404; another class's Ingress is neither.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { startBackend, type Backend } from '../support/backends.js';
import { get, startPortico, until, who, type Running } from '../support/portico.js';
import { fixtureCopy, portico, verdicts } from './run.js';

/** A request per Ingress of the folder: host, path, headers, and the backend that answers when it is served. */
const PROBES: Readonly<Record<string, { host: string; path: string; headers?: Record<string, string>; backend: string }>> = {
  // x-canary: never keeps the request off the 10% canary.
  'shop/web': { host: 'shop.example.com', path: '/', headers: { 'x-canary': 'never' }, backend: 'web' },
  'shop/web-canary': { host: 'shop.example.com', path: '/', headers: { 'x-canary': 'always' }, backend: 'web-canary' },
  'shop/api': { host: 'api.example.com', path: '/v1/items', backend: 'api' },
  'blog/blog': { host: 'blog.example.com', path: '/', backend: 'blog' },
  'blog/comments': { host: 'comments.example.com', path: '/', backend: 'comments' },
  'blog/private': { host: 'private.example.com', path: '/', backend: 'blog' },
  'legacy/old': { host: 'old.example.com', path: '/', backend: 'old' },
  'admin/dashboard': { host: 'admin.example.com', path: '/', headers: { authorization: `Basic ${Buffer.from('admin:s3cret').toString('base64')}` }, backend: 'dashboard' },
  'media/upload': { host: 'upload.example.com', path: '/', backend: 'upload' },
  // oauth2-proxy's form: the auth request goes through Portico to /oauth2 on the same host (the stand-in says 200).
  'sso/app': { host: 'app.example.com', path: '/', backend: 'app' },
  'sso/oauth2-proxy': { host: 'app.example.com', path: '/oauth2/auth', backend: 'oauth' },
  'team/docs': { host: 'docs.example.com', path: '/', backend: 'docs' },
  // Its only path is refused ("served differently"): the host's own Ingress keeps answering.
  'team/catch-all': { host: 'shop.example.com', path: '/anything-else', headers: { 'x-canary': 'never' }, backend: 'web' },
  'other/internal': { host: 'internal.example.com', path: '/', backend: 'internal' },
};

const SERVICES = ['web', 'web-canary', 'api', 'blog', 'comments', 'old', 'dashboard', 'upload', 'app', 'oauth', 'docs', 'internal'];

let dir = '';
let backends: Backend[] = [];
let p: Running | undefined;
let report = new Map<string, string>();
let evaluatedWith: string[] = [];

before(async () => {
  backends = await Promise.all(SERVICES.map((s) => startBackend(s)));
  dir = await fixtureCopy(new Map(backends.map((b) => [b.id, b.port])));
  const r = await portico(['migrate-check', '--manifests', dir, '--json']);
  report = verdicts(r.stdout);
  evaluatedWith = (JSON.parse(r.stdout) as { evaluatedWith: string[] }).evaluatedWith;
  p = await startPortico(['--manifests', dir, ...evaluatedWith]);
});

after(async () => {
  await p?.stop();
  await Promise.all(backends.map((b) => b.close()));
  await rm(dir, { recursive: true, force: true });
});

async function answer(name: string): Promise<string> {
  const probe = PROBES[name];
  assert.ok(probe && p, `a probe for ${name}`);
  const r = await get(p.http, probe.host, probe.path, { headers: probe.headers ?? {} });
  return r.status === 200 && typeof r.headers['x-backend'] === 'string' ? r.headers['x-backend'] : String(r.status);
}

void test("the controller is run with the flags the report evaluated with (ingress-nginx's class, its ConfigMap, its tcp-services)", () => {
  assert.deepEqual(evaluatedWith, [
    '--controller-class=k8s.io/ingress-nginx',
    '--ingress-class=nginx',
    '--configmap=ingress-nginx/ingress-nginx-controller',
    '--watch-ingress-without-class=true',
    '--tcp-services-configmap=ingress-nginx/tcp-services',
  ]);
});

void test('every Ingress the report calls served is served by the controller; every skipped one answers 404', async () => {
  assert.ok(p);
  await until('the folder is served', async () => (await who(p!.http, 'docs.example.com', '/')) === 'docs', 10_000);
  const seen = new Map<string, string>();
  for (const name of Object.keys(PROBES)) {
    const got = await answer(name);
    const verdict = report.get(name);
    seen.set(name, verdict === undefined ? 'not reported' : verdict === 'skipped' ? 'skipped' : 'served');
    // Served: not the 404 of an unmatched host (an Ingress served differently may answer otherwise, e.g. its auth
    // service's error); served as is: its own backend answers.
    const controller = got === '404' ? 'skipped' : 'served';
    assert.equal(controller, seen.get(name) === 'not reported' ? 'skipped' : seen.get(name), `${name}: the report says ${verdict ?? 'nothing'}, the controller answered ${got}`);
    if (verdict === 'served') assert.equal(got, PROBES[name]?.backend, `${name}: served by its own backend`);
  }
  assert.deepEqual(
    [...report.keys()].sort(),
    Object.keys(PROBES)
      .filter((n) => n !== 'other/internal')
      .sort(),
    "the report covers the class's Ingresses, and only them",
  );
  assert.ok([...seen.values()].includes('skipped') && [...seen.values()].includes('served'), 'the folder has both');
});

void test("a served Ingress's refused path and its unknown annotation behave as reported", async () => {
  assert.ok(p);
  assert.equal(report.get('team/catch-all'), 'served-differently');
  assert.equal(await answer('team/catch-all'), 'web', 'the refused regex path captures nothing');
  assert.equal(report.get('team/docs'), 'served-differently');
  assert.equal(await answer('team/docs'), 'docs', 'the misspelt rewrite-target annotation changes nothing');
});
