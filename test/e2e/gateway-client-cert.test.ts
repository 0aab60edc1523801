// Gateway client-certificate validation beyond what the conformance suite checks (docs/adr/0036), through real nginx:
// a CA on one namespace's Gateway changes nothing for another namespace's host on the same port, a certificate is
// never accepted for a host it was not verified for, and a Gateway's plain HTTP routes, which nginx also answers on
// the HTTPS port, are verified there as its HTTPS listeners are.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, type Pem } from '../support/certs.js';
import { until } from '../support/portico.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { APP_NS, INFRA_NS as NS } from '../gateway-conformance/base.js';
import { mismatch, type Expected } from '../gateway-conformance/expect.js';
import { backend, httpRoute, mustBeAccepted, startConformance, type Conformance } from '../gateway-conformance/harness.js';
import { caRef, clientGateway, configMap, tlsRoundTrip } from '../gateway-conformance/client-cert-helpers.js';

const V1 = 'infra-backend-v1';

describe('Gateway API: client certificate validation stays on its own hosts', () => {
  let c: Conformance;
  let dir: string;
  let ca: Pem;
  let otherCa: Pem;
  let client: Pem;
  let otherClient: Pem;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-client-cert-e2e-'));
    ca = makeCert(dir, 'client-validation-ca', { isCa: true });
    otherCa = makeCert(dir, 'tenant-ca', { isCa: true });
    client = makeCert(dir, 'client', { ca });
    otherClient = makeCert(dir, 'tenant-client', { ca: otherCa });
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  /** One HTTPS request (SNI and Host `host` unless `sni`): its status and pod, or `refused` when it got no answer. */
  const ask = (host: string, cert?: Pem, sni = host): Promise<string> =>
    tlsRoundTrip(c.portico.https, sni, host, c.cert.fingerprint, cert).then(
      (r) => `${r.status} ${r.echo?.pod ?? ''}`.trim(),
      () => 'refused',
    );
  /** 3 answers in a row meet `e` within 30 s. */
  const succeeds = async (e: Expected, cert?: Pem): Promise<void> => {
    let inARow = 0;
    let last = '';
    await until(
      `https://${e.request.host ?? ''}/ 3 times in a row`,
      async () => {
        const why = await tlsRoundTrip(c.portico.https, e.request.host ?? '', e.request.host ?? '', c.cert.fingerprint, cert).then(
          (got) => mismatch(e, got),
          (err: unknown) => String(err),
        );
        last = why ?? '';
        inARow = why === undefined ? inARow + 1 : 0;
        return inARow >= 3;
      },
      30_000,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${last}`);
    });
  };

  test('another namespace on the same port: its host unchanged, no certificate crosses hosts', async () => {
    const gw = 'client-validation-default';
    await c.apply([
      clientGateway(gw, [{ name: 'https', port: 443 }], { default: { caCertificateRefs: [caRef('client-ca')] } }),
      configMap('client-ca', { 'ca.crt': ca.cert }),
      httpRoute('verified', { parentRefs: [{ name: gw }], hostnames: ['example.org'], rules: [{ backendRefs: [backend(V1)] }] }),
      tlsSecret('tenant-certificate', { cert: c.cert.cert, key: c.cert.key }, APP_NS),
      clientGateway(
        'tenant',
        [{ name: 'https', port: 443, hostname: 'tenant.org' }],
        { default: { mode: 'AllowInsecureFallback', caCertificateRefs: [caRef('tenant-ca')] } },
        APP_NS,
        'tenant-certificate',
      ),
      configMap('tenant-ca', { 'ca.crt': otherCa.cert }, APP_NS),
      httpRoute('tenant', { parentRefs: [{ name: 'tenant' }], hostnames: ['tenant.org'], rules: [{ backendRefs: [backend('app-backend-v1')] }] }, APP_NS),
    ]);
    await mustBeAccepted(c, gw, [[NS, 'verified']]);
    await mustBeAccepted(c, 'tenant', [[APP_NS, 'tenant']]);
    await succeeds({ request: { host: 'example.org', path: '/' }, response: { statusCode: 200 }, backend: V1, namespace: NS }, client);
    assert.equal(await ask('example.org'), 'refused', 'example.org without a certificate');
    assert.equal(await ask('example.org', otherClient), 'refused', "example.org with the other namespace's CA's certificate");
    // the other namespace's host on the same port: served without a certificate, and with its own CA's
    const tenant: Expected = { request: { host: 'tenant.org', path: '/' }, response: { statusCode: 200 }, backend: 'app-backend-v1', namespace: APP_NS };
    await succeeds(tenant);
    await succeeds(tenant, otherClient);
    // a connection made for tenant.org (its CA, or none) cannot ask for example.org
    for (const cert of [undefined, otherClient, client]) {
      const got = await ask('example.org', cert, 'tenant.org');
      assert.ok(got === 'refused' || got === '421', `SNI tenant.org, Host example.org: ${got}`);
    }
  });

  test("a Gateway's HTTP routes, also answered on the HTTPS port, are verified there", async () => {
    const gw = 'client-validation-with-http';
    await c.apply([
      clientGateway(
        gw,
        [
          { name: 'https', port: 443, hostname: 'secure.org' },
          { name: 'http', port: 80, protocol: 'HTTP' },
        ],
        { default: { caCertificateRefs: [caRef('client-ca')] } },
      ),
      configMap('client-ca', { 'ca.crt': ca.cert }),
      httpRoute('plain', { parentRefs: [{ name: gw, sectionName: 'http' }], hostnames: ['plain.org'], rules: [{ backendRefs: [backend(V1)] }] }),
      httpRoute('catch-all', { parentRefs: [{ name: gw, sectionName: 'http' }], rules: [{ matches: [{ path: { type: 'PathPrefix', value: '/catch-all' } }], backendRefs: [backend(V1)] }] }),
    ]);
    await mustBeAccepted(c, gw, [[NS, 'plain']]);
    await c.expect({ request: { host: 'plain.org', path: '/' }, response: { statusCode: 200 }, backend: V1, namespace: NS });
    await succeeds({ request: { host: 'plain.org', path: '/' }, response: { statusCode: 200 }, backend: V1, namespace: NS }, client);
    assert.equal(await ask('plain.org'), 'refused', 'plain.org over HTTPS without a certificate');
    // a route without hostnames cannot be verified (the catch-all answers every namespace's unknown names): not served
    await c.expect({ request: { host: 'unknown.example', path: '/catch-all' }, response: { statusCode: 404 } });
  });
});
