// Real nginx: certificates pushed to portico.certificate and chosen per SNI, rotated without a reload.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { type Nginx, freePort, startNginx } from './harness.js';

/** A self-signed EC certificate for CN=cn: { cert, key, pem = cert + key }. */
function selfSigned(dir: string, cn: string): { cert: string; key: string; pem: string } {
  const base = path.join(dir, cn.replace('*', 'star'));
  execFileSync(
    'openssl',
    ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '2', '-subj', `/CN=${cn}`, '-keyout', `${base}.key`, '-out', `${base}.crt`],
    { stdio: 'ignore', timeout: 10_000 },
  );
  const cert = readFileSync(`${base}.crt`, 'utf8');
  const key = readFileSync(`${base}.key`, 'utf8');
  return { cert, key, pem: cert + key };
}

/** The CN of the certificate nginx presents for `servername` ('' sends no SNI). */
function presented(port: number, servername: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false, timeout: 5000 }, () => {
      const cn = socket.getPeerCertificate().subject.CN;
      socket.destroy();
      resolve(Array.isArray(cn) ? cn.join(',') : String(cn));
    });
    socket.on('timeout', () => {
      socket.destroy(new Error('TLS handshake timed out'));
    });
    socket.on('error', reject);
  });
}

void describe('lua certificates', () => {
  let nginx: Nginx;
  let dir: string;
  let tlsPort: number;
  const certs = new Map<string, { cert: string; key: string; pem: string }>();
  const pem = (cn: string): string => certs.get(cn)?.pem ?? '';

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'portico-certs-'));
    for (const cn of ['fallback', 'a.example.test', '*.wild.example.test', 'default', 'a.example.test v2']) {
      certs.set(cn, selfSigned(dir, cn));
    }
    tlsPort = await freePort();
    nginx = await startNginx({
      httpExtra: `
    server {
        listen 127.0.0.1:${tlsPort} ssl;
        ssl_certificate ${path.join(dir, 'fallback.crt')};
        ssl_certificate_key ${path.join(dir, 'fallback.key')};
        ssl_certificate_by_lua_block { require("portico.certificate").call() }
        location / { return 200 "tls\\n"; }
    }`,
    });
  });

  after(async () => {
    await nginx.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  void it('serves the static fallback before anything is posted', async () => {
    assert.equal(await presented(tlsPort, 'a.example.test'), 'fallback');
    const got = JSON.parse((await nginx.get('/configuration/certificates')).body) as unknown;
    assert.deepEqual(got, { version: 0, hosts: [], default: false });
  });

  void it('chooses exact host, then one-label wildcard, then the fallback when there is no default', async () => {
    const res = await nginx.post('/configuration/certificates', { certificates: { 'a.example.test': pem('a.example.test'), '*.wild.example.test': pem('*.wild.example.test') }, default: null });
    assert.equal(res.status, 201, res.body);
    assert.equal(await presented(tlsPort, 'a.example.test'), 'a.example.test');
    assert.equal(await presented(tlsPort, 'A.Example.Test'), 'a.example.test');
    assert.equal(await presented(tlsPort, 'x.wild.example.test'), '*.wild.example.test');
    assert.equal(await presented(tlsPort, 'x.y.wild.example.test'), 'fallback', 'a wildcard covers one label');
    assert.equal(await presented(tlsPort, 'wild.example.test'), 'fallback');
    assert.equal(await presented(tlsPort, 'other.test'), 'fallback');
  });

  void it('uses the default for unmatched names and no SNI, and rotates without a reload', async () => {
    const workers = nginx.workerPids();
    const res = await nginx.post('/configuration/certificates', { certificates: { 'a.example.test': pem('a.example.test v2') }, default: pem('default') });
    assert.equal(res.status, 201, res.body);
    assert.equal(await presented(tlsPort, 'a.example.test'), 'a.example.test v2');
    assert.equal(await presented(tlsPort, 'x.wild.example.test'), 'default');
    assert.equal(await presented(tlsPort, ''), 'default');
    assert.deepEqual(nginx.workerPids(), workers);
  });

  void it('drops a bad host or PEM alone and says which (201), refuses a bad body (400); GET shows hosts, never keys', async () => {
    const before = await nginx.get('/configuration/certificates');
    const res400 = await nginx.post('/configuration/certificates', '{oops');
    assert.equal(res400.status, 400, res400.body);
    assert.match(res400.body, /invalid JSON/);
    assert.equal((await nginx.get('/configuration/certificates')).body, before.body);
    const good = { 'a.example.test': pem('a.example.test v2') };
    const bad: [Record<string, unknown>, RegExp][] = [
      [{ certificates: { ...good, 'Upper.Test': pem('default') }, default: pem('default') }, /rejected Upper\.Test: .*Upper\.Test/],
      [{ certificates: { ...good, 'a.*.test': pem('default') }, default: pem('default') }, /rejected a\.\*\.test/],
      [{ certificates: { ...good, 'b.test': certs.get('default')?.cert }, default: pem('default') }, /rejected b\.test: .*private key/],
      [{ certificates: { ...good, 'b.test': 'not a pem' }, default: pem('default') }, /rejected b\.test: .*certificate/],
    ];
    let version = 2;
    for (const [body, message] of bad) {
      const res = await nginx.post('/configuration/certificates', body);
      assert.equal(res.status, 201, `${JSON.stringify(body).slice(0, 80)} -> ${res.status} ${res.body}`);
      assert.match(res.body, message);
      version += 1;
      assert.deepEqual(JSON.parse((await nginx.get('/configuration/certificates')).body), { version, hosts: ['a.example.test'], default: true });
    }
    const noDefault = await nginx.post('/configuration/certificates', { certificates: good, default: 42 });
    assert.match(noDefault.body, /rejected default: default: must be a PEM string/);
    assert.deepEqual(JSON.parse((await nginx.get('/configuration/certificates')).body), { version: version + 1, hosts: ['a.example.test'], default: false });
    await nginx.post('/configuration/certificates', { certificates: good, default: pem('default') });
    const afterwards = await nginx.get('/configuration/certificates');
    assert.deepEqual(JSON.parse(afterwards.body), { version: version + 2, hosts: ['a.example.test'], default: true });
    assert.doesNotMatch(afterwards.body, /PRIVATE KEY|BEGIN/);
    assert.equal(await presented(tlsPort, 'a.example.test'), 'a.example.test v2');
  });

  void it('takes a PEM shared by many hosts or sent again as before, and drops a bad one sent again again', async () => {
    // each worker parses a PEM once and remembers the good ones of the payload it holds (docs/adr/0048)
    const shared = pem('*.wild.example.test');
    const many = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`h${i}.wild.example.test`, shared]));
    const body = { certificates: { ...many, 'b.test': certs.get('default')?.cert }, default: pem('default') };
    for (let i = 0; i < 3; i++) {
      const res = await nginx.post('/configuration/certificates', body);
      assert.equal(res.status, 201, res.body);
      assert.match(res.body, /rejected b\.test: .*private key/);
      assert.doesNotMatch(res.body, /rejected h\d+/);
    }
    assert.equal(await presented(tlsPort, 'h7.wild.example.test'), '*.wild.example.test');
    assert.equal(await presented(tlsPort, 'b.test'), 'default');
  });

  /** The CNs nginx presents for `name` over `n` handshakes, as a set (handshakes spread over both workers). */
  async function presentedSet(name: string, n = 8): Promise<string[]> {
    const seen = new Set<string>();
    for (let i = 0; i < n; i++) seen.add(await presented(tlsPort, name));
    return [...seen].sort();
  }

  void it('takes the hosts that changed as a delta onto the set it holds; every worker serves them without a reload', async () => {
    const workers = nginx.workerPids();
    const whole = await nginx.post('/configuration/certificates?id=w1', { certificates: { 'a.example.test': pem('a.example.test'), 'c.test': pem('default') }, default: pem('fallback') });
    assert.equal(whole.status, 201, whole.body);
    // both workers read the whole set first: the deltas then apply onto what each holds
    assert.deepEqual(await presentedSet('a.example.test'), ['a.example.test']);
    const d1 = await nginx.post('/configuration/certificates?from=w1&id=d1', {
      set: { 'a.example.test': pem('a.example.test v2'), 'n.wild.example.test': pem('*.wild.example.test') },
      remove: ['c.test'],
    });
    assert.equal(d1.status, 201, d1.body);
    assert.match(d1.body, /^2 certificates set, 1 removed, version \d+/);
    assert.deepEqual(await presentedSet('a.example.test'), ['a.example.test v2']);
    assert.deepEqual(await presentedSet('n.wild.example.test'), ['*.wild.example.test']);
    assert.deepEqual(await presentedSet('c.test'), ['fallback'], 'the removed host gets the default');
    // the other fields change only with `rest`, and then whole
    const d2 = await nginx.post('/configuration/certificates?from=d1&id=d2', { set: {}, remove: [], rest: { default: pem('default') } });
    assert.equal(d2.status, 201, d2.body);
    assert.deepEqual(await presentedSet('c.test'), ['default']);
    assert.deepEqual(await presentedSet(''), ['default']);
    assert.deepEqual(await presentedSet('a.example.test'), ['a.example.test v2'], 'a delta without the host keeps it');
    // GET merges the deltas into what it shows
    assert.deepEqual((JSON.parse((await nginx.get('/configuration/certificates')).body) as { hosts: string[] }).hosts, ['a.example.test', 'n.wild.example.test']);
    // a delta from a set nginx no longer holds changes nothing
    const stale = await nginx.post('/configuration/certificates?from=w1&id=d3', { set: { 'a.example.test': pem('a.example.test') } });
    assert.equal(stale.status, 409, stale.body);
    assert.deepEqual(await presentedSet('a.example.test'), ['a.example.test v2']);
    assert.deepEqual(nginx.workerPids(), workers);
  });

  void it('drops a bad host or PEM of a delta alone (201), refuses a bad delta whole (400)', async () => {
    const base = await nginx.post('/configuration/certificates?id=w2', { certificates: { 'a.example.test': pem('a.example.test') }, default: pem('default') });
    assert.equal(base.status, 201, base.body);
    const partly = await nginx.post('/configuration/certificates?from=w2&id=e1', { set: { 'b.test': 'not a pem', 'Upper.Test': pem('default'), 'a.example.test': pem('a.example.test v2') } });
    assert.equal(partly.status, 201, partly.body);
    assert.match(partly.body, /rejected b\.test: set\[b\.test\]: certificate/);
    assert.match(partly.body, /rejected Upper\.Test: set\[Upper\.Test\]: not a lower-case host name/);
    assert.deepEqual(await presentedSet('a.example.test'), ['a.example.test v2']);
    assert.deepEqual(await presentedSet('b.test'), ['default']);
    const bad: [unknown, RegExp][] = [
      ['{oops', /invalid JSON/],
      [{ set: [1, 2] }, /./],
      [{ set: {}, remove: 'a.example.test' }, /remove: must be an array of host names/],
      [{ set: {}, remove: ['a..test'] }, /remove\[0\]: not a lower-case host name/],
      [{ set: { 'a.example.test': pem('a.example.test') }, remove: ['a.example.test'] }, /remove\[0\]: a\.example\.test is also set/],
      [{ set: {}, rest: 'x' }, /rest: must be an object/],
      [{ set: {}, rest: { default: null, plain: ['Bad Name'] } }, /rest\.plain\[0\]: not a lower-case host name/],
    ];
    for (const [body, message] of bad) {
      const held = (await nginx.get('/configuration/certificates')).body;
      const res = await nginx.post('/configuration/certificates?from=e1&id=e2', body);
      if (res.status === 201) {
        // [1, 2] as `set` is an object of two bad hosts: both dropped, nothing else changed
        assert.match(res.body, /rejected 1: set\[1\]: not a lower-case host name/);
        continue;
      }
      assert.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} -> ${res.status} ${res.body}`);
      assert.match(res.body, message);
      assert.equal((await nginx.get('/configuration/certificates')).body, held, 'a refused delta changes nothing');
    }
    assert.deepEqual(await presentedSet('a.example.test'), ['a.example.test v2']);
  });

  void it('logs no Lua errors', () => {
    assert.doesNotMatch(nginx.errorLog(), /\[(error|crit|alert|emerg)\][^\n]*(runtime error|lua entry thread|portico: )/);
  });
});
