// backend-protocol FCGI and AUTO_HTTP through real nginx: a FastCGI responder written here gets the standard CGI
// parameters and the fastcgi-params-configmap's (quotes kept literal, variables expanded), fastcgi-index applies;
// a ConfigMap naming a variable outside the list is refused; AUTO_HTTP speaks to the backend as the client spoke.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createHttp, type Server as HttpServer } from 'node:http';
import { createServer as createHttps, type Server as HttpsServer } from 'node:https';
import { createServer as createNet, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { Duplex } from 'node:stream';
import { join } from 'node:path';
import { startFcgiResponder, type FcgiRequest, type FcgiResponder } from '../support/fastcgi-responder.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { httpsGet, makeCert } from '../support/certs.js';

const P = 'nginx.ingress.kubernetes.io';

/** One port answering both HTTP and HTTPS (by the first byte: 0x16 starts a TLS handshake) with the protocol it saw. */
async function bothProtocols(dir: string): Promise<{ port: number; close: () => Promise<void> }> {
  const pem = makeCert(dir, 'backend.test', { sans: ['backend.test'] });
  const answer =
    (proto: string) =>
    (_: unknown, res: import('node:http').ServerResponse): void => {
      res.writeHead(200);
      res.end(proto);
    };
  const plain: HttpServer = createHttp(answer('http'));
  const tls: HttpsServer = createHttps({ cert: pem.cert, key: pem.key }, answer('https'));
  const sockets = new Set<Socket>();
  const front: NetServer = createNet((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => {
      s.destroy();
    });
    s.once('data', (first: Buffer) => {
      // A stream in front of the socket, so the first bytes read are handed on (TLS would read the handle directly).
      const d = new Duplex({
        read: () => {
          s.resume();
        },
        write: (chunk: Buffer, _e, cb) => {
          if (s.writable) s.write(chunk);
          cb();
        },
        final: (cb) => {
          s.end();
          cb();
        },
        destroy: (err, cb) => {
          s.destroy();
          cb(err);
        },
      });
      d.on('error', () => {
        s.destroy();
      });
      d.push(first);
      s.on('data', (c: Buffer) => {
        if (!d.push(c)) s.pause();
      });
      s.on('end', () => {
        d.push(null);
      });
      (first[0] === 0x16 ? tls : plain).emit('connection', d);
    });
  });
  await new Promise<void>((resolve) => {
    front.listen(0, '127.0.0.1', resolve);
  });
  return {
    port: (front.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        front.close(() => {
          resolve();
        });
      }),
  };
}

void describe('backend-protocol FCGI and AUTO_HTTP (real nginx)', () => {
  let dir: ManifestDir;
  let certs: string;
  let fcgi: FcgiResponder;
  let both: { port: number; close: () => Promise<void> };
  let portico: Running;
  const fcgiAnn = (cm: string): Record<string, string> => ({ [`${P}/backend-protocol`]: 'FCGI', [`${P}/fastcgi-index`]: 'index.php', [`${P}/fastcgi-params-configmap`]: cm });
  const at = (name: string, host: string, svc: string, annotations: Record<string, string>): unknown =>
    ingress(name, { host, className: 'portico', annotations, paths: [{ path: '/', type: 'Prefix', service: svc }] });

  before(async () => {
    dir = await manifestFolder();
    certs = mkdtempSync(join(tmpdir(), 'portico-fcgi-certs-'));
    fcgi = await startFcgiResponder();
    both = await bothProtocols(certs);
    await dir.write('backends.json', [...backendObjects('php', fcgi.port), ...backendObjects('both', both.port)]);
    await dir.write('cms.json', [
      configMap('php-params', { SCRIPT_FILENAME: '/srv/www$fastcgi_script_name', HTTP_PROXY: '', APP_NOTE: 'say "hi"; return 200 x', SERVER_NAME: 'fixed.test' }),
      configMap('evil-params', { SCRIPT_FILENAME: '$portico_auth_url' }),
    ]);
    await dir.write('ingresses.json', [
      at('php', 'php.test', 'php', fcgiAnn('php-params')),
      at('evil', 'evil.test', 'php', fcgiAnn('evil-params')),
      at('auto', 'auto.test', 'both', { [`${P}/backend-protocol`]: 'AUTO_HTTP' }),
    ]);
    portico = await startPortico(['--manifests', dir.dir]);
    await until('php.test served', async () => (await get(portico.http, 'php.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico?.stop();
    await fcgi?.close();
    await both?.close();
    await dir?.remove();
    rmSync(certs, { recursive: true, force: true });
  });

  // HTTP_PROXY "" is the httpoxy mitigation ingress-nginx's guide shows: the client's Proxy header never reaches the app.
  void it("FCGI: the responder gets the standard parameters, the ConfigMap's (quotes literal, variables expanded) and fastcgi-index", async () => {
    const r = await get(portico.http, 'php.test', '/shop/?q=1', { method: 'POST', body: 'a=b', headers: { 'content-type': 'application/x-www-form-urlencoded', proxy: 'http://attacker.test' } });
    assert.equal(r.status, 200);
    assert.equal(r.headers['x-responder'], 'fastcgi');
    const seen = JSON.parse(r.body) as FcgiRequest;
    const p = seen.params;
    assert.deepEqual(
      [p.SCRIPT_FILENAME, p.SCRIPT_NAME, p.HTTP_PROXY ?? '', p.APP_NOTE, p.SERVER_NAME, p.REQUEST_METHOD, p.QUERY_STRING, p.REQUEST_URI, p.CONTENT_TYPE, p.GATEWAY_INTERFACE, seen.stdin],
      ['/srv/www/shop/index.php', '/shop/index.php', '', 'say "hi"; return 200 x', 'fixed.test', 'POST', 'q=1', '/shop/?q=1', 'application/x-www-form-urlencoded', 'CGI/1.1', 'a=b'],
    );
  });

  // fastcgi-params-configmap fails open (docs/adr/0016; the Ingress used to be kept out): the Ingress is
  // served without the refused ConfigMap, so none of its parameters, the internal variable's included, is sent.
  void it('FCGI: a ConfigMap value naming a variable outside the list is left out, with a Problem naming the annotation', async () => {
    const r = await get(portico.http, 'evil.test', '/x');
    assert.deepEqual([r.status, r.headers['x-responder']], [200, 'fastcgi']);
    const p = (JSON.parse(r.body) as FcgiRequest).params;
    assert.equal(p.SCRIPT_FILENAME, undefined, "the refused ConfigMap's parameter is not sent");
    assert.ok(
      portico.output.some((l) => l.includes(`${P}/fastcgi-params-configmap`) && l.includes('$portico_auth_url') && l.includes('default/evil') && l.includes('served without this annotation')),
      'a Problem names the Ingress, the annotation and the value',
    );
  });

  void it('AUTO_HTTP: plain HTTP to the backend for an HTTP client, HTTPS for an HTTPS one', async () => {
    await until('auto.test served', async () => (await get(portico.http, 'auto.test', '/')).status === 200, 10_000);
    assert.equal((await get(portico.http, 'auto.test', '/')).body, 'http');
    const s = await httpsGet(portico.https, 'auto.test', '/');
    assert.deepEqual([s.status, s.body], [200, 'https']);
  });
});
