// ingress-nginx e2e annotations/authtls.go: client-certificate authentication (auth-tls-*) over real TLS, with a CA,
// a server certificate and a client certificate made by openssl in the test. Each upstream test has a namespace of
// its own; here each has a host of its own, so one test's Ingress never answers for another's.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Echo } from '../../support/backends.js';
import { httpsGet, makeCert, type Pem } from '../../support/certs.js';
import { ann, ing, startSuite, type Suite } from '../harness.js';

/** The request headers the echo backend received, from its JSON answer. */
const sentHeaders = (body: string): Echo['headers'] => (JSON.parse(body) as Echo).headers;
const b64 = (text: string): string => Buffer.from(text).toString('base64');
const HOSTS = ['secret', 'off', 'errorpage', 'pass', 'verify', 'nocn', 'cn', 'reload', 'cnregex'].map((t) => `${t}.authtls.foo.com`);

void describe('annotations/authtls.go', () => {
  let s: Suite;
  let client: Pem;
  const certDir = mkdtempSync(join(tmpdir(), 'portico-authtls-'));

  /** As the upstream framework's mutual-auth Secret: the server's certificate and key, and the CA of its clients. */
  const maSecret = (ca: Pem, server: Pem) => ({
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'kubernetes.io/tls',
    metadata: { name: 'authtls', namespace: 'default' },
    data: { 'tls.crt': b64(server.cert), 'tls.key': b64(server.key), 'ca.crt': b64(ca.cert) },
  });
  /** An Ingress for `host` with spec.tls from the mutual-auth Secret and the given annotations. */
  const tlsIng = (host: string, annotations: Record<string, string>) => {
    const i = ing(host, host, { annotations });
    return { ...i, spec: { ...i.spec, tls: [{ hosts: [host], secretName: 'authtls' }] } };
  };
  const https = (host: string, withCert: boolean) => httpsGet(s.portico.https, host, '/', withCert ? client : undefined);
  /** The echo backend answered (not a 503 or an error page that may carry headers too). */
  const served = async (host: string, withCert: boolean) => {
    const r = await https(host, withCert);
    return r.status === 200 && r.body.includes('"method":"GET"');
  };
  const status = async (host: string, withCert: boolean, code: number) => (await https(host, withCert)).status === code;
  const put = (host: string, annotations: Record<string, string>, ready: () => Promise<boolean>) => s.put(`${host}.json`, [tlsIng(host, annotations)], ready);

  before(async () => {
    const ca = makeCert(certDir, 'authtls.foo.com-ca', { isCa: true });
    const server = makeCert(certDir, 'authtls.foo.com', { sans: HOSTS, ca });
    client = makeCert(certDir, 'authtls.foo.com-client', { ca });
    s = await startSuite({ objects: [maSecret(ca, server)] });
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should set sslClientCertificate, sslVerifyClient and sslVerifyDepth with auth-tls-secret', async () => {
    const host = 'secret.authtls.foo.com';
    await put(host, {}, () => served(host, false));
    await put(host, ann({ 'auth-tls-secret': 'default/authtls' }), () => status(host, false, 400));
    assert.equal((await https(host, false)).status, 400);
    assert.ok(await served(host, true));
  });

  test('should set valid auth-tls-secret, sslVerify to off, and sslVerifyDepth to 2', async () => {
    const host = 'off.authtls.foo.com';
    await put(host, ann({ 'auth-tls-secret': 'default/authtls', 'auth-tls-verify-client': 'off', 'auth-tls-verify-depth': '2' }), () => served(host, false));
    const r = await https(host, false);
    assert.equal(r.status, 200);
    // With verification off nginx asks for no certificate: the backend hears that none was checked.
    assert.equal(sentHeaders(r.body)['ssl-client-verify'], 'NONE');
  });

  test('should 302 redirect to error page instead of 400 when auth-tls-error-page is set', async () => {
    const host = 'errorpage.authtls.foo.com';
    const errorPage = `http://127.0.0.1:${s.portico.http}/error`;
    await put(host, ann({ 'auth-tls-secret': 'default/authtls', 'auth-tls-error-page': errorPage }), () => status(host, false, 302));
    const r = await https(host, false);
    assert.equal(r.status, 302);
    assert.equal(r.headers.location, errorPage);
    assert.ok(await served(host, true));
  });

  test('should pass URL-encoded certificate to upstream', async () => {
    const host = 'pass.authtls.foo.com';
    await put(host, ann({ 'auth-tls-secret': 'default/authtls', 'auth-tls-pass-certificate-to-upstream': 'true' }), () => served(host, true));
    assert.equal((await https(host, false)).status, 400);
    const r = await https(host, true);
    assert.equal(r.status, 200);
    const sent = String(sentHeaders(r.body)['ssl-client-cert']);
    assert.ok(sent.startsWith('-----BEGIN%20CERTIFICATE-----%0A'), sent.slice(0, 60));
    // It is the client's own certificate, URL-encoded.
    assert.equal(decodeURIComponent(sent).trim(), client.cert.trim());
  });

  test('should validate auth-tls-verify-client', async () => {
    const host = 'verify.authtls.foo.com';
    await put(host, ann({ 'auth-tls-secret': 'default/authtls', 'auth-tls-verify-client': 'on' }), () => status(host, false, 400));
    assert.ok(await served(host, true));
    assert.equal((await https(host, false)).status, 400);
    await put(host, ann({ 'auth-tls-secret': 'default/authtls', 'auth-tls-verify-client': 'off' }), () => served(host, false));
    assert.ok(await served(host, true));
    assert.ok(await served(host, false));
  });

  test('should return 403 using auth-tls-match-cn with no matching CN from client', async () => {
    const host = 'nocn.authtls.foo.com';
    await put(host, ann({ 'auth-tls-secret': 'default/authtls', 'auth-tls-verify-client': 'on', 'auth-tls-match-cn': 'CN=notgonnamatch' }), () => status(host, true, 403));
    assert.equal((await https(host, true)).status, 403);
    // The CN check comes after the certificate check: without a certificate the answer stays 400.
    assert.equal((await https(host, false)).status, 400);
  });

  test('should return 200 using auth-tls-match-cn with matching CN from client', async () => {
    const host = 'cn.authtls.foo.com';
    await put(host, ann({ 'auth-tls-secret': 'default/authtls', 'auth-tls-verify-client': 'on', 'auth-tls-match-cn': 'CN=authtls' }), () => served(host, true));
    assert.ok(await served(host, true));
    assert.equal((await https(host, false)).status, 400);
  });

  test('should reload the nginx config when auth-tls-match-cn is updated', async () => {
    const host = 'reload.authtls.foo.com';
    const base = { 'auth-tls-secret': 'default/authtls', 'auth-tls-verify-client': 'on' };
    await put(host, ann({ ...base, 'auth-tls-match-cn': 'CN=notvalid' }), () => status(host, true, 403));
    assert.equal((await https(host, true)).status, 403);
    await put(host, ann({ ...base, 'auth-tls-match-cn': 'CN=authtls' }), () => served(host, true));
    assert.ok(await served(host, true));
    assert.equal((await https(host, false)).status, 400);
  });

  test('should return 200 using auth-tls-match-cn where atleast one of the regex options matches CN from client', async () => {
    const host = 'cnregex.authtls.foo.com';
    const a = ann({ 'auth-tls-secret': 'default/authtls', 'auth-tls-verify-client': 'on', 'auth-tls-match-cn': 'CN=(itwillmatch|withthenextoption|authtls)' });
    await put(host, a, () => served(host, true));
    assert.ok(await served(host, true));
    assert.equal((await https(host, false)).status, 400);
  });
});
