// Bounded work: a long sync never blocks /healthz or the admission webhook. 2,500 Ingresses on one host,
// each with its own TLS Secret, make the build (annotation stage → model → nginx.conf) take seconds of CPU here;
// it runs on a worker thread, so /healthz polled every 20 ms answers each time (within 3 s, a fraction of the sync) all along, and the
// webhook answers a review while the sync runs.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBackend, type Backend } from '../support/backends.js';
import { makeCert, type Pem } from '../support/certs.js';
import { backendObjects, manifestFolder, type ManifestDir } from '../support/manifests.js';
import { ingress } from '../support/objects.js';
import { freePort, get, startPortico, until, who, type Running } from '../support/portico.js';
import { tlsSecret } from '../support/tls-manifests.js';

const N = 2500;

function review(object: unknown): string {
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: 'during-sync',
      kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' },
      resource: { group: 'networking.k8s.io', version: 'v1', resource: 'ingresses' },
      operation: 'CREATE',
      namespace: 'default',
      name: 'newcomer',
      object,
      userInfo: { username: 'test' },
      dryRun: false,
    },
  });
}

function postReview(port: number, ca: string, body: string): Promise<{ status: number; allowed: boolean | undefined }> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: '/', method: 'POST', ca, servername: 'localhost', agent: false, timeout: 60_000, headers: { 'content-type': 'application/json' } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const parsed = res.statusCode === 200 ? (JSON.parse(text) as { response: { allowed: boolean } }).response.allowed : undefined;
        resolve({ status: res.statusCode ?? 0, allowed: parsed });
      });
    });
    req.on('timeout', () => {
      req.destroy(new Error('review timed out'));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('a long sync never blocks /healthz or the webhook', () => {
  let backend: Backend;
  let dir: ManifestDir;
  let portico: Running;
  let certDir = '';
  let pem: Pem;
  let webhookPort = 0;

  before(async () => {
    backend = await startBackend('web');
    dir = await manifestFolder();
    certDir = mkdtempSync(join(tmpdir(), 'portico-responsive-'));
    pem = makeCert(certDir, 'localhost', { sans: ['localhost', 'one.test'] });
    writeFileSync(join(certDir, 'tls.crt'), pem.cert);
    writeFileSync(join(certDir, 'tls.key'), pem.key, { mode: 0o600 });
    await dir.write('web.json', backendObjects('web', backend.port));
    webhookPort = await freePort();
    portico = await startPortico([
      '--manifests',
      dir.dir,
      '--validating-webhook',
      `127.0.0.1:${webhookPort}`,
      '--validating-webhook-certificate',
      join(certDir, 'tls.crt'),
      '--validating-webhook-key',
      join(certDir, 'tls.key'),
    ]);
  });

  after(async () => {
    await portico?.stop();
    await backend?.close();
    await dir?.remove();
    rmSync(certDir, { recursive: true, force: true });
  });

  test(`/healthz keeps answering all through the sync of ${N} TLS Ingresses, and a review is answered`, async () => {
    const objects: unknown[] = [];
    for (let i = 0; i < N; i++) {
      objects.push(tlsSecret(`cert-${i}`, pem));
      const ing = ingress(`tenant-${i}`, { className: 'portico', host: 'one.test', paths: [{ path: `/p${i}`, type: 'Prefix', service: 'web' }] });
      objects.push({ ...ing, spec: { ...ing.spec, tls: [{ hosts: ['one.test'], secretName: `cert-${i}` }] } });
    }
    const syncsBefore = portico.output.filter((l) => l.includes('"msg":"sync"')).length;
    await dir.write('big.json', objects);
    const reviewed = postReview(webhookPort, pem.cert, review(ingress('newcomer', { className: 'portico', host: 'new.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] })));
    let polls = 0;
    let slowest = 0;
    const deadline = Date.now() + 120_000;
    const lastPath = `/p${N - 1}`;
    // Until the big sync is served: https would redirect, so the last path is asked for on HTTP with the redirect seen.
    while (Date.now() < deadline) {
      const t = Date.now();
      // 3 s: far less than the sync's CPU time, so a blocked event loop fails, while a loaded 2-core machine does not
      const r = await get(portico.healthz, 'localhost', '/healthz', { timeoutMs: 3000 });
      slowest = Math.max(slowest, Date.now() - t);
      assert.equal(r.status, 200, '/healthz stays 200 while the sync runs');
      polls += 1;
      const synced = portico.output.filter((l) => l.includes('"msg":"sync"')).length > syncsBefore;
      if (synced && (await who(portico.http, 'one.test', lastPath)) !== '404') break;
      await new Promise((r2) => setTimeout(r2, 20));
    }
    const sync = portico.output
      .filter((l) => l.includes('"msg":"sync"'))
      .slice(syncsBefore)
      .map((l) => JSON.parse(l) as { ms: number })[0];
    console.log(`# ${polls} /healthz polls during a ${sync?.ms ?? '?'} ms sync; slowest answer ${slowest} ms`);
    assert.ok(sync !== undefined, 'the big sync ran');
    assert.ok(polls >= 10, `${polls} polls while the sync ran`);
    const answer = await reviewed;
    assert.deepEqual(answer, { status: 200, allowed: true }, 'the webhook answered a review sent while the sync ran');
    await until('the last path served', async () => (await who(portico.http, 'one.test', lastPath)) !== '404', 10_000);
  });
});
