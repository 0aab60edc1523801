// Least privilege through real nginx (docs/adr/0009): workers run unprivileged in a 0700 root-owned work dir and still
// buffer large bodies, read htpasswd files and serve TLS; keys stay 0600 root; the healthz port binds --healthz-host.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { httpsGet, makeCert, presented, type Pem } from '../support/certs.js';
import { get, startPortico, until, type Running } from '../support/portico.js';
import { hostIngress, nginxWorkers, tlsSecret, webObjects, writeManifests } from '../support/tls-manifests.js';

const P = 'nginx.ingress.kubernetes.io';
const APR1 = 'ann:$apr1$abcdefgh$paCto.rW8wn6thJ8b0QQY.'; // openssl passwd -apr1 -salt abcdefgh secret1
const BASIC = { authorization: `Basic ${Buffer.from('ann:secret1').toString('base64')}` };
const asRoot = process.getuid?.() === 0;
const passwdId = (name: string, field: 2 | 3): number =>
  Number(
    readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .map((l) => l.split(':'))
      .find((f) => f[0] === name)?.[field],
  );
const psUser = (pid: number): string => execFileSync('ps', ['-o', 'user=', '-p', String(pid)], { encoding: 'utf8' }).trim();
const listening = (): string => execFileSync('ss', ['-ltnH'], { encoding: 'utf8' });

void describe('nginx workers as www-data, 0700 root-owned work dir (Portico runs as root)', { skip: !asRoot && 'needs root' }, () => {
  let fixtures: string;
  let manifests: string;
  let web: Backend;
  let portico: Running;
  let cert: Pem;

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-wu-fixtures-'));
    manifests = mkdtempSync(join(tmpdir(), 'portico-wu-manifests-'));
    cert = makeCert(fixtures, 'secure.test', { sans: ['secure.test'] });
    web = await startBackend('web');
    writeManifests(manifests, [
      ...webObjects(web.port),
      tlsSecret('secure-tls', cert),
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'htpasswd', namespace: 'default' }, stringData: { auth: `${APR1}\n` } },
      hostIngress('plain', 'plain.test'),
      hostIngress('basic', 'basic.test', { annotations: { [`${P}/auth-type`]: 'basic', [`${P}/auth-secret`]: 'htpasswd' } }),
      hostIngress('secure', 'secure.test', { tls: [{ hosts: ['secure.test'], secretName: 'secure-tls' }] }),
    ]);
    portico = await startPortico(['--manifests', manifests, '--healthz-host', '127.0.0.1']);
    await until('Ingresses served', async () => (await get(portico.http, 'plain.test', '/')).status === 200, 20_000);
  });

  after(async () => {
    await portico.stop();
    await web.close();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });

  void it('workers run as www-data, the master as root; the work dir became 0710 root:www-data (search, no listing)', () => {
    const { master, workers } = nginxWorkers(portico.proc.pid!);
    assert.ok(master !== undefined && workers.length > 0, 'nginx master and workers found');
    assert.equal(psUser(master), 'root');
    assert.deepEqual(
      workers.map(psUser),
      workers.map(() => 'www-data'),
    );
    const st = statSync(portico.workDir);
    assert.deepEqual([st.mode & 0o7777, st.uid, st.gid], [0o710, 0, passwdId('www-data', 3)]);
    assert.ok(portico.output.some((l) => l.includes('work directory made searchable (not listable) by the nginx workers')));
  });

  void it("a request body bigger than client_body_buffer_size goes through the workers' temp folder", async () => {
    const body = 'x'.repeat(1024 * 1024);
    const r = await get(portico.http, 'plain.test', '/upload', { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
    assert.equal(r.status, 200);
    assert.equal((JSON.parse(r.body) as { body: string }).body.length, body.length);
    const tmp = statSync(join(portico.workDir, 'tmp/client_body'));
    assert.deepEqual([tmp.uid, tmp.mode & 0o777], [passwdId('www-data', 2), 0o755]);
  });

  void it('basic auth reads a 0640 root:www-data htpasswd file', async () => {
    assert.equal((await get(portico.http, 'basic.test', '/')).status, 401);
    assert.equal((await get(portico.http, 'basic.test', '/', { headers: BASIC })).status, 200);
    const files = readdirSync(join(portico.workDir, 'auth'));
    assert.deepEqual(files, ['default.basic.htpasswd']);
    const st = statSync(join(portico.workDir, 'auth', files[0]!));
    assert.deepEqual([st.mode & 0o777, st.uid, st.gid], [0o640, 0, passwdId('www-data', 3)]);
  });

  void it('TLS from a Secret and the fallback certificate work while every key file stays 0600 root', async () => {
    assert.equal((await presented(portico.https, 'secure.test')).fingerprint, cert.fingerprint);
    assert.equal((await httpsGet(portico.https, 'secure.test', '/')).status, 200);
    assert.equal((await httpsGet(portico.https, 'unknown.test', '/')).status, 404, 'fallback certificate served');
    const ssl = join(portico.workDir, 'ssl');
    const files = readdirSync(ssl);
    assert.ok(files.length > 0, 'static certificate files exist');
    for (const f of files) {
      const st = statSync(join(ssl, f));
      assert.deepEqual([f, st.mode & 0o077, st.uid], [f, 0, 0], 'no group or world access, owned by root');
    }
  });

  void it('no worker was refused a file, and the access log is written', async () => {
    // Portico's stdout is a socket pair here, which nginx cannot open as /dev/stdout: the access log is the work dir's file.
    assert.ok(portico.output.some((l) => l.includes('the access log goes to a file')));
    assert.equal((await get(portico.http, 'plain.test', '/access-log-probe')).status, 200);
    await until('access log written', () => readFileSync(join(portico.workDir, 'logs/access.log'), 'utf8').includes('/access-log-probe'), 5000);
    assert.deepEqual(
      portico.output.filter((l) => /Permission denied|EACCES/.test(l)),
      [],
    );
  });

  void it('--healthz-host 127.0.0.1 binds the loopback address only; /debug/config answers there, without secrets', async () => {
    const lines = listening()
      .split('\n')
      .filter((l) => l.includes(`:${portico.healthz} `));
    assert.deepEqual(
      lines.map((l) => l.split(/\s+/)[3]),
      [`127.0.0.1:${portico.healthz}`],
    );
    for (const page of ['config', 'backends', 'certs']) {
      const res = await fetch(`http://127.0.0.1:${portico.healthz}/debug/${page}`);
      assert.equal(res.status, 200, page);
      const text = await res.text();
      assert.ok(page === 'backends' || text.includes('secure.test'), page);
      for (const secret of ['PRIVATE KEY', cert.key.split('\n')[1]!, '$apr1$', 'paCto']) assert.ok(!text.includes(secret), `${page}: ${secret}`);
    }
  });
});

void describe('--worker-user', { skip: !asRoot && 'needs root' }, () => {
  void it('=root runs root workers, only when named, with a warning', async (t) => {
    const manifests = mkdtempSync(join(tmpdir(), 'portico-wu-root-'));
    t.after(() => {
      rmSync(manifests, { recursive: true, force: true });
    });
    const portico = await startPortico(['--manifests', manifests, '--worker-user=root']);
    try {
      const { workers } = nginxWorkers(portico.proc.pid!);
      assert.ok(workers.length > 0);
      assert.deepEqual(
        workers.map(psUser),
        workers.map(() => 'root'),
      );
      assert.ok(portico.output.some((l) => l.includes('"level":40') && l.includes('nginx workers run as root')));
      assert.equal(statSync(portico.workDir).mode & 0o777, 0o700, 'the work dir is left as it was');
    } finally {
      await portico.stop();
    }
  });

  void it('an unknown user stops Portico at start with a message naming the flag', async (t) => {
    const manifests = mkdtempSync(join(tmpdir(), 'portico-wu-unknown-'));
    t.after(() => {
      rmSync(manifests, { recursive: true, force: true });
    });
    const portico = await startPortico(['--manifests', manifests, '--worker-user', 'no-such-user'], { waitHealthy: false });
    await until('Portico exits', () => portico.proc.exitCode !== null, 20_000);
    const code = await portico.stop();
    assert.notEqual(code, 0);
    assert.ok(
      portico.output.some((l) => l.includes('--worker-user: user \\"no-such-user\\" is not in /etc/passwd')),
      portico.output.join('\n'),
    );
  });
});
