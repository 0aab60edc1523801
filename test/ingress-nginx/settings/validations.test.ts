// ingress-nginx e2e settings/validations/validations.go: under the ConfigMap's annotations-risk-level Medium, the
// validating webhook (Portico's --validating-webhook in local mode) admits an Ingress with Low and Medium annotations
// and refuses it once it carries High ones. Where upstream creates and updates with kubectl, the test sends the
// AdmissionReview the API server would send.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../../support/certs.js';
import { freePort } from '../../support/portico.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

interface Verdict {
  readonly allowed: boolean;
  readonly message: string;
}

const HOST = 'annotation-validations';
/** The upstream test's Low (default-backend) and Medium (denylist-source-range) annotations. */
const LOW_AND_MEDIUM = { 'default-backend': 'bla', 'denylist-source-range': '1.1.1.1/32' };
/** The upstream test's High ones (ModSecurity, which Portico refuses at any level: Debian's nginx has no module). */
const MODSECURITY = { 'modsecurity-transaction-id': 'bla123', 'modsecurity-snippet': 'some random stuff;' };

void describe('settings/validations.go', () => {
  let s: Suite;
  let port: number;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-validations-'));

  /** The webhook's verdict on `object` for a CREATE or UPDATE. */
  const review = (object: unknown, operation: 'CREATE' | 'UPDATE'): Promise<Verdict> =>
    new Promise((resolve, reject) => {
      const body = JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'u-1', kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' }, operation, namespace: 'default', object },
      });
      const req = request(
        { host: '127.0.0.1', port, path: '/networking/v1/ingresses', method: 'POST', agent: false, rejectUnauthorized: false, headers: { 'content-type': 'application/json' }, timeout: 20_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const r = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { response: { allowed: boolean; status?: { message: string } } }).response;
            resolve({ allowed: r.allowed, message: r.status?.message ?? '' });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('webhook: no answer in 20 s')));
      req.on('error', reject);
      req.end(body);
    });
  /** An Ingress rated High in both controllers that Portico serves: refused above Medium only. */
  const high = () => ing('high-risk', 'high-risk', { annotations: ann({ 'auth-url': 'http://auth.example.com/check' }) });

  before(async () => {
    const pem = makeCert(certDir, 'portico-validations', { sans: ['localhost'] });
    writeFileSync(join(certDir, 'tls.crt'), pem.cert);
    writeFileSync(join(certDir, 'tls.key'), pem.key);
    // The webhook's port is picked before Portico starts: another socket (an outgoing connection's ephemeral port) may
    // take it meanwhile, and Portico then refuses to start (PORTICO_PORT_UNAVAILABLE): another port, at most 3 times.
    for (let attempt = 1; ; attempt += 1) {
      port = await freePort();
      const args = ['--validating-webhook', `127.0.0.1:${port}`, '--validating-webhook-certificate', join(certDir, 'tls.crt'), '--validating-webhook-key', join(certDir, 'tls.key')];
      try {
        s = await startSuite({ args });
        break;
      } catch (err) {
        if (attempt === 3 || !String(err).includes('PORTICO_PORT_UNAVAILABLE')) throw err;
      }
    }
    // At the default level (High) a High annotation is admitted.
    const atHigh = await review(high(), 'CREATE');
    assert.equal(atHigh.allowed, true, atHigh.message);
    await s.config({ 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Medium' }, async () => !(await review(high(), 'CREATE')).allowed);
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  /** Both upstream Its (they are the same test twice): admitted with Low and Medium, refused with High. */
  const byRisk = async (operation: 'CREATE' | 'UPDATE') => {
    const allowed = await review(ing(HOST, HOST, { annotations: ann(LOW_AND_MEDIUM) }), operation);
    assert.equal(allowed.allowed, true, allowed.message);
    const risky = await review(ing(HOST, HOST, { annotations: ann({ ...LOW_AND_MEDIUM, ...MODSECURITY }) }), operation);
    assert.equal(risky.allowed, false);
    assert.match(risky.message, /modsecurity/);
    // A High annotation Portico does serve is refused for its risk alone.
    const highRisk = await review(high(), operation);
    assert.equal(highRisk.allowed, false);
    assert.match(highRisk.message, /auth-url.*rated High, above --annotations-risk-level Medium/);
  };

  test('should allow ingress based on their risk on webhooks', () => byRisk('CREATE'));

  test('should allow ingress based on their risk on webhooks', () => byRisk('UPDATE'));
});
