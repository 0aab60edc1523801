// End to end, real nginx: every response header Portico adds (HSTS, CORS, the ConfigMap's add-headers, custom-headers)
// reaches every answer it is meant for, whatever else the location adds (CORS, a preflight, a snippet's add_header),
// on a host rendered as its own server block (a regex Ingress shares it) and on one the Lua route table serves.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, type TlsReply } from '../support/certs.js';
import { configMap } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { startPortico, until, type Running } from '../support/portico.js';
import { tlsSecret, webObjects, writeManifests } from '../support/tls-manifests.js';

const P = 'nginx.ingress.kubernetes.io';
const ORIGIN = 'https://app.test';
const CORS = { [`${P}/enable-cors`]: 'true', [`${P}/cors-allow-origin`]: ORIGIN };
const CUSTOM = { [`${P}/custom-headers`]: 'default/custom-hdrs' };

/** One HTTPS request with SNI and Host `host`, any method and headers. */
function request(port: number, host: string, path: string, opts: { method?: string; headers?: Record<string, string> } = {}): Promise<TlsReply> {
  return new Promise((resolve, reject) => {
    const headers = { host, ...opts.headers };
    const req = https.request({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', servername: host, headers, rejectUnauthorized: false, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: https://${host}${path}`)));
    req.on('error', reject);
    req.end();
  });
}

/** A backend that sends CORS, Vary and HSTS headers of its own, which Portico must leave alone where it adds none. */
async function ownHeadersBackend(): Promise<Server> {
  const server = createServer((_req, res) => {
    res.writeHead(200, { 'access-control-allow-origin': 'https://backend.test', vary: 'Accept-Encoding', 'strict-transport-security': 'max-age=5' });
    res.end('own');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

void describe('response headers Portico adds reach every answer', () => {
  let dir: string;
  let backend: Server;
  let portico: Running;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'portico-headers-'));
    backend = await ownHeadersBackend();
    const hosts = ['regex.test', 'dyn.test', 'plain.test'];
    const cert = makeCert(dir, 'regex.test', { sans: hosts.slice(0, 2) });
    const tls = (host: string) => [{ hosts: [host], secretName: 'site-tls' }];
    const site = (name: string, host: string, path: string, annotations: Record<string, string>) => {
      const ing = ingress(name, { host, className: 'portico', annotations, paths: [{ path, type: 'Prefix', service: 'web' }] });
      return host === 'plain.test' ? ing : { ...ing, spec: { ...ing.spec, tls: tls(host) } };
    };
    writeManifests(dir, [
      ...webObjects((backend.address() as AddressInfo).port),
      tlsSecret('site-tls', cert),
      configMap('global-hdrs', { 'X-Global': 'g' }, 'kube-system'),
      configMap('custom-hdrs', { 'X-Custom': 'c' }),
      configMap('portico', { 'add-headers': 'kube-system/global-hdrs', 'global-allowed-response-headers': 'X-Custom', 'allow-snippet-annotations': 'true' }, 'kube-system'),
      // regex.test: a regex rewrite puts the whole host in a server block of its own
      site('regex', 'regex.test', '/r/(.*)', { [`${P}/use-regex`]: 'true', [`${P}/rewrite-target`]: '/$1', [`${P}/server-snippet`]: 'add_header X-Owner o always;' }),
      site('regex-cors', 'regex.test', '/api', CORS),
      site('regex-both', 'regex.test', '/both', { ...CORS, ...CUSTOM }),
      site('regex-snippet', 'regex.test', '/snip', { [`${P}/configuration-snippet`]: 'add_header X-Tenant t always;' }),
      // dyn.test: served by the route table (its CORS and custom-headers paths through profiles)
      site('dyn-cors', 'dyn.test', '/api', CORS),
      site('dyn-both', 'dyn.test', '/both', { ...CORS, ...CUSTOM }),
      site('plain-cors', 'plain.test', '/api', CORS),
    ]);
    // Explicit, so the route-table half holds under PORTICO_TEST_DYNAMIC_ROUTES=0 too.
    portico = await startPortico(['--manifests', dir, '--configmap', 'kube-system/portico', '--enable-dynamic-routes=true']);
    await until('served', async () => (await request(portico.https, 'dyn.test', '/both')).status === 200, 20_000);
  });

  after(async () => {
    await portico?.stop();
    await new Promise<void>((resolve) => {
      backend.close(() => {
        resolve();
      });
    });
    rmSync(dir, { recursive: true, force: true });
  });

  void it('serves regex.test from a server block and dyn.test from the route table (the two paths under test)', () => {
    const conf = readFileSync(join(portico.workDir, 'nginx.conf'), 'utf8');
    assert.match(conf, /server_name "regex\.test";/);
    assert.doesNotMatch(conf, /server_name "dyn\.test";/);
  });

  for (const host of ['regex.test', 'dyn.test']) {
    void it(`${host}: a CORS path's answers and preflights over HTTPS carry HSTS and the ConfigMap's add-headers`, async () => {
      const hsts = 'max-age=31536000; includeSubDomains';
      const r = await request(portico.https, host, '/api', { headers: { origin: ORIGIN } });
      assert.deepEqual([r.status, r.headers['strict-transport-security'], r.headers['access-control-allow-origin'], r.headers['x-global']], [200, hsts, ORIGIN, 'g']);
      const pre = await request(portico.https, host, '/api', { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'PUT' } });
      assert.deepEqual([pre.status, pre.headers['strict-transport-security'], pre.headers['access-control-allow-origin'], pre.headers['x-global']], [204, hsts, ORIGIN, 'g']);
      assert.match(String(pre.headers['access-control-allow-methods']), /PUT/);
    });

    void it(`${host}: custom-headers and CORS on one path: every answer, the preflight too, has both, HSTS and add-headers`, async () => {
      for (const method of ['GET', 'OPTIONS']) {
        const r = await request(portico.https, host, '/both', { method, headers: { origin: ORIGIN } });
        const got = [r.headers['strict-transport-security'] !== undefined, r.headers['access-control-allow-origin'], r.headers['x-custom'], r.headers['x-global']];
        assert.deepEqual(got, [true, ORIGIN, 'c', 'g'], `${host} ${method} ${r.status}`);
      }
    });

    void it(`${host}: an origin CORS does not allow leaves the backend's own CORS header; Vary adds Origin to the backend's`, async () => {
      const r = await request(portico.https, host, '/api', { headers: { origin: 'https://other.test' } });
      assert.equal(r.headers['access-control-allow-origin'], 'https://backend.test');
      assert.deepEqual(String(r.headers.vary).split(/,\s*/).sort(), ['Accept-Encoding', 'Origin']);
    });
  }

  void it("regex.test: a snippet's add_header takes neither HSTS nor the ConfigMap's add-headers away", async () => {
    const r = await request(portico.https, 'regex.test', '/snip');
    assert.deepEqual([r.status, r.headers['x-tenant'], r.headers['strict-transport-security'] !== undefined, r.headers['x-global']], [200, 't', true, 'g']);
  });

  void it("regex.test: the host owner's server-snippet add_header reaches its CORS and custom-headers paths and the preflight (Portico adds no add_header there)", async () => {
    for (const [path, method] of [
      ['/api', 'GET'],
      ['/both', 'GET'],
      ['/both', 'OPTIONS'],
    ] as const) {
      const r = await request(portico.https, 'regex.test', path, { method, headers: { origin: ORIGIN } });
      assert.equal(r.headers['x-owner'], 'o', `${method} ${path} ${r.status}`);
    }
  });

  void it("a host without TLS: HTTPS answers keep the backend's own HSTS (Portico adds none there)", async () => {
    const r = await request(portico.https, 'plain.test', '/api', { headers: { origin: ORIGIN } });
    assert.deepEqual([r.status, r.headers['strict-transport-security'], r.headers['access-control-allow-origin']], [200, 'max-age=5', ORIGIN]);
  });
});
