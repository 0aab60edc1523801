// Gateway API conformance (v1.6.1), reproduced through real nginx: client certificate validation of HTTPS listeners
// (Gateway spec.tls.frontend, default and perPort, modes AllowValidOnly and AllowInsecureFallback) and its invalid
// references, plus the attack it must not open: another namespace's host on the same port. The listener ports 6443,
// 7443 and 8443 are put on free local ports with --gateway-port-map. Each test is named with the upstream ShortName;
// the manifests and certificates are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { TLSSocket } from 'node:tls';
import { makeCert, type Pem } from '../support/certs.js';
import { freePort, until } from '../support/portico.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { APP_NS, INFRA_NS as NS } from './base.js';
import { type EchoAnswer } from './echo.js';
import { mismatch, type Captured, type Expected } from './expect.js';
import { backend, httpRoute, mustBeAccepted, startConformance, type Conformance } from './harness.js';

const G = 'gateway.networking.k8s.io';
const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const CONSISTENCY_MS = 30_000;

type Validation = { readonly caCertificateRefs: readonly Record<string, string>[]; readonly mode?: string };
const caRef = (name: string, more: Record<string, string> = {}): Record<string, string> => ({ kind: 'ConfigMap', group: '', name, ...more });

/** A Gateway with these listeners (HTTPS ones with the infra certificate Secret) and spec.tls.frontend. */
export function clientGateway(
  name: string,
  listeners: readonly { name: string; port: number; protocol?: string; hostname?: string }[],
  frontend: { default: Validation; perPort?: readonly { port: number; validation: Validation }[] },
  namespace = NS,
  secret = 'tls-validity-checks-certificate',
): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'Gateway',
    metadata: { name, namespace },
    spec: {
      gatewayClassName: 'portico-conformance',
      tls: { frontend: { default: { validation: frontend.default }, ...(frontend.perPort ? { perPort: frontend.perPort.map((p) => ({ port: p.port, tls: { validation: p.validation } })) } : {}) } },
      listeners: listeners.map((l) => ({
        name: l.name,
        port: l.port,
        protocol: l.protocol ?? 'HTTPS',
        ...(l.hostname === undefined ? {} : { hostname: l.hostname }),
        allowedRoutes: { namespaces: { from: 'Same' } },
        ...((l.protocol ?? 'HTTPS') === 'HTTPS' ? { tls: { certificateRefs: [{ group: '', kind: 'Secret', name: secret, namespace }] } } : {}),
      })),
    },
  };
}

function configMap(name: string, data: Record<string, string>, namespace = NS): unknown {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace }, data };
}

/**
 * One HTTPS request as the suite's TLS round trip makes it: SNI `sni`, Host `host`, the client certificate when given,
 * and only the listener Secret's certificate trusted (`serverFingerprint`): another certificate fails the request.
 */
export function tlsRoundTrip(port: number, sni: string, host: string, serverFingerprint: string, client?: Pem): Promise<Captured> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port, path: '/', servername: sni, headers: { host }, rejectUnauthorized: false, agent: false, timeout: 10_000, ...(client ? { cert: client.cert, key: client.key } : {}) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          let echo: EchoAnswer | undefined;
          try {
            echo = JSON.parse(Buffer.concat(chunks).toString('utf8')) as EchoAnswer;
          } catch {
            echo = undefined;
          }
          const headers: Record<string, string[]> = {};
          for (const [k, v] of Object.entries(res.headersDistinct)) if (v !== undefined) headers[k] = v;
          resolve({ status: res.statusCode ?? 0, headers, echo });
        });
      },
    );
    req.on('socket', (s) => {
      s.once('secureConnect', () => {
        if (s instanceof TLSSocket && s.getPeerCertificate().fingerprint256 !== serverFingerprint) req.destroy(new Error(`${sni}: the server certificate is not the listener's`));
      });
    });
    req.on('timeout', () => req.destroy(new Error(`timeout: https://${host}/`)));
    req.on('error', reject);
    req.end();
  });
}

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

  // Not upstream's: a CA on one namespace's Gateway changes nothing for another namespace's host on the same port,
  // and a certificate is never accepted for a host it was not verified for.
  test('client certificate validation stays on its own hosts', async () => {
    const gw = 'client-validation-default';
    await c.apply([
      clientGateway(gw, [{ name: 'https', port: 443 }], { default: { caCertificateRefs: [caRef('tls-validity-checks-ca-certificate')] } }),
      httpRoute('verified', { parentRefs: [{ name: gw }], hostnames: ['example.org'], rules: [{ backendRefs: [backend(V1)] }] }),
      ...caMaps(),
      tlsSecret('tenant-certificate', { cert: c.cert.cert, key: c.cert.key }, APP_NS),
      clientGateway(
        'tenant',
        [{ name: 'https', port: 443, hostname: 'tenant.org' }],
        { default: { mode: 'AllowInsecureFallback', caCertificateRefs: [caRef('tenant-ca')] } },
        APP_NS,
        'tenant-certificate',
      ),
      configMap('tenant-ca', { 'ca.crt': perPortCa.cert }, APP_NS),
      httpRoute('tenant', { parentRefs: [{ name: 'tenant' }], hostnames: ['tenant.org'], rules: [{ backendRefs: [backend('app-backend-v1')] }] }, APP_NS),
    ]);
    await mustBeAccepted(c, gw, [[NS, 'verified']]);
    await mustBeAccepted(c, 'tenant', [[APP_NS, 'tenant']]);
    await succeeds(443, ok('example.org', V1), client);
    await fails(443, 'example.org');
    // the other namespace's host on the same port: served without a certificate, and with its own CA's
    const tenant: Expected = { request: { host: 'tenant.org', path: '/' }, response: { statusCode: 200 }, backend: 'app-backend-v1', namespace: APP_NS };
    await succeeds(443, tenant);
    await succeeds(443, tenant, perPortClient);
    // a connection made for tenant.org (its CA, or none) cannot ask for example.org
    for (const cert of [undefined, perPortClient, client]) {
      const got = await tlsRoundTrip(c.portico.https, 'tenant.org', 'example.org', c.cert.fingerprint, cert).then(
        (r) => `${r.status} ${r.echo?.pod ?? ''}`,
        () => 'refused',
      );
      assert.ok(got === 'refused' || got.startsWith('421'), `SNI tenant.org, Host example.org: ${got}`);
    }
  });
});
