// ssl-session-ticket-key through real nginx: with the key, a TLS session ticket issued before a reload resumes after
// it (nginx makes new ticket keys at every reload otherwise, so without it the ticket is not resumed); the key file is
// 0600 and the key never appears in Portico's output. Across replicas, resumption also needs the same certificates
// (nginx's session context includes them) and each replica's static fallback certificate is its own: not tested here.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { startBackend, type Backend } from '../support/backends.js';
import { backendObjects, configMap, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { get, startPortico, until, workerPids, type Running } from '../support/portico.js';

/** A TLS 1.3 session ticket from `port` (resolves once nginx sent one), or undefined after 5 s. */
function ticketFrom(port: number): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const s = connect({ host: '127.0.0.1', port, servername: 'app.test', rejectUnauthorized: false, minVersion: 'TLSv1.3' });
    const timer = setTimeout(() => {
      s.destroy();
      resolve(undefined);
    }, 5000);
    s.on('session', (session: Buffer) => {
      clearTimeout(timer);
      s.end();
      resolve(session);
    });
    s.on('error', () => {
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

/** Whether a connection to `port` offering `session` resumed it. */
function resumes(port: number, session: Buffer): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, servername: 'app.test', rejectUnauthorized: false, minVersion: 'TLSv1.3', session });
    s.on('secureConnect', () => {
      const reused = s.isSessionReused();
      s.end();
      resolve(reused);
    });
    s.on('error', reject);
  });
}

void describe('ssl-session-ticket-key (real nginx)', () => {
  let dir: ManifestDir;
  let app: Backend;
  let portico: Running | undefined;
  const key = randomBytes(80).toString('base64');
  const site = (host: string, annotations?: Record<string, string>): unknown =>
    ingress(host.split('.')[0] ?? host, { host, className: 'portico', paths: [{ path: '/', type: 'Prefix', service: 'app' }], ...(annotations ? { annotations } : {}) });
  // A server alias keeps other.test a server block, so adding it is a reload (a plain host would be a route table push).
  const reloading = (): unknown => site('other.test', { 'nginx.ingress.kubernetes.io/server-alias': 'www.other.test' });

  before(async () => {
    dir = await manifestFolder();
    app = await startBackend('app');
    await dir.write('backends.json', backendObjects('app', app.port));
  });

  after(async () => {
    await portico?.stop();
    await app?.close();
    await dir?.remove();
  });

  /** A fresh Portico with this ConfigMap: a ticket before a reload (a new host), and whether it resumes after. */
  async function acrossReload(data: Record<string, string>): Promise<{ before: boolean; after: boolean; p: Running }> {
    await portico?.stop();
    await dir.write('ingresses.json', [site('app.test')]);
    await dir.write('cm.json', [configMap('portico', { 'ssl-session-tickets': 'true', ...data }, 'kube-system')]);
    const p = await startPortico(['--manifests', dir.dir, '--configmap', 'kube-system/portico']);
    portico = p;
    await until('served', async () => (await get(p.http, 'app.test', '/')).status === 200, 20_000);
    const ticket = await ticketFrom(p.https);
    assert.ok(ticket, 'no session ticket');
    const resumedBefore = await resumes(p.https, ticket);
    const workers = await workerPids(p);
    await dir.write('ingresses.json', [site('app.test'), reloading()]);
    await until('reloaded', async () => (await get(p.http, 'other.test', '/')).status === 200 && !(await workerPids(p)).some((w) => workers.includes(w)), 20_000, 100);
    return { before: resumedBefore, after: await resumes(p.https, ticket), p };
  }

  void it('with the key a ticket resumes after a reload; the key file is 0600 and the key is never logged', async () => {
    const r = await acrossReload({ 'ssl-session-ticket-key': key });
    assert.deepEqual([r.before, r.after], [true, true]);
    const ssl = join(r.p.workDir, 'ssl');
    const files = readdirSync(ssl).filter((n) => /^ticket-[0-9a-f]{32}\.key$/.test(n));
    assert.deepEqual(
      files.map((n) => [statSync(join(ssl, n)).size, statSync(join(ssl, n)).mode & 0o777]),
      [[80, 0o600]],
    );
    assert.ok(!r.p.output.some((l) => l.includes(key.slice(0, 24))));
  });

  void it('without a key the same ticket is not resumed after a reload (nginx made new ticket keys)', async () => {
    const r = await acrossReload({});
    assert.deepEqual([r.before, r.after], [true, false]);
  });

  void it('a key that is not base64 of 48 or 80 bytes is refused with a Warning that does not show it', async () => {
    const bad = randomBytes(32).toString('base64');
    await portico?.stop();
    await dir.write('cm.json', [configMap('portico', { 'ssl-session-ticket-key': bad }, 'kube-system')]);
    const p = await startPortico(['--manifests', dir.dir, '--configmap', 'kube-system/portico']);
    portico = p;
    await until('the Warning', () => p.output.some((l) => l.includes('ssl-session-ticket-key') && l.includes('32 bytes')), 20_000, 100);
    assert.ok(!p.output.some((l) => l.includes(bad.slice(0, 20))));
  });
});
