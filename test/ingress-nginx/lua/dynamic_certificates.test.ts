// ingress-nginx e2e lua/dynamic_certificates.go: certificates are served through Lua (ssl_certificate_by_lua); a new,
// updated or deleted Secret changes the certificate nginx presents without a reload (the reload counter
// nginx_ingress_controller_success stays), and a host without one gets the default (fake) certificate.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, presented, type Pem } from '../../support/certs.js';
import { scrape, total } from '../../support/prometheus.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { echoed, ing, startSuite, type Suite } from '../harness.js';

const FAKE = 'Kubernetes Ingress Controller Fake Certificate';

void describe('lua/dynamic_certificates.go', () => {
  let s: Suite;
  let certDir: string;
  const cert = (host: string): Pem => makeCert(certDir, host, { sans: [host] });
  const withTls = (name: string, host: string) => {
    const i = ing(name, host);
    return { ...i, spec: { ...i.spec, tls: [{ hosts: [host], secretName: name }] } };
  };
  const reloads = async (): Promise<number> => total(await scrape(s.portico), 'nginx_ingress_controller_success');
  const cn = async (servername: string): Promise<string> => (await presented(s.portico.https, servername)).cn;
  /** The upstream BeforeEach of "given an ingress with TLS correctly configured": the default certificate, then its own. */
  const configured = async (file: string, host: string): Promise<Pem> => {
    await s.put(`${file}.json`, [withTls(file, host)], async () => (await s.get(host, '/')).status === 308 && (await cn(host)) === FAKE);
    const pem = cert(host);
    await s.put(`${file}.json`, [withTls(file, host), tlsSecret(file, pem)], async () => (await cn(host)) === host);
    return pem;
  };

  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'portico-dyncert-'));
    s = await startSuite();
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('picks up the certificate when we add TLS spec to existing ingress', async () => {
    const host = 'add.foo.com';
    await s.put('add.json', [ing('add', host)], async () => (await s.get(host, '/')).status === 200);
    await s.put('add.json', [withTls('add', host), tlsSecret('add', cert(host))], async () => (await cn(host)) === host);
  });

  test('picks up the previously missing secret for a given ingress without reloading', async () => {
    const host = 'missing.foo.com';
    await s.put('missing.json', [withTls('missing', host)], async () => (await s.get(host, '/')).status === 308);
    assert.equal(await cn(host), FAKE);
    const before = await reloads();
    await s.put('missing.json', [withTls('missing', host), tlsSecret('missing', cert(host))], async () => (await cn(host)) === host);
    assert.equal(await reloads(), before);
  });

  test('supports requests with domain with trailing dot', async () => {
    const host = 'dot.foo.com';
    await configured('dot', host);
    assert.equal(await cn(`${host}.`), host);
  });

  test('picks up the updated certificate without reloading', async () => {
    const host = 'update.foo.com';
    const old = await configured('update', host);
    const before = await reloads();
    const next = cert(host);
    assert.notEqual(next.fingerprint, old.fingerprint);
    await s.put('update.json', [withTls('update', host), tlsSecret('update', next)], async () => (await presented(s.portico.https, host)).fingerprint === next.fingerprint);
    assert.equal(await reloads(), before);
  });

  test('falls back to using default certificate when secret gets deleted without reloading', async () => {
    const host = 'delete.foo.com';
    await configured('delete', host);
    const before = await reloads();
    await s.put('delete.json', [withTls('delete', host)], async () => (await cn(host)) === FAKE);
    assert.equal(await reloads(), before);
  });

  test('picks up a non-certificate only change', async () => {
    const host = 'rename.foo.com';
    const pem = await configured('rename', host);
    const renamed = withTls('rename', 'foo2.com');
    await s.put(
      'rename.json',
      [{ ...renamed, spec: { ...renamed.spec, tls: [{ hosts: [host], secretName: 'rename' }] } }, tlsSecret('rename', pem)],
      async () => (await s.get('foo2.com', '/')).status === 200,
    );
    assert.equal(await cn('foo2.com'), FAKE);
  });

  test('removes HTTPS configuration when we delete TLS spec', async () => {
    const host = 'notls.foo.com';
    const pem = await configured('notls', host);
    assert.equal((await s.get(host, '/')).status, 308);
    await s.put('notls.json', [ing('notls', host), tlsSecret('notls', pem)], async () => (await s.get(host, '/')).status === 200);
    assert.equal(echoed(await s.get(host, '/')).id, 'echo');
  });
});
