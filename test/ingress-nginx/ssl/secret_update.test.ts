// ingress-nginx e2e ssl/secret_update.go: a Secret no Ingress uses changes nothing (no reload, no log line naming it),
// and a Secret without a key pair gets the default (fake) certificate served, with a Warning naming the Secret.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsGet, makeCert, presented } from '../../support/certs.js';
import { scrape, total } from '../../support/prometheus.js';
import { until } from '../../support/portico.js';
import { tlsSecret } from '../../support/tls-manifests.js';
import { ing, startSuite, type Suite } from '../harness.js';

const FAKE = 'Kubernetes Ingress Controller Fake Certificate';
const b64 = (t: string): string => Buffer.from(t).toString('base64');

void describe('ssl/secret_update.go', () => {
  let s: Suite;
  let certDir: string;
  const withTls = (name: string, host: string) => {
    const i = ing(name, host);
    return { ...i, spec: { ...i.spec, tls: [{ hosts: [host], secretName: name }] } };
  };
  const dummy = (data: Record<string, string>) => ({ apiVersion: 'v1', kind: 'Secret', type: 'Opaque', metadata: { name: 'dummy', namespace: 'default' }, data });
  before(async () => {
    certDir = mkdtempSync(join(tmpdir(), 'portico-secret-'));
    s = await startSuite();
  });
  after(async () => {
    await s.stop();
    rmSync(certDir, { recursive: true, force: true });
  });

  test('should not appear references to secret updates not used in ingress rules', async () => {
    const host = 'ssl-update';
    await s.put('dummy.json', [dummy({ key: b64('value') })], () => Promise.resolve(true));
    await s.put('ssl-update.json', [withTls(host, host), tlsSecret(host, makeCert(certDir, host, { sans: [host] }))], async () => (await presented(s.portico.https, host)).cn === host);
    const scrapeOf = async () => scrape(s.portico);
    const first = await scrapeOf();
    await s.dir.write('dummy.json', [dummy({ key: b64('value'), 'some-key': b64('some value') })]);
    // The change was taken (a sync ran on it) ...
    await until('a sync after the Secret change', async () => total(await scrapeOf(), 'portico_syncs_total') > total(first, 'portico_syncs_total'), 10_000);
    // ... and it reloaded nothing, and no log line names the unused Secret.
    assert.equal(total(await scrapeOf(), 'nginx_ingress_controller_success'), total(first, 'nginx_ingress_controller_success'));
    assert.ok(!s.portico.output.some((l) => l.includes('default/dummy')));
  });

  test('should return the fake SSL certificate if the secret is invalid', async () => {
    const host = 'invalid-ssl';
    await s.put('invalid.json', [{ apiVersion: 'v1', kind: 'Secret', metadata: { name: host, namespace: 'default' } }, withTls(host, host)], async () => (await s.get(host, '/')).status === 308);
    const r = await httpsGet(s.portico.https, host, '/');
    assert.equal(r.status, 200);
    assert.equal((await presented(s.portico.https, host)).cn, FAKE);
    await until('a Warning naming the Secret', () => Promise.resolve(s.portico.output.some((l) => l.includes('"level":40') && l.includes('default/invalid-ssl'))), 10_000);
  });
});
