// ingress-nginx e2e admission/admission.go: the validating admission webhook over HTTPS (Portico's --validating-webhook
// in local mode, judging against what the manifest folder holds). Where upstream creates an Ingress with kubectl,
// the test sends the AdmissionReview the API server would send, and an allowed Ingress is then served for real.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:https';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert } from '../../support/certs.js';
import { backendObjects } from '../../support/manifests.js';
import { freePort } from '../../support/portico.js';
import { ingress, type PathSpec } from '../../support/objects.js';
import { ann, echoed, ing, startSuite, type Suite } from '../harness.js';

interface Answer {
  readonly status: number;
  readonly allowed?: boolean;
  readonly message?: string;
  readonly warnings?: readonly string[];
}

void describe('admission/admission.go', () => {
  let s: Suite;
  let port: number;
  let certDir: string;
  const host = 'admission-test';

  /** POSTs `body` to the webhook; the HTTP status, and the review's verdict when there is one. */
  const post = (body: string): Promise<Answer> =>
    new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/networking/v1/ingresses', method: 'POST', agent: false, rejectUnauthorized: false, headers: { 'content-type': 'application/json' }, timeout: 20_000 },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            const text = Buffer.concat(chunks).toString('utf8');
            if (res.statusCode !== 200) {
              resolve({ status: res.statusCode ?? 0 });
              return;
            }
            const r = (JSON.parse(text) as { response: { allowed: boolean; status?: { message: string }; warnings?: string[] } }).response;
            resolve({ status: 200, allowed: r.allowed, warnings: r.warnings ?? [], ...(r.status ? { message: r.status.message } : {}) });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error('webhook: no answer in 20 s')));
      // The server may answer 413 and close while the body is still being sent.
      req.on('error', reject);
      req.end(body);
    });
  const review = (object: unknown): Promise<Answer> =>
    post(
      JSON.stringify({
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        request: { uid: 'u-1', kind: { group: 'networking.k8s.io', version: 'v1', kind: 'Ingress' }, operation: 'CREATE', namespace: 'default', object },
      }),
    );
  const multi = (name: string, paths: string[], annotations?: Record<string, string>) =>
    ingress(name, { host, className: 'portico', paths: paths.map((p): PathSpec => ({ path: p, type: 'Prefix', service: 'echo' })), ...(annotations ? { annotations } : {}) });
  const withType = (name: string, path: string, type: PathSpec['type'], annotations?: Record<string, string>) => ing(name, 'path-validation', { path, type, ...(annotations ? { annotations } : {}) });

  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'portico-admission-'));
    const pem = makeCert(certDir, 'portico-admission', { sans: ['localhost'] });
    writeFileSync(join(certDir, 'tls.crt'), pem.cert);
    writeFileSync(join(certDir, 'tls.key'), pem.key);
    port = await freePort();
    s = await startSuite({ args: ['--validating-webhook', `127.0.0.1:${port}`, '--validating-webhook-certificate', join(certDir, 'tls.crt'), '--validating-webhook-key', join(certDir, 'tls.key')] });
    await s.put(
      'ingresses.json',
      [ing('first-ingress', host, { paths: [{ path: '/', type: 'Prefix', service: 'echo' }] }), multi('first-multi', ['/safe-path-1', '/conflict-path'])],
      async () => (await s.get(host, '/')).status === 200,
    );
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should not allow REALLY large ingresses', async () => {
    const r = await post('b'.repeat(9 * 1024 * 1024));
    assert.equal(r.status, 413);
  });

  test('should not allow overlaps of host and paths without canary annotations', async () => {
    const r = await review(ing('second-ingress', host));
    assert.equal(r.allowed, false, r.message);
  });

  test('should not allow overlaps of host and paths without canary annotations in any rule', async () => {
    const r = await review(multi('second-multi', ['/safe-path-2', '/conflict-path']));
    assert.equal(r.allowed, false, r.message);
  });

  test('should allow overlaps of host and paths with canary annotation', async () => {
    await s.put('slow.json', backendObjects('slow-echo', s.echo.port), () => Promise.resolve(true));
    const r = await review(ing('second-ingress', host, { service: 'slow-echo', annotations: ann({ canary: 'true', 'canary-by-header': 'CanaryByHeader' }) }));
    assert.equal(r.allowed, true, r.message);
  });

  // Deliberate: a path is only a URL prefix in Portico (escaped into nginx.conf, never a file name), so /etc/nginx is
  // allowed and served like any other; ingress-nginx refused paths naming its own files against template injection.
  test('should block ingress with invalid path', async () => {
    const object = ing('second-ingress', 'invalid-path', { path: '/etc/nginx' });
    const r = await review(object);
    assert.equal(r.allowed, true, r.message);
    await s.put('invalid-path.json', [object], async () => (await s.get('invalid-path', '/etc/nginx')).status === 200);
    assert.equal((await s.get('invalid-path', '/mypage')).status, 404);
  });

  test('should return an error if there is an error validating the ingress definition', async () => {
    const candidate = ing('snippet-ingress', 'snippet-test', { annotations: ann({ 'configuration-snippet': 'something invalid' }) });
    // While snippets are off the snippet is only ignored with a Warning; the webhook sees the ConfigMap once it is read.
    await s.config({ 'allow-snippet-annotations': 'true', 'annotations-risk-level': 'Critical' }, async () => (await review(candidate)).allowed === false);
    const r = await review(candidate);
    assert.equal(r.allowed, false);
    assert.match(r.message ?? '', /configuration-snippet/);
  });

  // Deliberate (docs/adr/0016): a refused value of an annotation that protects nothing is left out with a Warning,
  // and the webhook admits the Ingress with that Warning (kubectl prints it); ingress-nginx's webhook refused it.
  test('should return an error if there is an invalid value in some annotation', async () => {
    const object = ing('value-ingress', 'value-test', { annotations: ann({ 'connection-proxy-header': 'a;}' }) });
    const r = await review(object);
    assert.equal(r.allowed, true);
    assert.ok(
      r.warnings?.some((w) => w.includes('connection-proxy-header')),
      JSON.stringify(r.warnings),
    );
    // Served without it: the backend sees the Connection header nginx sends by default.
    await s.put('value.json', [object], async () => (await s.get('value-test', '/')).status === 200);
    assert.equal(echoed(await s.get('value-test', '/')).headers['connection'], echoed(await s.get(host, '/')).headers['connection']);
  });

  test('should return an error if there is a forbidden value in some annotation', async () => {
    const r = await review(ing('forbidden-ingress', 'forbidden-test', { annotations: ann({ 'connection-proxy-header': 'set_by_lua' }) }));
    assert.equal(r.allowed, true);
    assert.ok(
      r.warnings?.some((w) => w.includes('connection-proxy-header') && w.includes('set_by_lua')),
      JSON.stringify(r.warnings),
    );
  });

  test('should return an error if there is an invalid path and wrong pathType is set', async () => {
    assert.equal((await review(withType('first-ingress', '/foo/bar/[a-z]{3}', 'Exact'))).allowed, false);
    assert.equal((await review(withType('first-ingress', '/foo/bar/[a-z]{3}', 'Prefix'))).allowed, false);
    const specific = await review(withType('pathspec-ingress', '/foo/bar/[a-z]{3}', 'ImplementationSpecific', ann({ 'use-regex': 'true', 'rewrite-target': '/new/backend' })));
    assert.equal(specific.allowed, true, specific.message);
    const valid = await review(withType('second-ingress', '/bloblo', 'Prefix'));
    assert.equal(valid.allowed, true, valid.message);
  });

  test('should not return an error if the Ingress V1 definition is valid with Ingress Class', async () => {
    const object = ing('extensions', 'extensions');
    const r = await review(object);
    assert.equal(r.allowed, true, r.message);
    await s.put('extensions.json', [object], async () => (await s.get('extensions', '/')).status === 200);
  });

  test('should not return an error if the Ingress V1 definition is valid with IngressClass annotation', async () => {
    const object = ingress('extensions-class', { host: 'extensions-class', annotations: { 'kubernetes.io/ingress.class': 'portico' }, paths: [{ path: '/', type: 'Prefix', service: 'echo' }] });
    const r = await review(object);
    assert.equal(r.allowed, true, r.message);
    await s.put('extensions-class.json', [object], async () => (await s.get('extensions-class', '/')).status === 200);
  });

  test('should return an error if the Ingress V1 definition contains invalid annotations', async () => {
    const r = await review(ing('extensions-invalid', 'extensions-invalid', { annotations: ann({ 'configuration-snippet': 'invalid directive\n' }) }));
    assert.equal(r.allowed, false);
    assert.match(r.message ?? '', /configuration-snippet/);
  });

  test('should not return an error for an invalid Ingress when it has unknown class', async () => {
    const object = ingress('extensions-invalid-other', {
      host: 'extensions-invalid',
      className: 'nginx-other',
      annotations: ann({ 'configuration-snippet': 'invalid directive\n' }),
      paths: [{ path: '/', type: 'Prefix', service: 'echo' }],
    });
    const r = await review(object);
    assert.equal(r.allowed, true, r.message);
  });
});
