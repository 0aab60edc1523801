// Gateway API conformance (v1.6.1), reproduced through real nginx: client certificate validation of HTTPS listeners
// (Gateway spec.tls.frontend, default and perPort, modes AllowValidOnly and AllowInsecureFallback) and its invalid
// references, plus the attack it must not open: another namespace's host on the same port. The listener ports 6443,
// 7443 and 8443 are put on free local ports with --gateway-port-map. Each test is named with the upstream ShortName;
// the manifests and certificates are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, type Pem } from '../support/certs.js';
import { freePort, until } from '../support/portico.js';
import { INFRA_NS as NS } from './base.js';
import { mismatch, type Expected } from './expect.js';
import { caRef, clientGateway, configMap, tlsRoundTrip, type Validation } from './client-cert-helpers.js';
import { backend, httpRoute, mustBeAccepted, startConformance, type Conformance } from './harness.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const CONSISTENCY_MS = 30_000;

describe('GATEWAY-HTTP conformance: client certificate validation on HTTPS listeners', () => {
  let c: Conformance;
  let dir: string;
  let client: Pem;
  let perPortClient: Pem;
  let ca: Pem;
  let perPortCa: Pem;
  const local = { 6443: 0, 7443: 0, 8443: 0 };
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-client-cert-'));
    ca = makeCert(dir, 'client-validation-ca', { isCa: true });
    perPortCa = makeCert(dir, 'client-validation-per-port-ca', { isCa: true });
    client = makeCert(dir, 'client', { ca });
    perPortClient = makeCert(dir, 'per-port-client', { ca: perPortCa });
    for (const p of [6443, 7443, 8443] as const) local[p] = await freePort();
    c = await startConformance(['--gateway-port-map', `6443=${local[6443]},7443=${local[7443]},8443=${local[8443]}`]);
  });
  after(async () => {
    await c?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  const caMaps = (): unknown[] => [configMap('tls-validity-checks-ca-certificate', { 'ca.crt': ca.cert }), configMap('tls-validity-checks-per-port-ca-certificate', { 'ca.crt': perPortCa.cert })];
  const port = (p: number): number => (p === 443 ? c.portico.https : ((local as Record<number, number>)[p] ?? 0));

  /** MakeTLSRequestAndExpectEventuallyConsistentResponse: 3 answers in a row meet `e` within 30 s. */
  const succeeds = async (p: number, e: Expected, cert?: Pem): Promise<void> => {
    const host = e.request.host ?? '';
    let inARow = 0;
    let last = '';
    await until(
      `https://${host}:${p}/ ${cert ? 'with' : 'without'} a client certificate to meet its expectation 3 times in a row`,
      async () => {
        const why = await tlsRoundTrip(port(p), host, host, c.cert.fingerprint, cert).then(
          (got) => mismatch(e, got),
          (err: unknown) => String(err),
        );
        last = why ?? '';
        inARow = why === undefined ? inARow + 1 : 0;
        return inARow >= 3;
      },
      CONSISTENCY_MS,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}: ${last}`);
    });
  };
  /** MakeTLSRequestAndExpectFailureResponse: the request fails (no HTTP answer at all). */
  const fails = async (p: number, host: string, cert?: Pem, sni = host): Promise<void> => {
    const got = await tlsRoundTrip(port(p), sni, host, c.cert.fingerprint, cert).then(
      (r) => `answered ${r.status} by ${r.echo?.pod ?? 'nginx'}`,
      () => undefined,
    );
    assert.equal(got, undefined, `https://${host}:${p}/ (SNI ${sni}) ${cert ? 'with' : 'without'} a client certificate must fail`);
  };
  const ok = (host: string, to: string): Expected => ({ request: { host, path: '/' }, response: { statusCode: 200 }, backend: to, namespace: NS });

  /** GatewayListenerMustHaveConditions / GatewayMustHaveCondition, read from /debug/gateway. */
  const conditionsMust = async (gateway: string, listener: string | undefined, want: readonly (readonly [string, 'True' | 'False', string?])[]): Promise<void> => {
    let seen = '';
    await until(
      `${gateway}${listener === undefined ? '' : ` listener ${listener}`}: ${JSON.stringify(want)}`,
      async () => {
        const g = (await c.debugGateway()).gateways.find((x) => x.name === gateway && x.namespace === NS);
        const conds = listener === undefined ? g?.conditions : g?.listeners.find((l) => l.name === listener)?.conditions;
        seen = JSON.stringify(conds ?? null);
        return want.every(([type, status, reason]) => conds?.some((x) => x.type === type && x.status === status && (reason === undefined || x.reason === reason)) === true);
      },
      CONSISTENCY_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; conditions: ${seen}`);
    });
  };

  const twoListeners = [
    { name: 'https', port: 443 },
    { name: 'https-with-hostname', port: 8443, hostname: 'second-example.org' },
  ];
  const routesOf = (gw: string, names: readonly [string, string]): unknown[] => [
    httpRoute(names[0], { parentRefs: [{ name: gw }], hostnames: ['example.org'], rules: [{ backendRefs: [backend(V1)] }] }),
    httpRoute(names[1], { parentRefs: [{ name: gw, sectionName: 'https-with-hostname' }], rules: [{ backendRefs: [backend(V2)] }] }),
  ];

  test('GatewayFrontendClientCertificateValidation', async () => {
    const gw = 'client-validation-default';
    const names = ['client-certificate-validation-https-test', 'client-certificate-validation-https-test-no-hostname'] as const;
    await c.apply([
      clientGateway(gw, twoListeners, {
        default: { caCertificateRefs: [caRef('tls-validity-checks-ca-certificate')] },
        perPort: [{ port: 8443, validation: { caCertificateRefs: [caRef('tls-validity-checks-per-port-ca-certificate')] } }],
      }),
      ...routesOf(gw, names),
      ...caMaps(),
    ]);
    await mustBeAccepted(c, gw, [
      [NS, names[0]],
      [NS, names[1]],
    ]);
    // default configuration: the default CA's client passes, the per-port CA's client (and no certificate) fails
    await succeeds(443, ok('example.org', V1), client);
    await fails(443, 'example.org', perPortClient);
    await fails(443, 'example.org');
    // per-port configuration on 8443: the other way round
    await succeeds(8443, ok('second-example.org', V2), perPortClient);
    await fails(8443, 'second-example.org', client);
  });

  test('GatewayFrontendClientCertificateValidationInsecureFallback', async () => {
    const gw = 'client-validation-insecure-fallback';
    const names = ['client-cert-validation-insecure-fallback-test', 'client-cert-validation-insecure-fallback-test-no-hostname'] as const;
    const insecure = (name: string): Validation => ({ mode: 'AllowInsecureFallback', caCertificateRefs: [caRef(name)] });
    await c.apply([
      clientGateway(gw, twoListeners, { default: insecure('tls-validity-checks-ca-certificate'), perPort: [{ port: 8443, validation: insecure('tls-validity-checks-per-port-ca-certificate') }] }),
      ...routesOf(gw, names),
      ...caMaps(),
    ]);
    await mustBeAccepted(c, gw, [
      [NS, names[0]],
      [NS, names[1]],
    ]);
    await conditionsMust(gw, undefined, [['InsecureFrontendValidationMode', 'True', 'ConfigurationChanged']]);
    for (const cert of [client, perPortClient, undefined]) {
      await succeeds(443, ok('example.org', V1), cert);
      await succeeds(8443, ok('second-example.org', V2), cert);
    }
  });

  test('GatewayInvalidFrontendClientCertificateValidation', async () => {
    const gw = 'gateway-with-invalid-client-cert-validation';
    await c.apply([
      clientGateway(
        gw,
        [
          { name: 'https', port: 443 },
          { name: 'https-unresolved', port: 7443, hostname: 'first-example.org' },
          { name: 'https-invalid-kind', port: 8443, hostname: 'second-example.org' },
          { name: 'https-grant-missing', port: 6443, hostname: 'fourth-example.org' },
        ],
        {
          default: { caCertificateRefs: [caRef('tls-validity-checks-ca-certificate')] },
          perPort: [
            { port: 7443, validation: { caCertificateRefs: [caRef('non-exisitng-cm')] } },
            { port: 8443, validation: { caCertificateRefs: [{ kind: 'Service', group: '', name: V2 }] } },
            { port: 6443, validation: { caCertificateRefs: [caRef('web-backend-cm', { namespace: 'gateway-conformance-web-backend' })] } },
          ],
        },
      ),
      ...caMaps(),
      configMap('web-backend-cm', { 'ca.crt': ca.cert }, 'gateway-conformance-web-backend'),
    ]);
    await conditionsMust(gw, 'https', [
      ['ResolvedRefs', 'True'],
      ['Accepted', 'True'],
      ['Programmed', 'True'],
    ]);
    for (const [listener, reason] of [
      ['https-unresolved', 'InvalidCACertificateRef'],
      ['https-invalid-kind', 'InvalidCACertificateKind'],
      ['https-grant-missing', 'RefNotPermitted'],
    ] as const) {
      await conditionsMust(gw, listener, [
        ['ResolvedRefs', 'False', reason],
        ['Accepted', 'False', 'NoValidCACertificate'],
        ['Programmed', 'False'],
      ]);
    }
  });

  test('GatewayFrontendInvalidDefaultClientCertificateValidation', async () => {
    const gw = 'invalid-default-client-validation-config';
    await c.apply([
      clientGateway(
        gw,
        [
          { name: 'https', port: 443 },
          { name: 'http', port: 80, protocol: 'HTTP' },
        ],
        { default: { caCertificateRefs: [caRef('does-not-exist')] }, perPort: [{ port: 80, validation: { caCertificateRefs: [caRef('tls-validity-checks-per-port-ca-certificate')] } }] },
      ),
      httpRoute(gw, { parentRefs: [{ name: gw }], hostnames: ['example.org'], rules: [{ backendRefs: [backend(V1)] }] }),
      ...caMaps(),
    ]);
    await conditionsMust(gw, 'http', [
      ['ResolvedRefs', 'True'],
      ['Accepted', 'True'],
      ['Programmed', 'True'],
    ]);
    await c.expect(ok('example.org', V1));
    await conditionsMust(gw, 'https', [
      ['ResolvedRefs', 'False', 'InvalidCACertificateRef'],
      ['Accepted', 'False', 'NoValidCACertificate'],
      ['Programmed', 'False'],
    ]);
    await fails(443, 'example.org');
  });
});
