// Routing and proxy annotations against real nginx: rewrite, app-root, redirects, 413, timeouts, error pages, snippets.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBackend, type Backend } from '../support/backends.js';
import { get, startPortico, syncCount, until, type Running } from '../support/portico.js';
import { ingress } from '../support/objects.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';

const P = 'nginx.ingress.kubernetes.io';

/** A backend that answers `status` after `delayMs` (slow or failing backends). */
async function startStatic(status: number, delayMs = 0): Promise<{ port: number; server: Server }> {
  const server = createServer((_req, res) => {
    setTimeout(() => {
      res.writeHead(status, { 'x-backend': `static-${status}` });
      res.end(`status ${status}\n`);
    }, delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { port: (server.address() as AddressInfo).port, server };
}

void describe('routing and proxy annotations (real nginx)', () => {
  let dir: ManifestDir;
  let portico: Running;
  let echo: Backend;
  let errors: Backend;
  const statics: Server[] = [];

  before(async () => {
    dir = await manifestFolder();
    echo = await startBackend('echo');
    errors = await startBackend('errors');
    const slow = await startStatic(200, 3000);
    const missing = await startStatic(404);
    statics.push(slow.server, missing.server);
    const ing = (name: string, host: string, annotations: Record<string, string>, path = '/', service = 'echo') =>
      ingress(name, { host, className: 'portico', annotations, paths: [{ path, type: 'ImplementationSpecific', service }] });
    await dir.write('backends.json', [
      ...backendObjects('echo', echo.port),
      ...backendObjects('errors', errors.port),
      ...backendObjects('slow', slow.port),
      ...backendObjects('missing', missing.port),
      configMap('portico', { 'proxy-body-size': '2k', 'no-such-key': 'x', 'allow-snippet-annotations': 'true' }),
    ]);
    await dir.write('ingresses.json', [
      ing('rewrite', 'rewrite.test', { [`${P}/use-regex`]: 'true', [`${P}/rewrite-target`]: '/$2' }, '/something(/|$)(.*)'),
      ing('approot', 'approot.test', { [`${P}/app-root`]: '/app1' }),
      ing('perm', 'perm.test', { [`${P}/permanent-redirect`]: 'https://example.com/new', [`${P}/permanent-redirect-code`]: '308' }),
      ing('temp', 'temp.test', { [`${P}/temporal-redirect`]: 'https://example.com/tmp' }),
      ing('body', 'body.test', { [`${P}/proxy-body-size`]: '1k' }),
      ing('globalbody', 'globalbody.test', {}),
      ing('timeout', 'timeout.test', { [`${P}/proxy-read-timeout`]: '1' }, '/', 'slow'),
      ing('errors', 'errors.test', { [`${P}/custom-http-errors`]: '404', [`${P}/default-backend`]: 'errors' }, '/', 'missing'),
      // Outside the allowlist of --snippet-mode=safe (the default): proxy_pass.
      ing('snippet', 'snippet.test', { [`${P}/configuration-snippet`]: 'return 200 "owned";\nproxy_pass http://127.0.0.1:1/;' }),
      ing('headers', 'headers.test', { [`${P}/upstream-vhost`]: 'internal.example', [`${P}/x-forwarded-prefix`]: '/pre' }),
    ]);
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'default/portico']);
    await until('ingresses served', async () => (await get(portico.http, 'approot.test', '/')).status === 302, 20_000);
  });

  after(async () => {
    await portico.stop();
    await echo.close();
    await errors.close();
    for (const s of statics) {
      s.closeAllConnections();
      s.close();
    }
    await dir.remove();
  });

  void it('rewrite-target with capture groups', async () => {
    const r = await get(portico.http, 'rewrite.test', '/something/deep/path?q=1');
    assert.equal(r.status, 200);
    assert.equal((JSON.parse(r.body) as { url: string }).url, '/deep/path?q=1');
    assert.equal((JSON.parse((await get(portico.http, 'rewrite.test', '/SOMETHING')).body) as { url: string }).url, '/');
  });

  void it('app-root redirects / only', async () => {
    const r = await get(portico.http, 'approot.test', '/');
    assert.equal(r.status, 302);
    assert.equal(r.headers.location, 'http://approot.test/app1');
    assert.equal((await get(portico.http, 'approot.test', '/app1')).status, 200);
  });

  void it('permanent-redirect with its code, temporal-redirect with 302', async () => {
    const p = await get(portico.http, 'perm.test', '/x');
    assert.deepEqual([p.status, p.headers.location], [308, 'https://example.com/new']);
    const t = await get(portico.http, 'temp.test', '/x');
    assert.deepEqual([t.status, t.headers.location], [302, 'https://example.com/tmp']);
  });

  void it('413 above proxy-body-size (annotation 1k, ConfigMap 2k)', async () => {
    const post = (host: string, n: number) => get(portico.http, host, '/', { method: 'POST', body: 'x'.repeat(n) });
    assert.equal((await post('body.test', 1000)).status, 200);
    assert.equal((await post('body.test', 1500)).status, 413);
    assert.equal((await post('globalbody.test', 1500)).status, 200);
    assert.equal((await post('globalbody.test', 2500)).status, 413);
  });

  void it('proxy-read-timeout cuts a slow backend with 504', async () => {
    const started = Date.now();
    const r = await get(portico.http, 'timeout.test', '/');
    assert.equal(r.status, 504);
    assert.ok(Date.now() - started < 2900, `took ${Date.now() - started} ms`);
  });

  void it('custom-http-errors go to the default-backend annotation with X-Code', async () => {
    const r = await get(portico.http, 'errors.test', '/nope');
    assert.equal(r.headers['x-backend'], 'errors');
    const seen = JSON.parse(r.body) as { headers: Record<string, string> };
    assert.equal(seen.headers['x-code'], '404');
    assert.equal(seen.headers['x-ingress-name'], 'errors');
    assert.equal(seen.headers['x-original-uri'], '/nope');
  });

  void it('upstream-vhost and x-forwarded-prefix reach the backend, other headers kept', async () => {
    const seen = JSON.parse((await get(portico.http, 'headers.test', '/')).body) as { headers: Record<string, string> };
    assert.equal(seen.headers.host, 'internal.example');
    assert.equal(seen.headers['x-forwarded-prefix'], '/pre');
    assert.equal(seen.headers['x-forwarded-host'], 'headers.test');
  });

  void it('a snippet is refused: the Ingress is not served and the log names the annotation', async () => {
    const r = await get(portico.http, 'snippet.test', '/');
    assert.notEqual(r.body, 'owned');
    assert.equal(r.status, 404);
    assert.ok(portico.output.some((l) => l.includes('configuration-snippet') && l.includes('directive proxy_pass at line 2 is not on the allowlist')));
    assert.ok(portico.output.some((l) => l.includes('unknown key no-such-key')));
  });

  // app-root fails open (docs/adr/0016; it used to keep the last valid form): the Ingress is served without it.
  void it('an invalid new app-root is left out with a Warning; others keep updating', async () => {
    const syncs = (): number => syncCount(portico.output, 'reload') + syncCount(portico.output, 'dynamic');
    const before = syncs();
    await dir.write('ingresses.json', [
      ingress('approot', { host: 'approot.test', className: 'portico', annotations: { [`${P}/app-root`]: '/app1"; return 200 "x' }, paths: [{ path: '/', type: 'Prefix', service: 'echo' }] }),
      ingress('fresh', { host: 'fresh.test', className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'echo' }] }),
    ]);
    // The catch-all may answer 200 too (default backend): wait for the sync itself, seen in rewrite.test's removal and
    // its log line, written once the whole sync is applied: rewrite.test's server block goes with a reload, and
    // fresh.test, a row of the route table (dynamic routes, the default), is pushed after it (docs/adr/0014).
    await until('the new file applied', async () => syncs() > before && (await get(portico.http, 'rewrite.test', '/something/x')).status === 404, 20_000);
    assert.equal(
      (await get(portico.http, 'fresh.test', '/')).status,
      200,
      portico.output
        .filter((l) => !l.includes('"nginx"'))
        .slice(-6)
        .join('\n'),
    );
    const r = await get(portico.http, 'approot.test', '/');
    assert.deepEqual([r.status, r.headers.location], [200, undefined]);
    assert.ok(portico.output.some((l) => l.includes('app-root') && l.includes('served without this annotation')));
    assert.equal((await get(portico.http, 'rewrite.test', '/something/x')).status, 404);
  });
});
