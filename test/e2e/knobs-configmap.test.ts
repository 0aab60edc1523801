// ConfigMap keys operators depend on, through real nginx: the client address behind a trusted and an untrusted proxy,
// large request headers, custom error pages from the default backend, global auth, upstream keepalive, gzip, hidden
// headers and skipped access-log URLs; a refused key is a Warning naming the ConfigMap.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';

void describe('global ConfigMap keys (real nginx)', () => {
  let dir: ManifestDir;
  let app: Backend;
  let errors: Backend;
  let auth: Server;
  let authPort = 0;
  const peers = new Set<number>();
  let portico: Running;
  const cm = (data: Record<string, string>) => configMap('portico', data, 'kube-system');
  const base = (): Record<string, string> => ({
    'use-forwarded-headers': 'true',
    'proxy-real-ip-cidr': '127.0.0.1/32',
    'large-client-header-buffers': '4 16k',
    'custom-http-errors': '404',
    'global-auth-url': `http://127.0.0.1:${authPort}/check`,
    'upstream-keepalive-connections': '8',
    'use-gzip': 'true',
    'gzip-min-length': '10',
    'hide-headers': 'X-Secret',
    'skip-access-log-urls': '/healthz',
    'enable-modsecurity': 'true',
  });

  before(async () => {
    dir = await manifestFolder();
    app = await startBackend('app');
    errors = await startBackend('errors');
    app.server.on('connection', (s) => {
      peers.add(s.remotePort ?? 0);
    });
    // The auth stand-in, also a backend answering 404 on /missing (for custom-http-errors).
    auth = createServer((req, res) => {
      const check = req.headers['x-original-url'];
      res.writeHead(check === undefined ? (req.url === '/missing' ? 404 : 200) : check.includes('/deny') ? 403 : 200);
      res.end();
    });
    await new Promise<void>((resolve) => auth.listen(0, '127.0.0.1', resolve));
    authPort = (auth.address() as AddressInfo).port;
    await dir.write('backends.json', [...backendObjects('app', app.port), ...backendObjects('errors', errors.port, 'kube-system'), ...backendObjects('plain', authPort)]);
    await dir.write('ingresses.json', [
      ingress('app', { host: 'app.test', className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'app' }] }),
      ingress('open', { host: 'open.test', className: 'portico', annotations: { [`${P}/enable-global-auth`]: 'false' }, paths: [{ path: '/', type: 'Prefix', service: 'app' }] }),
      ingress('nf', { host: 'nf.test', className: 'portico', annotations: { [`${P}/enable-global-auth`]: 'false' }, paths: [{ path: '/', type: 'Prefix', service: 'plain' }] }),
    ]);
    await dir.write('cm.json', [cm(base())]);
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'kube-system/portico', '--default-backend-service', 'kube-system/errors']);
    await until('served', async () => (await get(portico.http, 'app.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico.stop();
    await app.close();
    await errors.close();
    await new Promise<void>((resolve) => {
      auth.close(() => {
        resolve();
      });
    });
    await dir.remove();
  });

  void it('behind a trusted proxy the client address is X-Forwarded-For; an untrusted one is not believed', async () => {
    await get(portico.http, 'app.test', '/', { headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(app.seen.at(-1)?.headers['x-real-ip'], '203.0.113.7');
    await dir.write('cm.json', [cm({ ...base(), 'proxy-real-ip-cidr': '10.0.0.0/8' })]);
    await until(
      'reconfigured',
      async () => {
        await get(portico.http, 'app.test', '/', { headers: { 'x-forwarded-for': '203.0.113.7' } });
        return app.seen.at(-1)?.headers['x-real-ip'] === '127.0.0.1';
      },
      10_000,
      100,
    );
    await dir.write('cm.json', [cm(base())]);
    await until(
      'restored',
      async () => {
        await get(portico.http, 'app.test', '/', { headers: { 'x-forwarded-for': '203.0.113.7' } });
        return app.seen.at(-1)?.headers['x-real-ip'] === '203.0.113.7';
      },
      10_000,
      100,
    );
  });

  void it('large-client-header-buffers: a 12 KiB header is taken with 4 16k', async () => {
    assert.equal((await get(portico.http, 'app.test', '/', { headers: { 'x-big': 'a'.repeat(12 * 1024) } })).status, 200);
  });

  void it('global auth applies unless the Ingress opts out; custom-http-errors go to the default backend', async () => {
    assert.equal((await get(portico.http, 'app.test', '/deny')).status, 403);
    assert.equal((await get(portico.http, 'open.test', '/deny')).status, 200);
    const r = await get(portico.http, 'nf.test', '/missing');
    assert.deepEqual([r.headers['x-backend'], errors.seen.at(-1)?.headers['x-code'], errors.seen.at(-1)?.headers['x-ingress-name']], ['errors', '404', 'nf']);
  });

  void it('upstream keepalive reuses backend connections; gzip, hide-headers', async () => {
    const start = peers.size;
    for (let i = 0; i < 20; i += 1) await get(portico.http, 'open.test', '/');
    assert.ok(peers.size - start <= 2, `${peers.size - start} new backend connections for 20 requests`);
    const z = await get(portico.http, 'open.test', '/', { headers: { 'accept-encoding': 'gzip' } });
    assert.equal(z.headers['content-encoding'], 'gzip');
  });

  void it('a refused key is a Warning naming the ConfigMap and the key', () => {
    assert.ok(portico.output.some((l) => l.includes('ConfigMap kube-system/portico') && l.includes('data.enable-modsecurity') && l.includes('ModSecurity')));
  });
});
