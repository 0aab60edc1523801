// End to end, local mode, real nginx, --enable-dynamic-routes (docs/adr/0014): Ingresses, hosts, paths, backends and a
// TLS host added, changed and removed while Portico runs are served right away with 0 reloads (the nginx master and
// its workers keep their PIDs, portico_reloads_total stays); a new annotation block costs one reload (its profile),
// the same block on another Ingress none.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { ingress, type PathSpec } from '../support/objects.js';
import { manifestFolder, serviceFor, type ManifestDir } from '../support/manifests.js';
import { get, metric, startPortico, syncCount, until, who, type Running, untilServed } from '../support/portico.js';
import { nginxWorkers, tlsSecret } from '../support/tls-manifests.js';
import { httpsGet, makeCert, type Pem } from '../support/certs.js';

describe('route changes through the Lua route table, without reloads', () => {
  let backends: Backend[] = [];
  let folder: ManifestDir;
  let portico: Running;
  let certDir = '';
  let cert: Pem;
  let pids: { master: number | undefined; workers: number[] };
  let reloads = 0;

  const one = (paths: PathSpec[], annotations?: Record<string, string>): unknown => ingress('one', { className: 'portico', host: 'one.test', paths, ...(annotations ? { annotations } : {}) });
  const served = (what: string, cases: readonly [string, string, string][]): Promise<void> => untilServed(portico.http, what, cases);

  before(async () => {
    backends = await Promise.all(['a', 'b', 'c'].map((id) => startBackend(id)));
    certDir = await mkdtemp(join(tmpdir(), 'portico-dyn-certs-'));
    cert = makeCert(certDir, 'secure.test', { sans: ['secure.test'] });
    folder = await manifestFolder();
    await folder.write('services.json', [...serviceFor('a', [backends[0]!]), ...serviceFor('b', [backends[1]!]), ...serviceFor('c', [backends[2]!]), tlsSecret('secure-cert', cert)]);
    await folder.write('one.json', [one([{ path: '/', type: 'Prefix', service: 'a' }])]);
    portico = await startPortico(['--manifests', folder.dir, '--enable-dynamic-routes']);
    await served('the first Ingress', [['one.test', '/', 'a']]);
    pids = nginxWorkers(portico.proc.pid ?? 0);
    reloads = await metric(portico, 'portico_reloads_total');
    assert.ok(pids.master !== undefined && pids.workers.length > 0, 'nginx master and workers found');
  });

  after(async () => {
    await portico?.stop();
    await Promise.all(backends.map((b) => b.close()));
    await folder?.remove();
    await rm(certDir, { recursive: true, force: true });
  });

  test('an Ingress with a new host is served, element-wise prefixes and all', async () => {
    await folder.write('two.json', [ingress('two', { className: 'portico', host: 'two.test', paths: [{ path: '/api', type: 'Prefix', service: 'b' }] })]);
    await served('two.test', [
      ['two.test', '/api/x', 'b'],
      ['two.test', '/api', 'b'],
      ['two.test', '/apix', '404'],
      ['one.test', '/apix', 'a'],
    ]);
  });

  test('a path added to an Ingress, Exact before Prefix, then removed', async () => {
    await folder.write('one.json', [
      one([
        { path: '/', type: 'Prefix', service: 'a' },
        { path: '/v1', type: 'Exact', service: 'c' },
      ]),
    ]);
    await served('the Exact path', [
      ['one.test', '/v1', 'c'],
      ['one.test', '/v1/x', 'a'],
      ['one.test', '/v1/', 'a'],
    ]);
    await folder.write('one.json', [one([{ path: '/', type: 'Prefix', service: 'a' }])]);
    await served('the path removed', [['one.test', '/v1', 'a']]);
  });

  test('a backend changed under a path', async () => {
    await folder.write('two.json', [ingress('two', { className: 'portico', host: 'two.test', paths: [{ path: '/api', type: 'Prefix', service: 'c' }] })]);
    await served('the new backend', [['two.test', '/api/x', 'c']]);
  });

  test('a one-label wildcard host is added', async () => {
    await folder.write('wild.json', [ingress('wild', { className: 'portico', host: '*.wild.test', paths: [{ path: '/', type: 'Prefix', service: 'b' }] })]);
    await served('the wildcard', [
      ['x.wild.test', '/', 'b'],
      ['y.x.wild.test', '/', '404'],
      ['wild.test', '/', '404'],
    ]);
  });

  test('per-request metrics carry the labels of the route the router picked (Ingress, Service, rule host)', async () => {
    for (let i = 0; i < 3; i += 1) assert.equal(await who(portico.http, 'zz.wild.test', '/m'), 'b');
    const line = (text: string): string | undefined =>
      text
        .split('\n')
        .find((l) => l.startsWith('nginx_ingress_controller_requests{') && l.includes('host="*.wild.test"') && l.includes('ingress="wild"') && l.includes('service="b"') && l.includes('status="200"'));
    await until('the metrics flush', async () => line(await (await fetch(`http://127.0.0.1:${portico.healthz}/metrics`)).text()) !== undefined, 10_000, 200);
  });

  test('a TLS host with ssl-redirect: 308 to HTTPS, served over HTTPS with HSTS', async () => {
    const secure = ingress('secure', { className: 'portico', host: 'secure.test', paths: [{ path: '/', type: 'Prefix', service: 'a' }] });
    await folder.write('secure.json', [{ ...secure, spec: { ...secure.spec, tls: [{ hosts: ['secure.test'], secretName: 'secure-cert' }] } }]);
    await until('the redirect', async () => (await get(portico.http, 'secure.test', '/p?q=1')).status === 308);
    const r = await get(portico.http, 'secure.test', '/p?q=1');
    assert.equal(r.headers.location, 'https://secure.test/p?q=1');
    await until('the certificate', async () => (await httpsGet(portico.https, 'secure.test', '/')).headers['x-backend'] === 'a');
    const s = await httpsGet(portico.https, 'secure.test', '/');
    assert.match(String(s.headers['strict-transport-security']), /^max-age=\d+/);
    const plain = await get(portico.http, 'one.test', '/');
    assert.equal(plain.headers['strict-transport-security'], undefined, 'no HSTS for a host without TLS');
  });

  test('a canary Ingress on a dynamic host: by header to the canary, else the main backend', async () => {
    const c = 'nginx.ingress.kubernetes.io';
    await folder.write('canary.json', [
      ingress('main', { className: 'portico', host: 'canary.test', paths: [{ path: '/', type: 'Prefix', service: 'a' }] }),
      ingress('main-canary', {
        className: 'portico',
        host: 'canary.test',
        created: '2026-02-01T00:00:00Z',
        paths: [{ path: '/', type: 'Prefix', service: 'c' }],
        annotations: { [`${c}/canary`]: 'true', [`${c}/canary-by-header`]: 'X-Canary' },
      }),
    ]);
    const backendOf = async (headers: Record<string, string>): Promise<string> => String((await get(portico.http, 'canary.test', '/x', { headers })).headers['x-backend']);
    await until('the canary', async () => (await backendOf({ 'x-canary': 'always' })) === 'c');
    assert.equal(await backendOf({ 'x-canary': 'never' }), 'a');
    assert.equal(await backendOf({}), 'a');
  });

  test('an Ingress removed: its host answers the default backend', async () => {
    await rm(join(folder.dir, 'two.json'));
    await served('two.test removed', [
      ['two.test', '/api/x', '404'],
      ['one.test', '/api/x', 'a'],
    ]);
  });

  test('all of it with 0 reloads: same nginx master and workers, portico_reloads_total unchanged', async () => {
    assert.equal(await metric(portico, 'portico_reloads_total'), reloads);
    assert.deepEqual(nginxWorkers(portico.proc.pid ?? 0), pids);
    assert.ok(syncCount(portico.output, 'dynamic') >= 7, 'each change was a dynamic sync');
    const conf = await readFile(join(portico.workDir, 'nginx.conf'), 'utf8');
    assert.doesNotMatch(conf, /one\.test|two\.test|secure\.test|canary\.test/, 'no host of the dynamic set is in nginx.conf');
  });

  test('an annotation that renders a directive: one reload for its new profile location, then the same annotation on another Ingress is a push', async () => {
    const moved = { 'nginx.ingress.kubernetes.io/permanent-redirect': 'https://example.org/moved' };
    const redirected = async (h: string): Promise<boolean> => {
      const r = await get(portico.http, h, '/');
      return r.status === 301 && r.headers.location === 'https://example.org/moved';
    };
    await folder.write('one.json', [
      one(
        [
          { path: '/', type: 'Prefix', service: 'a' },
          { path: '/v2', type: 'Prefix', service: 'b' },
        ],
        moved,
      ),
    ]);
    await until('one.test redirected', () => redirected('one.test'));
    assert.equal(await who(portico.http, 'x.wild.test', '/'), 'b', 'other hosts keep their answers');
    assert.equal(await metric(portico, 'portico_reloads_total'), reloads + 1, 'one reload: the new profile location');
    const conf = await readFile(join(portico.workDir, 'nginx.conf'), 'utf8');
    assert.doesNotMatch(conf, /one\.test/, 'the host stays in the route table');
    assert.match(conf, /location @portico_profile_[0-9a-f]+ \{/);
    await folder.write('three.json', [ingress('three', { className: 'portico', host: 'three.test', paths: [{ path: '/', type: 'Prefix', service: 'c' }], annotations: moved })]);
    await until('three.test redirected', () => redirected('three.test'));
    assert.equal(await metric(portico, 'portico_reloads_total'), reloads + 1, 'the same annotation: the same profile, no reload');
  });
});
