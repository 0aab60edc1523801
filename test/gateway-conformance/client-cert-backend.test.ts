// Gateway API conformance (v1.6.1), reproduced through real nginx: the client certificate a Gateway presents to the
// backends it reaches with TLS (spec.tls.backend.clientCertificateRef with a BackendTLSPolicy), and the Gateway's
// ResolvedRefs condition of an invalid reference. The backend is a local HTTPS echo that requires a client
// certificate its CA signed (client-cert-echo.ts). Each test is named with the upstream ShortName; the manifests and
// certificates are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, type Pem } from '../support/certs.js';
import { until } from '../support/portico.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { INFRA_NS as NS } from './base.js';
import { startClientCertEcho, type ClientCertEcho, type ClientCertEchoAnswer } from './client-cert-echo.js';
import { mustBeAccepted, startConformance, type Conformance } from './harness.js';

const G = 'gateway.networking.k8s.io';
const HOST = 'abc.example.com';
const SERVICE = 'tls-backend-with-client-cert-validation';
const CONSISTENCY_MS = 30_000;

/** A Gateway with one HTTP listener on 80 and spec.tls.backend.clientCertificateRef `ref` (none: no spec.tls). */
function gateway(name: string, ref?: Record<string, string>): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'Gateway',
    metadata: { name, namespace: NS },
    spec: {
      gatewayClassName: 'portico-conformance',
      listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'Same' } } }],
      ...(ref ? { tls: { backend: { clientCertificateRef: ref } } } : {}),
    },
  };
}
const secretRef = (name: string, more: Record<string, string> = {}): Record<string, string> => ({ group: '', kind: 'Secret', name, ...more });

function route(name: string, gw: string, host: string): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'HTTPRoute',
    metadata: { name, namespace: NS },
    spec: {
      parentRefs: [{ name: gw, namespace: NS }],
      hostnames: [host],
      rules: [{ matches: [{ path: { type: 'Exact', value: '/' } }], backendRefs: [{ group: '', kind: 'Service', name: SERVICE, port: 443 }] }],
    },
  };
}

describe('GATEWAY-HTTP conformance: backend client certificates', () => {
  let c: Conformance;
  let echo: ClientCertEcho;
  let dir: string;
  let backendCa: Pem;
  let client: Pem;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-backend-client-'));
    backendCa = makeCert(dir, 'backend-ca', { isCa: true });
    const clientCa = makeCert(dir, 'backend-client-ca', { isCa: true });
    client = makeCert(dir, 'gateway-client', { ca: clientCa });
    echo = await startClientCertEcho(SERVICE, NS, makeCert(dir, HOST, { sans: [HOST], ca: backendCa }), clientCa);
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
    await echo?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** The TLS backend's Service, EndpointSlice, CA ConfigMap and BackendTLSPolicy, as the upstream manifests have them. */
  const backendObjects = (): unknown[] => [
    { apiVersion: 'v1', kind: 'Service', metadata: { name: SERVICE, namespace: NS }, spec: { ports: [{ name: 'https', protocol: 'TCP', port: 443, targetPort: 8443 }] } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      addressType: 'IPv4',
      metadata: { name: `${SERVICE}-tls`, namespace: NS, labels: { 'kubernetes.io/service-name': SERVICE } },
      ports: [{ name: 'https', port: echo.port, protocol: 'TCP' }],
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    },
    { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'tls-checks-ca-certificate', namespace: NS }, data: { 'ca.crt': backendCa.cert } },
    {
      apiVersion: `${G}/v1`,
      kind: 'BackendTLSPolicy',
      metadata: { name: 'gateway-tls-backend-client-certificate-test', namespace: NS },
      spec: { targetRefs: [{ group: '', kind: 'Service', name: SERVICE }], validation: { caCertificateRefs: [{ group: '', kind: 'ConfigMap', name: 'tls-checks-ca-certificate' }], hostname: HOST } },
    },
    tlsSecret('tls-checks-client-certificate', client, NS),
  ];

  /** GatewayMustHaveCondition, read from /debug/gateway. */
  const gatewayMust = async (name: string, type: string, status: 'True' | 'False', reason: string): Promise<void> => {
    let seen = '';
    await until(
      `Gateway ${name}: ${type}=${status} ${reason}`,
      async () => {
        const g = (await c.debugGateway()).gateways.find((x) => x.name === name && x.namespace === NS);
        seen = JSON.stringify(g?.conditions ?? null);
        return g?.conditions.some((x) => x.type === type && x.status === status && x.reason === reason) === true;
      },
      CONSISTENCY_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; conditions: ${seen}`);
    });
  };

  test('GatewayTLSBackendClientCertificate', async () => {
    const gw = 'gateway-tls-backend-client-certificate';
    // A route of the base Gateway same-namespace (no client certificate) to the same backend: it must not borrow one.
    await c.apply([gateway(gw, secretRef('tls-checks-client-certificate')), route(gw, gw, HOST), route('no-client-certificate', 'same-namespace', 'other.example.com'), ...backendObjects()]);
    await mustBeAccepted(c, gw, [[NS, gw]]);
    await gatewayMust(gw, 'ResolvedRefs', 'True', 'ResolvedRefs');
    await gatewayMust(gw, 'Accepted', 'True', 'Accepted');
    await c.expect({ request: { host: HOST, path: '/' }, response: { statusCodes: [200] }, backend: SERVICE, namespace: NS });
    const got = await c.roundTrip({ request: { host: HOST, path: '/' } });
    assert.equal((got.echo as ClientCertEchoAnswer | undefined)?.clientCert, client.fingerprint, 'the backend saw the Gateway client certificate');
    // the other Gateway's route reaches the same backend without a certificate: the backend refuses the handshake
    const before = echo.refused();
    await c.expect({ request: { host: 'other.example.com', path: '/' }, response: { statusCodes: [502] } });
    assert.ok(echo.refused() > before, 'the backend refused handshakes without a client certificate');
  });

  test('GatewayInvalidTLSBackendConfiguration', async () => {
    const cases: readonly (readonly [string, Record<string, string>, string])[] = [
      ['gateway-client-certificate-nonexistent-secret', secretRef('nonexistent-certificate'), 'InvalidClientCertificateRef'],
      ['gateway-client-certificate-unsupported-group', secretRef('tls-validity-checks-certificate', { group: 'wrong.group.company.io' }), 'InvalidClientCertificateRef'],
      ['gateway-client-certificate-unsupported-kind', secretRef('tls-validity-checks-certificate', { kind: 'WrongKind' }), 'InvalidClientCertificateRef'],
      ['gateway-client-certificate-malformed-secret', secretRef('malformed-client-certificate'), 'InvalidClientCertificateRef'],
      ['gateway-client-certificate-missing-reference-grant', secretRef('certificate', { namespace: 'gateway-conformance-web-backend' }), 'RefNotPermitted'],
    ];
    await c.apply([
      ...cases.map(([name, ref]) => gateway(name, ref)),
      { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'malformed-client-certificate', namespace: NS }, type: 'Opaque', data: {} },
    ]);
    for (const [name, , reason] of cases) {
      await gatewayMust(name, 'ResolvedRefs', 'False', reason);
      await gatewayMust(name, 'Accepted', 'True', 'Accepted');
    }
  });
});
