// ingress-nginx e2e settings/ssl_session_cache.go: ssl-session-cache, -cache-size and -timeout, seen as TLS 1.2
// session resumption by session id (session tickets are off by default, so only the cache can resume).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../../support/certs.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ing, startSuite, type Suite } from '../harness.js';

const HOST = 'ssl-session-cache';

/** A TLS 1.2 handshake with `host`, offering `session`: whether it was resumed, and the session to offer next. */
function handshake(port: number, host: string, session?: Buffer): Promise<{ reused: boolean; session: Buffer | undefined; ticket: Buffer | undefined }> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port, servername: host, rejectUnauthorized: false, maxVersion: 'TLSv1.2', ...(session ? { session } : {}) }, () => {
      const out = { reused: sock.isSessionReused(), session: sock.getSession(), ticket: sock.getTLSTicket() };
      sock.end();
      resolve(out);
    });
    sock.setTimeout(10_000, () => sock.destroy(new Error('TLS handshake timeout')));
    sock.on('error', reject);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

void describe('settings/ssl_session_cache.go', () => {
  let s: Suite;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-session-cache-'));
  /**
   * Whether a second connection resumes the first one's session, after `pauseMs`. The pause is never 0: nginx stores
   * a TLS 1.2 session in its cache only after it has sent its Finished, so a client that reconnects the instant it
   * reads that Finished can reach another worker before the first one has stored it (seen once in CI, on a loaded
   * machine). A real client reconnects later than 100 ms.
   */
  const resumes = async (pauseMs = 100) => {
    const first = await handshake(s.portico.https, HOST);
    await sleep(pauseMs);
    return (await handshake(s.portico.https, HOST, first.session)).reused;
  };

  before(async () => {
    const pem = makeCert(certDir, HOST, { sans: [HOST] });
    s = await startSuite({ objects: [tlsSecret('session-cache', pem)] });
    const base = ing(HOST, HOST);
    await s.put(
      'ingress.json',
      [{ ...base, spec: { ...base.spec, tls: [{ hosts: [HOST], secretName: 'session-cache' }] } }],
      async () => (await handshake(s.portico.https, HOST)).session !== undefined && resumes(),
    );
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should have default ssl_session_cache and ssl_session_timeout values', async () => {
    assert.equal((await handshake(s.portico.https, HOST)).ticket, undefined);
    assert.equal(await resumes(), true);
  });

  test('should disable ssl_session_cache', async () => {
    await s.config({ 'ssl-session-cache': 'false' }, async () => !(await resumes()));
    assert.equal(await resumes(), false);
  });

  test('should set ssl_session_cache value', async () => {
    // From a disabled cache, so that the change is seen to land.
    await s.config({ 'ssl-session-cache-size': '20m' }, () => resumes());
    assert.equal(await resumes(), true);
  });

  test('should set ssl_session_timeout value', async () => {
    // 30m cannot be waited out: with 1s a session is no longer resumed 2.5 s later; with 30m it is.
    await s.config({ 'ssl-session-timeout': '1s' }, async () => !(await resumes(2_500)));
    await s.config({ 'ssl-session-timeout': '30m' }, () => resumes(2_500));
    assert.equal(await resumes(2_500), true);
  });
});
