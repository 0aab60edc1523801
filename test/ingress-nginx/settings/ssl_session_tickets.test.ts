// ingress-nginx e2e settings/ssl_session_tickets.go: ssl-session-tickets and ssl-session-ticket-key, seen by a TLS 1.2
// client: whether nginx issues a ticket, and which key seals it.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:tls';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../../support/certs.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ing, startSuite, type Suite } from '../harness.js';

const HOST = 'ssl-session-tickets';
const KEY = 'WW9gcPHgfcrw6DNqY5VE2NjM6gtgUhJ4Vn6ZwRGi/7+A9TNFa4Fvfe1cmlPec9bxDoenN70aMBeZBlcrKshnKT4WJxFNLCuTHhfn4loTOEo=';

/** A TLS 1.2 handshake offering `session`: whether it was resumed, the session to offer next and nginx's ticket. */
function handshake(port: number, session?: Buffer): Promise<{ reused: boolean; session: Buffer | undefined; ticket: Buffer | undefined }> {
  return new Promise((resolve, reject) => {
    const sock = connect({ host: '127.0.0.1', port, servername: HOST, rejectUnauthorized: false, maxVersion: 'TLSv1.2', ...(session ? { session } : {}) }, () => {
      const out = { reused: sock.isSessionReused(), session: sock.getSession(), ticket: sock.getTLSTicket() };
      sock.end();
      resolve(out);
    });
    sock.setTimeout(10_000, () => sock.destroy(new Error('TLS handshake timeout')));
    sock.on('error', reject);
  });
}

void describe('settings/ssl_session_tickets.go', () => {
  let s: Suite;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-session-tickets-'));
  const ticket = async () => (await handshake(s.portico.https)).ticket;
  const base = ing(HOST, HOST);
  const withTls = { ...base, spec: { ...base.spec, tls: [{ hosts: [HOST], secretName: 'session-tickets' }] } };

  before(async () => {
    const pem = makeCert(certDir, HOST, { sans: [HOST] });
    s = await startSuite({ objects: [tlsSecret('session-tickets', pem)] });
    await s.put('ingress.json', [withTls], async () => (await handshake(s.portico.https)).session !== undefined);
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should have default ssl_session_tickets value', async () => {
    assert.equal(await ticket(), undefined);
  });

  test('should set ssl_session_tickets value', async () => {
    await s.config({ 'ssl-session-tickets': 'true' }, async () => (await ticket()) !== undefined);
    assert.ok((await ticket()) instanceof Buffer);
  });

  test('should set ssl_session_tickets and ssl_session_ticket_key values', async () => {
    // A ticket begins with the name of the key that sealed it: the first 16 bytes of the key given. Without the session
    // cache only the ticket can resume the session.
    const name = Buffer.from(KEY, 'base64').subarray(0, 16);
    const cfg = { 'ssl-session-tickets': 'true', 'ssl-session-cache': 'false', 'ssl-session-ticket-key': KEY };
    await s.config(cfg, async () => (await ticket())?.subarray(0, 16).equals(name) === true);
    const first = await handshake(s.portico.https);
    assert.ok(first.ticket?.subarray(0, 16).equals(name));
    assert.equal((await handshake(s.portico.https, first.session)).reused, true);
  });
});
