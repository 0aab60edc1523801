// Gateway API conformance (v1.6.1), reproduced through real nginx: the BackendTLSPolicy tests. The TLS backend is a
// local HTTPS echo (tls-echo.ts) whose certificate a test CA signs; it reports the SNI name nginx sent. Each test is
// named with the upstream ShortName; the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { httpsGet, makeCert, type Pem } from '../support/certs.js';
import { until } from '../support/portico.js';
import { mustBeAccepted, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';
import { startTlsEcho, type TlsEcho, type TlsEchoAnswer } from './tls-echo.js';

const G = 'gateway.networking.k8s.io';
const HOST = 'abc.example.com';
const CONSISTENCY_MS = 30_000;

interface PolicySpec {
  readonly service: string;
  readonly section?: string;
  readonly caRefs?: readonly Record<string, string>[];
  readonly hostname?: string;
  readonly created?: string;
  readonly generation?: number;
}

function policy(name: string, p: PolicySpec): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'BackendTLSPolicy',
    metadata: { name, namespace: NS, ...(p.created ? { creationTimestamp: p.created } : {}), ...(p.generation !== undefined ? { generation: p.generation } : {}) },
    spec: {
      targetRefs: [{ group: '', kind: 'Service', name: p.service, ...(p.section !== undefined ? { sectionName: p.section } : {}) }],
      validation: { caCertificateRefs: p.caRefs ?? [{ group: '', kind: 'ConfigMap', name: 'tls-checks-ca-certificate' }], hostname: p.hostname ?? HOST },
    },
  };
}

function configMap(name: string, data: Record<string, string>): unknown {
  return { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: NS }, data };
}

/** An HTTPRoute of Exact paths, each to a Service port: `[path, service, port]`. */
function route(name: string, rules: readonly (readonly [string, string, number])[], opts: { gateway?: string; hostnames?: readonly string[] } = {}): unknown {
  return {
    apiVersion: `${G}/v1`,
    kind: 'HTTPRoute',
    metadata: { name, namespace: NS },
    spec: {
      parentRefs: [{ name: opts.gateway ?? 'same-namespace', namespace: NS }],
      ...(opts.hostnames === undefined ? { hostnames: [HOST] } : opts.hostnames.length > 0 ? { hostnames: opts.hostnames } : {}),
      rules: rules.map(([path, service, port]) => ({ matches: [{ path: { type: 'Exact', value: path } }], backendRefs: [{ group: '', kind: 'Service', name: service, port }] })),
    },
  };
}

describe('GATEWAY-HTTP conformance: BackendTLSPolicy', () => {
  let c: Conformance;
  let echo: TlsEcho;
  let dir: string;
  let ca: Pem;
  let otherCa: Pem;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-btls-'));
    ca = makeCert(dir, 'conformance-backend-ca', { isCa: true });
    otherCa = makeCert(dir, 'unused-ca', { isCa: true });
    const leaf = makeCert(dir, HOST, { sans: [HOST, 'other.example.com'], ca });
    echo = await startTlsEcho('tls-backend', NS, leaf);
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
    await echo?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A Service of the TLS backend with these ports (name, port), and its EndpointSlice on the echo. */
  const tlsService = (name: string, ports: readonly (readonly [string, number])[] = [['btls', 443]]): unknown[] => [
    { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: NS }, spec: { ports: ports.map(([n, port]) => ({ name: n, port, targetPort: 8443 })) } },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      addressType: 'IPv4',
      metadata: { name: `${name}-tls`, namespace: NS, labels: { 'kubernetes.io/service-name': name } },
      ports: ports.map(([n]) => ({ name: n, port: echo.port, protocol: 'TCP' })),
      endpoints: [{ addresses: ['127.0.0.1'], conditions: { ready: true } }],
    },
  ];
  const caMaps = (): unknown[] => [configMap('tls-checks-ca-certificate', { 'ca.crt': ca.cert }), configMap('mismatch-ca-certificate', { 'ca.crt': otherCa.cert })];

  /** BackendTLSPolicyMustHaveCondition, read from /debug/gateway: the ancestor entry of Gateway `gateway` has the condition. */
  const policyMust = async (name: string, gateway: string, type: string, status: 'True' | 'False', more: { reason?: string; generation?: number } = {}): Promise<void> => {
    const { reason, generation } = more;
    let seen = '';
    await until(
      `BackendTLSPolicy ${name}: ${type}=${status} ${reason ?? ''} for Gateway ${gateway}`,
      async () => {
        const p = ((await c.debugGateway()).backendTLSPolicies ?? []).find((x) => x.name === name && x.namespace === NS);
        const a = p?.parents.find((x) => x.parentRef.name === gateway && x.parentRef.namespace === NS);
        seen = JSON.stringify(a?.conditions ?? null);
        const cond = a?.conditions.find((x) => x.type === type);
        return cond !== undefined && cond.status === status && (reason === undefined || cond.reason === reason) && (generation === undefined || cond.observedGeneration === generation);
      },
      CONSISTENCY_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; conditions: ${seen}`);
    });
  };
  const valid = async (name: string, gateway = 'same-namespace'): Promise<void> => {
    await policyMust(name, gateway, 'Accepted', 'True', { reason: 'Accepted' });
    await policyMust(name, gateway, 'ResolvedRefs', 'True', { reason: 'ResolvedRefs' });
  };

  /** A request answered 200 by the TLS backend 3 times in a row, which saw SNI `sni`. */
  const sniMust = async (path: string, sni: string): Promise<void> => {
    await c.expect({ request: { host: HOST, path }, namespace: NS, backend: 'tls-backend' });
    const got = await c.roundTrip({ request: { host: HOST, path } });
    assert.equal((got.echo as TlsEchoAnswer | undefined)?.sni, sni, `${path}: the SNI name the backend saw`);
  };
  const fails = (path: string): Promise<void> => c.expect({ request: { host: HOST, path }, response: { statusCodes: [500, 502, 503] } });

  const basic = (reconcileCa: string, extra: readonly unknown[] = []): unknown[] => [
    route('backendtlspolicy', [
      ['/backendtlspolicy', 'backendtlspolicy-test', 443],
      ['/backendtlspolicy-host-mismatch', 'backendtlspolicy-host-mismatch-test', 443],
      ['/backendtlspolicy-cert-mismatch', 'backendtlspolicy-cert-mismatch-test', 443],
      ['/backendtlspolicy-reconcile-test', 'backendtlspolicy-reconcile-test', 443],
    ]),
    route('backendtlspolicy-reencrypt', [['/backendtlspolicy', 'backendtlspolicy-test', 443]], { gateway: 'same-namespace-with-https-listener', hostnames: ['https-listener.org'] }),
    ...['backendtlspolicy-test', 'backendtlspolicy-host-mismatch-test', 'backendtlspolicy-cert-mismatch-test', 'backendtlspolicy-reconcile-test'].flatMap((s) => tlsService(s)),
    ...caMaps(),
    policy('normative-test', { service: 'backendtlspolicy-test', section: 'btls' }),
    policy('host-mismatch', { service: 'backendtlspolicy-host-mismatch-test', section: 'btls', hostname: 'mismatch.example.com' }),
    policy('cert-mismatch', { service: 'backendtlspolicy-cert-mismatch-test', section: 'btls', caRefs: [{ group: '', kind: 'ConfigMap', name: 'mismatch-ca-certificate' }] }),
    policy('reconcile-test', { service: 'backendtlspolicy-reconcile-test', section: 'btls', caRefs: [{ group: '', kind: 'ConfigMap', name: reconcileCa }] }),
    ...extra,
  ];

  test('BackendTLSPolicy', async () => {
    await c.apply(basic('tls-checks-ca-certificate'));
    await mustBeAccepted(c, 'same-namespace-with-https-listener', [[NS, 'backendtlspolicy-reencrypt']]);
    await valid('normative-test', 'same-namespace-with-https-listener');
    // Re-encrypt: HTTPS from the client to the listener, TLS again from nginx to the backend.
    let last = '';
    await until(
      'https://https-listener.org/backendtlspolicy re-encrypted to the backend with SNI abc.example.com',
      async () => {
        const r = await httpsGet(c.portico.https, 'https-listener.org', '/backendtlspolicy');
        last = `${r.status} ${r.body.slice(0, 200)}`;
        return r.status === 200 && (JSON.parse(r.body) as TlsEchoAnswer).sni === HOST;
      },
      CONSISTENCY_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${last}`);
    });

    await mustBeAccepted(c, 'same-namespace', [[NS, 'backendtlspolicy']]);
    await valid('normative-test');
    await sniMust('/backendtlspolicy', HOST);
    // The certificate does not name mismatch.example.com: verification fails.
    await valid('host-mismatch');
    await fails('/backendtlspolicy-host-mismatch');
    // The certificate is not signed by the CA of mismatch-ca-certificate.
    await valid('cert-mismatch');
    await fails('/backendtlspolicy-cert-mismatch');

    // A changed CA ConfigMap is reconciled: missing, then present, then empty, then restored.
    const own = 'tls-checks-ca-certificate-reconcile-test';
    const invalid = async (): Promise<void> => {
      await policyMust('reconcile-test', 'same-namespace', 'Accepted', 'False', { reason: 'NoValidCACertificate' });
      await policyMust('reconcile-test', 'same-namespace', 'ResolvedRefs', 'False', { reason: 'InvalidCACertificateRef' });
    };
    await c.apply(basic(own));
    await invalid();
    await fails('/backendtlspolicy-reconcile-test');
    await c.apply(basic(own, [configMap(own, { 'ca.crt': ca.cert })]));
    await valid('reconcile-test');
    await sniMust('/backendtlspolicy-reconcile-test', HOST);
    await c.apply(basic(own, [configMap(own, { 'ca.crt': '' })]));
    await invalid();
    await c.apply(basic(own, [configMap(own, { 'ca.crt': ca.cert })]));
    await valid('reconcile-test');
  });

  test('BackendTLSPolicyInvalidCACertificateRef', async () => {
    await c.apply([
      route('backendtlspolicy-invalid-ca-certificate-ref', [
        ['/backendtlspolicy-nonexistent-ca-certificate-ref', 'backendtlspolicy-nonexistent-ca-certificate-ref-test', 443],
        ['/backendtlspolicy-malformed-ca-certificate-ref', 'backendtlspolicy-malformed-ca-certificate-ref-test', 443],
      ]),
      ...tlsService('backendtlspolicy-nonexistent-ca-certificate-ref-test', [['https', 443]]),
      ...tlsService('backendtlspolicy-malformed-ca-certificate-ref-test', [['https', 443]]),
      policy('nonexistent-ca-certificate-ref', { service: 'backendtlspolicy-nonexistent-ca-certificate-ref-test', caRefs: [{ group: '', kind: 'ConfigMap', name: 'nonexistent-ca-certificate' }] }),
      policy('malformed-ca-certificate-ref', { service: 'backendtlspolicy-malformed-ca-certificate-ref-test', caRefs: [{ group: '', kind: 'ConfigMap', name: 'malformed-ca-certificate' }] }),
      configMap('malformed-ca-certificate', {}),
    ]);
    await c.routeCondition({ route: 'backendtlspolicy-invalid-ca-certificate-ref', namespace: NS, gateway: 'same-namespace', type: 'Accepted', status: 'True' });
    for (const name of ['nonexistent-ca-certificate-ref', 'malformed-ca-certificate-ref']) {
      await policyMust(name, 'same-namespace', 'Accepted', 'False', { reason: 'NoValidCACertificate' });
      await policyMust(name, 'same-namespace', 'ResolvedRefs', 'False', { reason: 'InvalidCACertificateRef' });
      await fails(`/backendtlspolicy-${name}`);
    }
  });

  test('BackendTLSPolicyInvalidKind', async () => {
    await c.apply([
      route('backendtlspolicy-invalid-kind-test', [['/backendtlspolicy-invalid-kind', 'backendtlspolicy-invalid-kind-test', 443]]),
      ...tlsService('backendtlspolicy-invalid-kind-test', [['https', 443]]),
      policy('invalid-kind', { service: 'backendtlspolicy-invalid-kind-test', caRefs: [{ group: 'invalid.io', kind: 'InvalidKind', name: 'invalid-kind' }] }),
    ]);
    await c.routeCondition({ route: 'backendtlspolicy-invalid-kind-test', namespace: NS, gateway: 'same-namespace', type: 'Accepted', status: 'True' });
    await policyMust('invalid-kind', 'same-namespace', 'Accepted', 'False', { reason: 'NoValidCACertificate' });
    await policyMust('invalid-kind', 'same-namespace', 'ResolvedRefs', 'False', { reason: 'InvalidKind' });
    await fails('/backendtlspolicy-invalid-kind');
  });

  test('BackendTLSPolicyConflictResolution', async () => {
    const older = '2026-01-01T00:00:00Z';
    const newer = '2026-01-02T00:00:00Z';
    await c.apply([
      route('backendtlspolicy-conflict-resolution', [
        ['/backendtlspolicy-conflicted-without-section-name', 'backendtlspolicy-conflicted-without-section-name-test', 443],
        ['/backendtlspolicy-conflicted-with-section-name', 'backendtlspolicy-conflicted-with-section-name-test', 443],
        ['/backendtlspolicy-not-conflicted-with-section-name', 'backendtlspolicy-not-conflicted-test', 443],
        ['/backendtlspolicy-not-conflicted-without-section-name', 'backendtlspolicy-not-conflicted-test', 8443],
      ]),
      ...tlsService('backendtlspolicy-conflicted-without-section-name-test', [['https', 443]]),
      ...tlsService('backendtlspolicy-conflicted-with-section-name-test', [
        ['https-1', 443],
        ['https-2', 8443],
      ]),
      ...tlsService('backendtlspolicy-not-conflicted-test', [
        ['https-1', 443],
        ['https-2', 8443],
      ]),
      ...caMaps(),
      // The newer policy is listed first: age decides, not the order of the manifests.
      policy('conflicted-without-section-name-2', { service: 'backendtlspolicy-conflicted-without-section-name-test', created: newer }),
      policy('conflicted-without-section-name-1', { service: 'backendtlspolicy-conflicted-without-section-name-test', hostname: 'other.example.com', created: older }),
      policy('conflicted-with-section-name-2', { service: 'backendtlspolicy-conflicted-with-section-name-test', section: 'https-1', created: newer }),
      policy('conflicted-with-section-name-1', { service: 'backendtlspolicy-conflicted-with-section-name-test', section: 'https-1', hostname: 'other.example.com', created: older }),
      policy('not-conflicted-with-section-name', { service: 'backendtlspolicy-not-conflicted-test', section: 'https-1', hostname: 'other.example.com' }),
      policy('not-conflicted-without-section-name', { service: 'backendtlspolicy-not-conflicted-test' }),
    ]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'backendtlspolicy-conflict-resolution']]);
    for (const kind of ['without', 'with']) {
      await policyMust(`conflicted-${kind}-section-name-1`, 'same-namespace', 'Accepted', 'True', { reason: 'Accepted' });
      await policyMust(`conflicted-${kind}-section-name-2`, 'same-namespace', 'Accepted', 'False', { reason: 'Conflicted' });
      await sniMust(`/backendtlspolicy-conflicted-${kind}-section-name`, 'other.example.com');
    }
    await policyMust('not-conflicted-with-section-name', 'same-namespace', 'Accepted', 'True', { reason: 'Accepted' });
    await policyMust('not-conflicted-without-section-name', 'same-namespace', 'Accepted', 'True', { reason: 'Accepted' });
    await sniMust('/backendtlspolicy-not-conflicted-with-section-name', 'other.example.com');
    await sniMust('/backendtlspolicy-not-conflicted-without-section-name', HOST);
  });

  test('BackendTLSPolicyObservedGenerationBump', async () => {
    const objects = (hostname: string, generation: number): unknown[] => [
      route('backendtlspolicy-observed-generation-bump', [['/', 'observed-generation-bump-test', 443]], { hostnames: [] }),
      ...tlsService('observed-generation-bump-test', [['https', 443]]),
      ...caMaps(),
      policy('observed-generation-bump', { service: 'observed-generation-bump-test', section: 'https', hostname, generation }),
    ];
    await c.apply(objects(HOST, 1));
    await policyMust('observed-generation-bump', 'same-namespace', 'Accepted', 'True', { generation: 1 });
    await policyMust('observed-generation-bump', 'same-namespace', 'ResolvedRefs', 'True', { generation: 1 });
    await c.apply(objects('foo.example.com', 2));
    await policyMust('observed-generation-bump', 'same-namespace', 'Accepted', 'True', { generation: 2 });
    await policyMust('observed-generation-bump', 'same-namespace', 'ResolvedRefs', 'True', { generation: 2 });
  });
});
