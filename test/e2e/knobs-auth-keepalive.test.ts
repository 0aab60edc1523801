// auth-keepalive through real nginx, a documented no-op (table-without-setting.ts says why: auth_request's header-only subrequest
// never returns its connection to a pool): validated as ingress-nginx does, the auth answer decides, and each auth
// request opens its own connection, with or without the annotation; a value that is not an integer is refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';

void describe('auth-keepalive (real nginx)', () => {
  let dir: ManifestDir;
  let app: Backend;
  let auth: Server;
  let authPort = 0;
  let connections = 0;
  let portico: Running;
  const site = (name: string, url: string, extra: Record<string, string> = {}): unknown =>
    ingress(name, { host: `${name}.test`, className: 'portico', annotations: { [`${P}/auth-url`]: url, ...extra }, paths: [{ path: '/', type: 'Prefix', service: 'app' }] });

  before(async () => {
    dir = await manifestFolder();
    app = await startBackend('app');
    auth = createServer((req, res) => {
      res.writeHead(req.headers['x-original-url']?.includes('/deny') ? 403 : 200);
      res.end();
    });
    auth.keepAliveTimeout = 60_000;
    auth.on('connection', () => {
      connections += 1;
    });
    await new Promise<void>((resolve) => {
      auth.listen(0, '127.0.0.1', resolve);
    });
    authPort = (auth.address() as AddressInfo).port;
    await dir.write('backends.json', backendObjects('app', app.port));
    await dir.write('ingresses.json', [
      site('kept', `http://127.0.0.1:${authPort}/check`, {
        [`${P}/auth-keepalive`]: '4',
        [`${P}/auth-keepalive-requests`]: '100',
        [`${P}/auth-keepalive-timeout`]: '30',
        [`${P}/auth-keepalive-share-vars`]: 'true',
      }),
      site('fresh', `http://127.0.0.1:${authPort}/check`),
      site('bad', `http://127.0.0.1:${authPort}/check`, { [`${P}/auth-keepalive`]: 'many' }),
    ]);
    portico = await startPortico(['--manifests', dir.dir]);
    await until('served', async () => (await get(portico.http, 'kept.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico?.stop();
    await app?.close();
    await new Promise<void>((resolve) => {
      auth.closeAllConnections();
      auth.close(() => {
        resolve();
      });
    });
    await dir?.remove();
  });

  /** New connections the auth service saw during `n` sequential requests to `host`, each answered `status`. */
  async function during(host: string, n: number, path = '/'): Promise<{ opened: number; statuses: number[] }> {
    const start = connections;
    const statuses: number[] = [];
    for (let i = 0; i < n; i += 1) statuses.push((await get(portico.http, host, path)).status);
    return { opened: connections - start, statuses };
  }

  void it('with auth-keepalive (a no-op) the auth answer decides and each auth request opens its own connection, as without', async () => {
    const kept = await during('kept.test', 5);
    const fresh = await during('fresh.test', 5);
    assert.deepEqual([kept.statuses, fresh.statuses], [Array<number>(5).fill(200), Array<number>(5).fill(200)]);
    assert.deepEqual([kept.opened, fresh.opened], [5, 5]);
    assert.equal((await get(portico.http, 'kept.test', '/deny')).status, 403);
  });

  // auth-keepalive fails open (docs/adr/0016; the Ingress used to be left unserved): it only tunes connections,
  // and the Ingress is served without it, its auth-url still deciding every request.
  void it('an auth-keepalive that is not an integer is left out, naming the Ingress and the annotation; auth still decides', async () => {
    assert.equal((await get(portico.http, 'bad.test', '/')).status, 200);
    assert.equal((await get(portico.http, 'bad.test', '/deny')).status, 403);
    assert.ok(
      portico.output.some(
        (l) => l.includes('default/bad') && l.includes(`${P}/auth-keepalive`) && l.includes('many') && l.includes('is not an integer') && l.includes('served without this annotation'),
      ),
    );
  });
});
