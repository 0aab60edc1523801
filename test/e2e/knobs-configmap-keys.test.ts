// ingress-nginx ConfigMap keys through real nginx: proxy-http-version, forwarded-host-header, bind-address,
// enable-auth-access-log and disable-http-access-log, each shown by what a client, a backend or the log sees.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, request, type Server } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, type Running } from '../support/portico.js';

const P = 'nginx.ingress.kubernetes.io';

/** What the backend saw of one request: its HTTP version and headers. */
interface Seen {
  readonly version: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => {
    server.listen(0, '127.0.0.1', resolve);
  });
  return (server.address() as AddressInfo).port;
}

/** A GET to `address:port` (get() always uses 127.0.0.1): the status, or the connection error's code. */
function getAt(address: string, port: number, host: string): Promise<string> {
  return new Promise((resolve) => {
    const req = request({ host: address, port, path: '/', headers: { host }, agent: false, timeout: 5000 }, (res) => {
      res.resume();
      res.on('end', () => {
        resolve(String(res.statusCode));
      });
    });
    req.on('timeout', () => req.destroy(new Error('timeout')));
    req.on('error', (e: NodeJS.ErrnoException) => {
      resolve(e.code ?? e.message);
    });
    req.end();
  });
}

void describe('ingress-nginx ConfigMap keys: http version, forwarded host, bind address, access logs (real nginx)', () => {
  let dir: ManifestDir;
  let backend: Server;
  let auth: Server;
  let authPort: number;
  let portico: Running;
  let logDir: string;
  const seen: Seen[] = [];
  const base = (extra: Record<string, string> = {}): Record<string, string> => ({
    'proxy-http-version': '1.0',
    'forwarded-host-header': 'X-Edge-Host',
    'enable-auth-access-log': 'true',
    'bind-address': '127.0.0.1, 127.0.0.3',
    // Outside the work directory, which stopping Portico removes.
    'access-log-path': join(logDir, 'access.log'),
    ...extra,
  });
  const site = (name: string, annotations: Record<string, string> = {}): unknown =>
    ingress(name, { host: `${name}.test`, className: 'portico', annotations, paths: [{ path: '/', type: 'Prefix', service: 'app' }] });
  const version = async (host: string): Promise<string | undefined> => {
    const r = await get(portico.http, host, '/');
    return r.status === 200 ? (JSON.parse(r.body) as Seen).version : undefined;
  };

  before(async () => {
    dir = await manifestFolder();
    logDir = await mkdtemp(join(tmpdir(), 'portico-log-'));
    backend = createServer((req, res) => {
      const s: Seen = { version: req.httpVersion, headers: req.headers };
      if (seen.length < 1000) seen.push(s);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(s));
    });
    auth = createServer((_req, res) => {
      res.writeHead(200);
      res.end();
    });
    const appPort = await listen(backend);
    authPort = await listen(auth);
    await dir.write('backends.json', backendObjects('app', appPort));
    await dir.write('cm.json', [configMap('portico', base())]);
    await dir.write('ingresses.json', [site('plain'), site('pinned', { [`${P}/proxy-http-version`]: '1.1' }), site('guarded', { [`${P}/auth-url`]: `http://127.0.0.1:${authPort}/check` })]);
    portico = await startPortico(['--manifests', dir.dir, '--configmap', 'default/portico']);
    await until('served', async () => (await get(portico.http, 'plain.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico?.stop();
    for (const s of [backend, auth]) {
      await new Promise<void>((resolve) => {
        s?.close(() => {
          resolve();
        });
      });
    }
    await dir?.remove();
    if (logDir !== undefined) await rm(logDir, { recursive: true, force: true });
  });

  void it('proxy-http-version sets the version to every backend; the annotation wins', async () => {
    assert.equal(await version('plain.test'), '1.0');
    assert.equal(await version('pinned.test'), '1.1');
  });

  void it("forwarded-host-header names the header passed on as X-Original-Forwarded-Host, and X-Forwarded-Host's is not", async () => {
    const r = await get(portico.http, 'plain.test', '/', { headers: { 'x-edge-host': 'edge.example', 'x-forwarded-host': 'other.example' } });
    const s = JSON.parse(r.body) as Seen;
    assert.equal(s.headers['x-original-forwarded-host'], 'edge.example');
  });

  void it('bind-address: the listeners take only the listed addresses', async () => {
    assert.equal(await getAt('127.0.0.3', portico.http, 'plain.test'), '200');
    assert.equal(await getAt('127.0.0.2', portico.http, 'plain.test'), 'ECONNREFUSED');
  });

  void it('a bad bind-address is a Warning naming the key, and the listeners stay', async () => {
    await dir.write('cm.json', [configMap('portico', base({ 'bind-address': '127.0.0.1, localhost' }))]);
    await until('warning', () => Promise.resolve(portico.output.some((l) => l.includes('bind-address') && l.includes('localhost') && l.includes('is not an IP address'))), 20_000);
    assert.equal(await getAt('127.0.0.3', portico.http, 'plain.test'), '200');
  });

  void it('enable-auth-access-log writes the auth request to the access log; disable-http-access-log writes nothing after it', async () => {
    assert.equal((await get(portico.http, 'guarded.test', '/logged-with-auth')).status, 200);
    assert.equal((await get(portico.http, 'plain.test', '/logged-plain')).status, 200);
    // The version goes back to 1.1 in the same change: when the backend sees 1.1, the access log is off.
    await dir.write('cm.json', [configMap('portico', base({ 'disable-http-access-log': 'true', 'proxy-http-version': '1.1' }))]);
    await until('ConfigMap applied', async () => (await version('plain.test')) === '1.1' && (await version('plain.test')) === '1.1', 20_000);
    assert.equal((await get(portico.http, 'plain.test', '/not-logged')).status, 200);
    // Stopping nginx flushes every worker's buffered lines.
    await portico.stop();
    const log = await readFile(join(logDir, 'access.log'), 'utf8');
    const lines = log.split('\n');
    const withAuth = lines.filter((l) => l.includes('/logged-with-auth'));
    assert.equal(withAuth.length, 2, log);
    assert.ok(withAuth.some((l) => l.includes(`127.0.0.1:${authPort}`)));
    assert.equal(lines.filter((l) => l.includes('/logged-plain')).length, 1);
    assert.ok(!log.includes('/not-logged'));
  });
});
