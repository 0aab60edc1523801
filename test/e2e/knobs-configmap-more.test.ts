// More global ConfigMap keys through real nginx: global-allowed-response-headers gates custom-headers (exact names),
// proxy-max-temp-file-size is checked against the ConfigMap's proxy-buffer-size, an empty no-auth-locations means no
// location (ACME paths then pass global auth too), and enable-syslog sends the access log to a UDP syslog server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';

void describe('more global ConfigMap keys (real nginx)', () => {
  let dir: ManifestDir;
  let app: Backend;
  let auth: Server;
  let syslog: Socket;
  const lines: string[] = [];
  let portico: Running;
  const site = (name: string, annotations: Record<string, string>, path = '/'): unknown =>
    ingress(name, { host: `${name}.test`, className: 'portico', annotations, paths: [{ path, type: 'Prefix', service: 'app' }] });

  before(async () => {
    dir = await manifestFolder();
    app = await startBackend('app');
    // Global auth stand-in: ACME challenge paths are refused, everything else passes.
    auth = createServer((req, res) => {
      res.writeHead(String(req.headers['x-original-url']).includes('acme-challenge') ? 403 : 200);
      res.end();
    });
    await new Promise<void>((resolve) => {
      auth.listen(0, '127.0.0.1', resolve);
    });
    syslog = createSocket('udp4');
    syslog.on('message', (m) => {
      if (lines.length < 1000) lines.push(m.toString('utf8'));
    });
    await new Promise<void>((resolve) => {
      syslog.bind(0, '127.0.0.1', resolve);
    });
    await dir.write('backends.json', backendObjects('app', app.port));
    await dir.write('cms.json', [
      configMap('allowed-hdrs', { 'X-Allowed': 'yes' }),
      configMap('stray-hdrs', { 'X-Allowed': 'yes', 'x-allowed': 'case' }),
      configMap(
        'portico',
        {
          'global-allowed-response-headers': 'X-Allowed, X-Other',
          'proxy-buffer-size': '16k',
          'no-auth-locations': '',
          'global-auth-url': `http://127.0.0.1:${(auth.address() as AddressInfo).port}/check`,
          'enable-syslog': 'true',
          'syslog-host': '127.0.0.1',
          'syslog-port': String(syslog.address().port),
        },
        'kube-system',
      ),
    ]);
    await dir.write('ingresses.json', [
      site('hdr', { [`${P}/custom-headers`]: 'allowed-hdrs' }),
      site('stray', { [`${P}/custom-headers`]: 'stray-hdrs' }),
      site('tmp', { [`${P}/proxy-max-temp-file-size`]: '8k' }),
      site('tmpok', { [`${P}/proxy-max-temp-file-size`]: '1g' }),
      site('acme', {}, '/.well-known/acme-challenge'),
    ]);
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'kube-system/portico']);
    await until('served', async () => (await get(portico.http, 'hdr.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico?.stop();
    await app?.close();
    await new Promise<void>((resolve) => {
      auth.close(() => {
        resolve();
      });
    });
    syslog?.close();
    await dir?.remove();
  });

  void it('custom-headers: an allowed header is sent; a name not in global-allowed-response-headers (exact case) refuses the Ingress, naming it', async () => {
    assert.equal((await get(portico.http, 'hdr.test', '/')).headers['x-allowed'], 'yes');
    assert.equal((await get(portico.http, 'stray.test', '/')).status, 404);
    assert.ok(portico.output.some((l) => l.includes('default/stray') && l.includes('header x-allowed is not in') && l.includes('global-allowed-response-headers')));
  });

  // The annotation fails open (docs/adr/0016): the Ingress is served without it, with a Warning naming why.
  void it("proxy-max-temp-file-size below the ConfigMap's proxy-buffer-size is refused, its Ingress served without it; 1g is taken as 1024m", async () => {
    assert.equal((await get(portico.http, 'tmp.test', '/')).status, 200);
    assert.ok(portico.output.some((l) => l.includes('default/tmp') && l.includes('below the proxy buffer size 16k') && l.includes('served without this annotation')));
    assert.equal((await get(portico.http, 'tmpok.test', '/')).status, 200);
  });

  void it('no-auth-locations "" means none: an ACME challenge path is asked of global auth (default: it is not)', async () => {
    assert.equal((await get(portico.http, 'acme.test', '/.well-known/acme-challenge/token')).status, 403);
  });

  void it('enable-syslog: each access log line reaches the UDP syslog server, as a syslog message', async () => {
    await get(portico.http, 'hdr.test', '/syslog-probe');
    await until('the line', () => lines.some((l) => l.includes('/syslog-probe')), 10_000, 50);
    assert.match(lines.find((l) => l.includes('/syslog-probe')) ?? '', /^<\d+>/);
  });
});
