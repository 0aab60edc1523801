// End to end, real nginx: certificates per SNI from Secrets, fallbacks, rotation without a reload, redirects, HSTS, h2.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { h2Get, httpsGet, keyLines, makeCert, presented, type Pem } from '../support/certs.js';
import { configToken, get, startPortico, TOKEN_NGINX, syncCount, until, type Running } from '../support/portico.js';
import { hostIngress, nginxWorkers, tlsSecret, webObjects, writeManifests } from '../support/tls-manifests.js';

/** Every file under `dir` (bounded), for the key-leak check. */
function filesUnder(dir: string, limit = 5000): string[] {
  const out: string[] = [];
  const walk = (d: string): void => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (out.length >= limit) return;
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.isFile()) out.push(p);
    }
  };
  walk(dir);
  return out;
}

void describe('TLS with --default-ssl-certificate', () => {
  let fixtures: string;
  let manifests: string;
  let backend: Backend;
  let portico: Running;
  const c = new Map<string, Pem>();
  const pem = (name: string): Pem => c.get(name)!;
  let objects: () => unknown[];
  let extra: unknown[] = [];
  let aSecret: Pem;

  before(async () => {
    fixtures = mkdtempSync(join(tmpdir(), 'portico-tls-fixtures-'));
    manifests = mkdtempSync(join(tmpdir(), 'portico-tls-manifests-'));
    c.set('a', makeCert(fixtures, 'a.test', { sans: ['a.test'] }));
    c.set('a2', makeCert(fixtures, 'a.test', { sans: ['a.test'] }));
    c.set('b', makeCert(fixtures, 'b.test', { sans: ['b.test'] }));
    c.set('wild', makeCert(fixtures, '*.w.test', { sans: ['*.w.test'] }));
    c.set('default', makeCert(fixtures, 'default.test', { sans: ['default.test'] }));
    c.set('missing', makeCert(fixtures, 'missing.test', { sans: ['missing.test'] }));
    c.set('soon', makeCert(fixtures, 'soon.test', { sans: ['soon.test'], days: 3 }));
    c.set('hostless', makeCert(fixtures, 'hostless.test', { sans: ['hostless.test'] }));
    aSecret = pem('a');
    backend = await startBackend('web');
    objects = () => [
      ...webObjects(backend.port),
      tlsSecret('a-tls', aSecret),
      tlsSecret('b-tls', pem('b')),
      tlsSecret('wild-tls', pem('wild')),
      tlsSecret('default-tls', pem('default')),
      tlsSecret('soon-tls', pem('soon')),
      tlsSecret('hostless-tls', pem('hostless')),
      // b's key does not belong to its certificate: invalid
      tlsSecret('broken-tls', { cert: pem('b').cert, key: pem('a').key }),
      hostIngress('a', 'a.test', { tls: [{ hosts: ['a.test'], secretName: 'a-tls' }], created: '2026-01-01T00:00:00Z' }),
      // younger Ingress claiming a.test with another certificate: the older one wins
      hostIngress('a-late', 'a.test', { tls: [{ hosts: ['a.test'], secretName: 'b-tls' }], created: '2026-02-01T00:00:00Z' }),
      hostIngress('b', 'b.test', { tls: [{ hosts: ['b.test'], secretName: 'b-tls' }] }),
      hostIngress('w', 'x.w.test', { tls: [{ hosts: ['*.w.test'], secretName: 'wild-tls' }] }),
      hostIngress('missing', 'missing.test', { tls: [{ hosts: ['missing.test'], secretName: 'no-such-secret' }] }),
      hostIngress('broken', 'broken.test', { tls: [{ hosts: ['broken.test'], secretName: 'broken-tls' }] }),
      hostIngress('soon', 'soon.test', { tls: [{ hosts: ['soon.test'], secretName: 'soon-tls' }] }),
      hostIngress('plain', 'plain.test'),
      // spec.tls without hosts: the rule host its certificate covers is served with it, as ingress-nginx does
      hostIngress('hostless', 'hostless.test', { tls: [{ secretName: 'hostless-tls' }] }),
      hostIngress('forced', 'forced.test', { annotations: { 'nginx.ingress.kubernetes.io/force-ssl-redirect': 'true' } }),
      hostIngress('noredirect', 'noredirect.test', { tls: [{ hosts: ['noredirect.test'], secretName: 'default-tls' }], annotations: { 'nginx.ingress.kubernetes.io/ssl-redirect': 'false' } }),
      ...extra,
    ];
    writeManifests(manifests, objects());
    portico = await startPortico(['--manifests', manifests, '--default-ssl-certificate', 'default/default-tls', '--nginx-binary', TOKEN_NGINX]);
  });

  after(async () => {
    await portico?.stop();
    await backend?.close();
    rmSync(fixtures, { recursive: true, force: true });
    rmSync(manifests, { recursive: true, force: true });
  });

  void it('picks the certificate by SNI: exact host, one-label wildcard, else the default Secret', async () => {
    assert.equal((await presented(portico.https, 'a.test')).fingerprint, pem('a').fingerprint, 'the oldest Ingress wins a.test');
    assert.equal((await presented(portico.https, 'b.test')).fingerprint, pem('b').fingerprint);
    assert.equal((await presented(portico.https, 'x.w.test')).fingerprint, pem('wild').fingerprint);
    assert.equal((await presented(portico.https, 'y.w.test')).fingerprint, pem('wild').fingerprint, 'a wildcard serves any one-label host');
    assert.equal((await presented(portico.https, 'z.y.w.test')).fingerprint, pem('default').fingerprint, 'but only one label');
    assert.equal((await presented(portico.https, 'unknown.test')).fingerprint, pem('default').fingerprint);
    const r = await httpsGet(portico.https, 'a.test', '/hello');
    assert.equal(r.status, 200);
    assert.equal((JSON.parse(r.body) as { headers: Record<string, string> }).headers['x-forwarded-proto'], 'https');
  });

  void it('serves a spec.tls entry without hosts for the rule hosts its certificate covers, and redirects them', async () => {
    assert.equal((await presented(portico.https, 'hostless.test')).fingerprint, pem('hostless').fingerprint);
    const r = await get(portico.http, 'hostless.test', '/p?q=1');
    assert.equal(r.status, 308);
    assert.equal(r.headers.location, 'https://hostless.test/p?q=1');
  });

  void it("serves a missing or invalid Secret's hosts with the default certificate and warns, naming Ingress and Secret", async () => {
    assert.equal((await presented(portico.https, 'missing.test')).fingerprint, pem('default').fingerprint);
    assert.equal((await presented(portico.https, 'broken.test')).fingerprint, pem('default').fingerprint);
    const warn = (s: string) => portico.output.some((l) => l.includes('"level":40') && l.includes(s));
    assert.ok(warn('Ingress default/missing') && warn('Secret default/no-such-secret not found'), 'warning for the missing Secret');
    assert.ok(warn('Ingress default/broken') && warn('Secret default/broken-tls: tls.key is not the private key of tls.crt'), 'warning for the invalid Secret');
    assert.ok(warn('Ingress default/a-late') && warn('comes from the older Ingress default/a'));
  });

  void it('warns about a certificate expiring within 14 days', () => {
    assert.ok(portico.output.some((l) => l.includes('"level":40') && l.includes('certificate of Secret default/soon-tls expires within 14 days')));
  });

  void it('redirects HTTP to HTTPS with 308 for TLS hosts, for force-ssl-redirect, not for ssl-redirect: "false"', async () => {
    const tlsHost = await get(portico.http, 'a.test', '/p?q=1');
    assert.equal(tlsHost.status, 308);
    assert.equal(tlsHost.headers.location, 'https://a.test/p?q=1');
    assert.equal((await get(portico.http, 'missing.test', '/')).status, 308, 'a TLS host without a usable Secret still redirects');
    assert.equal((await get(portico.http, 'forced.test', '/x')).status, 308);
    assert.equal((await get(portico.http, 'plain.test', '/x')).status, 200);
    assert.equal((await get(portico.http, 'noredirect.test', '/x')).status, 200);
  });

  void it('sends HSTS on HTTPS responses of TLS hosts, not on HTTP', async () => {
    const r = await httpsGet(portico.https, 'a.test', '/');
    assert.equal(r.headers['strict-transport-security'], 'max-age=31536000; includeSubDomains');
    assert.equal((await get(portico.http, 'plain.test', '/')).headers['strict-transport-security'], undefined);
    assert.equal((await get(portico.http, 'noredirect.test', '/')).headers['strict-transport-security'], undefined);
  });

  void it('negotiates HTTP/2 by ALPN', async () => {
    const r = await h2Get(portico.https, 'a.test', '/h2');
    assert.deepEqual(r, { alpn: 'h2', status: 200 });
  });

  void it('rotates, adds and removes certificates without a reload (worker PIDs unchanged)', async () => {
    const before = nginxWorkers(portico.proc.pid!);
    assert.ok(before.workers.length > 0, 'nginx workers found');
    const reloads = syncCount(portico.output, 'reload');
    const wholePushes = portico.output.filter((l) => l.includes('certificates: pushed whole')).length;
    const deltas = (): { hosts: number; removed: number }[] =>
      portico.output.flatMap((l) => {
        const m = /"hosts":(\d+),"removed":(\d+)[^\n]*certificates: pushed the hosts that changed/.exec(l);
        return m ? [{ hosts: Number(m[1]), removed: Number(m[2]) }] : [];
      });
    const deltasBefore = deltas().length;
    aSecret = pem('a2');
    extra = [tlsSecret('no-such-secret', pem('missing'))];
    writeManifests(manifests, objects());
    await until('rotated certificate served', async () => (await presented(portico.https, 'a.test')).fingerprint === pem('a2').fingerprint);
    await until('added Secret served', async () => (await presented(portico.https, 'missing.test')).fingerprint === pem('missing').fingerprint);
    // and removed again: back to the default
    extra = [];
    writeManifests(manifests, objects());
    await until('removed Secret falls back', async () => (await presented(portico.https, 'missing.test')).fingerprint === pem('default').fingerprint);
    assert.deepEqual(nginxWorkers(portico.proc.pid!), before, 'same nginx master and workers');
    assert.equal(syncCount(portico.output, 'reload'), reloads, 'no sync with plan reload');
    // A sync's log line may follow the push it made: the two changes are served, their lines arrive soon after.
    await until('two dynamic syncs logged', () => syncCount(portico.output, 'dynamic') >= 2, 5000);
    assert.equal(syncCount(portico.output, 'reload'), reloads, 'still no sync with plan reload');
    // each change went to nginx as the hosts it changed, not the whole set (docs/adr/0056)
    const sent = deltas().slice(deltasBefore);
    assert.ok(sent.length >= 2, JSON.stringify(sent));
    assert.deepEqual(sent.at(-1), { hosts: 0, removed: 1 }, 'the removal: one host gone');
    assert.equal(
      sent.slice(0, -1).reduce((n, d) => n + d.hosts, 0),
      2,
      'the rotation and the new Secret: two hosts set',
    );
    assert.equal(portico.output.filter((l) => l.includes('certificates: pushed whole')).length, wholePushes, 'no whole push');
  });

  void it('/debug/certs lists hosts, subjects, issuers and expiry, never keys', async () => {
    const r = await get(portico.healthz, 'localhost', '/debug/certs');
    assert.equal(r.status, 200);
    const d = JSON.parse(r.body) as { default: { source: string; fingerprint: string }; hosts: { host: string; subject?: string; notAfter?: string; issuer?: string; default?: boolean }[] };
    assert.equal(d.default.source, 'Secret default/default-tls');
    assert.equal(d.default.fingerprint, pem('default').fingerprint);
    const a = d.hosts.find((h) => h.host === 'a.test');
    assert.equal(a?.subject, 'CN=a.test');
    assert.equal(a?.issuer, 'CN=a.test');
    assert.match(a?.notAfter ?? '', /^\d{4}-\d\d-\d\dT/);
    assert.equal(d.hosts.find((h) => h.host === 'broken.test')?.default, true);
  });

  void it('never shows a key in logs, debug output, the Lua endpoint, or a file outside the work dir', async () => {
    const secrets = [...c.values()].flatMap((p) => keyLines(p.key));
    assert.ok(secrets.length > 10);
    const pages = await Promise.all(['/debug/certs', '/debug/config', '/debug/backends'].map((p) => get(portico.healthz, 'localhost', p)));
    const lua = await get(portico.status, 'localhost', '/configuration/certificates', { headers: { 'x-portico-token': await configToken(portico) } });
    assert.equal(lua.status, 200);
    const texts = [...portico.output, ...pages.map((p) => p.body), lua.body, JSON.stringify(lua.headers)];
    for (const file of filesUnder(portico.workDir)) texts.push(readFileSync(file, 'utf8'));
    for (const line of secrets) assert.ok(!texts.some((t) => t.includes(line)), 'a Secret key leaked');
    // The only key file Portico writes is the self-signed fallback's, 0600, inside the work dir.
    const keyFiles = filesUnder(portico.workDir).filter((f) => readFileSync(f, 'utf8').includes('PRIVATE KEY'));
    assert.deepEqual(keyFiles, [join(portico.workDir, 'ssl/default.key')]);
    assert.equal(statSync(keyFiles[0]!).mode & 0o777, 0o600);
    // Files written anywhere in the temp folder since the test started, other than the fixtures and the work dir.
    const since = statSync(manifests).birthtimeMs - 1000;
    const outside = filesUnder(tmpdir(), 20_000)
      .filter((f) => !f.startsWith(fixtures) && !f.startsWith(manifests) && !f.startsWith(portico.workDir))
      .filter((f) => {
        try {
          return statSync(f).mtimeMs >= since && statSync(f).size < 1_000_000;
        } catch {
          return false;
        }
      });
    for (const f of outside) {
      let text = '';
      try {
        text = readFileSync(f, 'utf8');
      } catch {
        continue;
      }
      for (const line of secrets) assert.ok(!text.includes(line), `a Secret key leaked into ${f}`);
    }
  });
});

void describe('TLS without --default-ssl-certificate', () => {
  let manifests: string;
  let portico: Running;

  before(async () => {
    manifests = mkdtempSync(join(tmpdir(), 'portico-tls-selfsigned-'));
    writeManifests(manifests, [hostIngress('m', 'missing.test', { tls: [{ hosts: ['missing.test'], secretName: 'absent' }] }), ...webObjects(9)]);
    portico = await startPortico(['--manifests', manifests]);
  });

  after(async () => {
    await portico?.stop();
    rmSync(manifests, { recursive: true, force: true });
  });

  void it('serves the self-signed certificate generated at start, and logs it as such', async () => {
    const fake = 'Kubernetes Ingress Controller Fake Certificate';
    assert.equal((await presented(portico.https, 'missing.test')).cn, fake);
    assert.equal((await presented(portico.https, 'other.test')).cn, fake);
    assert.ok(portico.output.some((l) => l.includes('generated a self-signed default certificate')));
  });
});
