// Gateway API conformance (v1.6.1), reproduced through real nginx: the TLSRoute tests of TLS Passthrough listeners
// (GATEWAY-TLS core) and HTTPRouteDisallowedKind. Each test is named with the upstream ShortName; the manifests are
// this repository's own. The TLS listeners' port 443 is given a local port of its own with --gateway-port-map (the
// suite's Gateways each have an address of their own, where an SNI no route takes is closed: docs/adr/0022).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeCert, type Pem } from '../support/certs.js';
import { freePort, until } from '../support/portico.js';
import { service, slice } from '../support/objects.js';
import { tlsSecret } from '../support/tls-manifests.js';
import { httpRoute, startConformance, type Conformance } from './harness.js';
import { APP_NS, INFRA_NS as NS } from './base.js';
import { startTlsEcho, tlsAsk, type TlsEchoBackend } from './tls-route-echo.js';

const G = 'gateway.networking.k8s.io';
const CONSECUTIVE = 3;
const MAX_MS = 30_000;
const passthrough = { mode: 'Passthrough' };

function gw(name: string, listeners: readonly Record<string, unknown>[]): unknown {
  return { apiVersion: `${G}/v1`, kind: 'Gateway', metadata: { name, namespace: NS }, spec: { gatewayClassName: 'portico-conformance', listeners } };
}

function tlsListener(name: string, more: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, port: 443, protocol: 'TLS', tls: passthrough, allowedRoutes: { namespaces: { from: 'Same' }, kinds: [{ kind: 'TLSRoute' }] }, ...more };
}

function tlsRoute(name: string, parent: string, hostnames: readonly string[], backendRefs: readonly Record<string, unknown>[], more: Record<string, unknown> = {}): unknown {
  return { apiVersion: `${G}/v1`, kind: 'TLSRoute', metadata: { name, namespace: NS }, spec: { parentRefs: [{ name: parent, namespace: NS, ...more }], hostnames, rules: [{ backendRefs }] } };
}

describe('GATEWAY-TLS conformance: TLSRoute on TLS Passthrough listeners', () => {
  let c: Conformance;
  let tlsPort = 0;
  let dir = '';
  let ca: Pem;
  const echoes: TlsEchoBackend[] = [];
  /** The TLS backends of the suite (tls-backend, tls-backend-2, tcp-backend; tls-backend in the app namespace), as Services of each test. */
  let backends: unknown[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'portico-conf-tls-'));
    ca = makeCert(dir, 'TLSRoute conformance CA', { isCa: true });
    const pem = makeCert(dir, 'tls-backend', { sans: ['abc.example.com', 'other.example.com', 'example.com', '*.example.com'], ca });
    for (const [name, ns, port] of [
      ['tls-backend', NS, 443],
      ['tls-backend-2', NS, 443],
      ['tcp-backend', NS, 8443],
      ['tls-backend', APP_NS, 443],
    ] as const) {
      const e = await startTlsEcho(name, ns, pem);
      echoes.push(e);
      backends.push(service(name, ns, [{ name: 'https', port }]), slice(name, e.port, ['127.0.0.1'], { namespace: ns, portName: 'https', name: `${name}-tls` }));
    }
    backends = [...backends, tlsSecret('tls-validity-checks-certificate-tls', pem, NS)];
    tlsPort = await freePort();
    c = await startConformance(['--gateway-port-map', `443=${tlsPort}`]);
  });
  after(async () => {
    await c?.stop();
    for (const e of echoes) await e.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Applies the test's objects (with the TLS backends) and waits until Portico holds its TLSRoutes. */
  const apply = async (objects: readonly unknown[]): Promise<void> => {
    await c.apply([...backends, ...objects]);
    const want = objects.filter((o) => (o as { kind?: string }).kind === 'TLSRoute').map((o) => (o as { metadata: { name: string } }).metadata.name);
    await until(`TLSRoutes [${want.join(', ')}] held`, async () => {
      const have = (await c.debugGateway()).tlsRoutes.map((r) => r.name);
      return want.every((n) => have.includes(n));
    });
  };

  /** TLSRouteMustHaveCondition, from /debug/gateway: the route's parent entry for `gateway`. */
  const condition = async (route: string, gateway: string, type: string, status: 'True' | 'False', reason?: string): Promise<void> => {
    let seen = '';
    await until(
      `TLSRoute ${route}: ${type}=${status} ${reason ?? ''} for ${gateway}`,
      async () => {
        const r = (await c.debugGateway()).tlsRoutes.find((x) => x.name === route && x.namespace === NS);
        const cond = r?.parents.find((p) => p.parentRef.name === gateway)?.conditions.find((x) => x.type === type);
        seen = JSON.stringify(r?.parents ?? null);
        return cond !== undefined && cond.status === status && (reason === undefined || cond.reason === reason);
      },
      MAX_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; parents: ${seen}`);
    });
  };

  /** GatewayStatusMustHaveListeners for one listener (by name): its attachedRoutes, and the conditions and kinds given. */
  const listener = async (gateway: string, name: string, want: { attached: number; kinds?: readonly string[]; conditions: readonly (readonly [string, string, string])[] }): Promise<void> => {
    let seen = '';
    await until(
      `Gateway ${gateway} listener ${name}`,
      async () => {
        const l = (await c.debugGateway()).gateways.find((g) => g.name === gateway && g.namespace === NS)?.listeners.find((x) => x.name === name);
        seen = JSON.stringify(l ?? null);
        if (!l || l.attachedRoutes !== want.attached) return false;
        if (want.kinds && JSON.stringify(l.supportedKinds.map((k) => k.kind)) !== JSON.stringify(want.kinds)) return false;
        return want.conditions.every(([type, status, reason]) => l.conditions.some((x) => x.type === type && x.status === status && x.reason === reason));
      },
      MAX_MS,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; listener: ${seen}`);
    });
  };

  /** MakeTLSRequestAndExpectEventuallyConsistentResponse: 3 answers in a row from `backend` of `namespace`, the certificate verified for `sni`. */
  const reaches = async (sni: string, backend: string, namespace = NS): Promise<void> => {
    let inARow = 0;
    let last = '';
    await until(
      `${sni} to reach ${namespace}/${backend} ${CONSECUTIVE} times in a row`,
      async () => {
        const o = await tlsAsk(tlsPort, sni, ca.cert);
        const ok = 'answer' in o && o.answer.pod.startsWith(`${backend}-pod`) && o.answer.namespace === namespace && o.answer.sni === sni;
        last = JSON.stringify(o);
        inARow = ok ? inARow + 1 : 0;
        return inARow >= CONSECUTIVE;
      },
      MAX_MS,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${last}`);
    });
  };

  /** MakeTLSConnectionAndExpectEventuallyConnectionRejection: the connection is closed (EOF or reset) during the handshake. */
  const rejected = async (sni: string): Promise<void> => {
    let last = '';
    await until(
      `${sni} rejected`,
      async () => {
        const o = await tlsAsk(tlsPort, sni, ca.cert);
        last = JSON.stringify(o);
        return 'closed' in o && /disconnected|ECONNRESET|socket hang up|closed without/i.test(o.closed);
      },
      MAX_MS,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${last}`);
    });
  };

  test('TLSRouteSimpleSameNamespace', async () => {
    await apply([
      gw('gateway-tlsroute', [tlsListener('https', { hostname: '*.example.com' })]),
      tlsRoute('gateway-conformance-infra-test', 'gateway-tlsroute', ['abc.example.com'], [{ name: 'tcp-backend', port: 8443 }]),
    ]);
    await condition('gateway-conformance-infra-test', 'gateway-tlsroute', 'Accepted', 'True', 'Accepted');
    await reaches('abc.example.com', 'tcp-backend');
  });

  test('TLSRouteHostnameIntersection', async () => {
    const to = (name: string): Record<string, unknown>[] => [{ name, port: 443 }];
    await apply([
      gw('gw-x-1', [tlsListener('exact', { hostname: 'abc.example.com' })]),
      gw('gw-x-2', [tlsListener('more-specific', { hostname: '*.example.com' })]),
      gw('gw-x-3', [tlsListener('less-specific', { hostname: '*.com' })]),
      gw('gw-x-4', [tlsListener('empty')]),
      tlsRoute('wc-x-1', 'gw-x-1', ['*.example.com'], to('tls-backend')),
      tlsRoute('exact-x-2', 'gw-x-2', ['abc.example.com'], to('tls-backend')),
      tlsRoute('less-x-2', 'gw-x-2', ['*.com'], to('tls-backend-2')),
      tlsRoute('exact-x-3', 'gw-x-3', ['abc.example.com'], to('tls-backend')),
      tlsRoute('more-x-3', 'gw-x-3', ['*.example.com'], to('tls-backend-2')),
      tlsRoute('exact-x-4', 'gw-x-4', ['abc.example.com'], to('tls-backend')),
      tlsRoute('less-x-4', 'gw-x-4', ['*.com'], to('tls-backend-2')),
    ]);
    for (const [route, gateway] of [
      ['wc-x-1', 'gw-x-1'],
      ['exact-x-2', 'gw-x-2'],
      ['less-x-2', 'gw-x-2'],
      ['exact-x-3', 'gw-x-3'],
      ['more-x-3', 'gw-x-3'],
      ['exact-x-4', 'gw-x-4'],
      ['less-x-4', 'gw-x-4'],
    ] as const) {
      await condition(route, gateway, 'Accepted', 'True', 'Accepted');
      await condition(route, gateway, 'ResolvedRefs', 'True', 'ResolvedRefs');
    }
    // The four Gateways share the one local port here: their routes agree on each name (abc → tls-backend,
    // other.example.com → tls-backend-2), and a name none of them takes is closed.
    await reaches('abc.example.com', 'tls-backend');
    await reaches('other.example.com', 'tls-backend-2');
    await rejected('non.matching.org');
  });

  test('TLSRouteInvalidBackendRefNonexistent', async () => {
    await apply([
      gw('gateway-tlsroute-invalid-backend-ref-nonexistent', [tlsListener('tls')]),
      tlsRoute('invalid-backend-ref-nonexistent', 'gateway-tlsroute-invalid-backend-ref-nonexistent', ['example.com'], [{ name: 'nonexistent', namespace: NS, port: 443 }]),
    ]);
    await condition('invalid-backend-ref-nonexistent', 'gateway-tlsroute-invalid-backend-ref-nonexistent', 'Accepted', 'True', 'Accepted');
    await condition('invalid-backend-ref-nonexistent', 'gateway-tlsroute-invalid-backend-ref-nonexistent', 'ResolvedRefs', 'False', 'BackendNotFound');
    await rejected('example.com');
  });

  test('TLSRouteInvalidBackendRefUnknownKind', async () => {
    await apply([
      gw('gateway-tlsroute-invalid-backend-ref-unknown-kind', [tlsListener('tls')]),
      tlsRoute(
        'invalid-backend-ref-unknown-kind',
        'gateway-tlsroute-invalid-backend-ref-unknown-kind',
        ['example.com'],
        [{ group: 'unknownkind.example.com', kind: 'NonExistent', name: 'tls-backend', port: 443 }],
      ),
    ]);
    await condition('invalid-backend-ref-unknown-kind', 'gateway-tlsroute-invalid-backend-ref-unknown-kind', 'Accepted', 'True', 'Accepted');
    await condition('invalid-backend-ref-unknown-kind', 'gateway-tlsroute-invalid-backend-ref-unknown-kind', 'ResolvedRefs', 'False', 'InvalidKind');
    await rejected('example.com');
  });

  test('TLSRouteInvalidNoMatchingListenerHostname', async () => {
    const to = [{ name: 'tls-backend', port: 443 }];
    await apply([
      gw('gateway-tls-exact-hostname', [tlsListener('tls', { hostname: 'www.example.com' })]),
      gw('gateway-tls-wildcard-hostname', [tlsListener('tls', { hostname: '*.example.com' })]),
      tlsRoute('tlsroute-hostname-mismatch-1', 'gateway-tls-exact-hostname', ['www.nomatch.com', '*.nomatch.com'], to),
      tlsRoute('tlsroute-hostname-mismatch-2', 'gateway-tls-wildcard-hostname', ['www.different.com', '*.different.com'], to),
    ]);
    await condition('tlsroute-hostname-mismatch-1', 'gateway-tls-exact-hostname', 'Accepted', 'False', 'NoMatchingListenerHostname');
    await condition('tlsroute-hostname-mismatch-2', 'gateway-tls-wildcard-hostname', 'Accepted', 'False', 'NoMatchingListenerHostname');
    await listener('gateway-tls-exact-hostname', 'tls', { attached: 0, conditions: [] });
    await listener('gateway-tls-wildcard-hostname', 'tls', { attached: 0, conditions: [] });
  });

  test('TLSRouteInvalidNoMatchingListener', async () => {
    const to = [{ name: 'tls-backend', port: 443 }];
    await apply([
      gw('gateway-tlsroute-tls-passthrough-only', [tlsListener('tls-passthrough', { allowedRoutes: { namespaces: { from: 'Same' } } })]),
      gw('gateway-tlsroute-http-only', [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'Same' } } }]),
      gw('gateway-tlsroute-https-only', [
        {
          name: 'https',
          port: 443,
          protocol: 'HTTPS',
          allowedRoutes: { namespaces: { from: 'Same' } },
          tls: { mode: 'Terminate', certificateRefs: [{ name: 'tls-validity-checks-certificate-tls', namespace: NS }] },
        },
      ]),
      tlsRoute('tlsroute-not-allowed-protocol-http', 'gateway-tlsroute-http-only', ['tls.example.com'], to),
      tlsRoute('tlsroute-not-allowed-protocol-https', 'gateway-tlsroute-https-only', ['tls.example.com'], to),
      tlsRoute('tlsroute-no-matching-section-name', 'gateway-tlsroute-tls-passthrough-only', ['tls.example.com'], to, { sectionName: 'nonexistent' }),
    ]);
    await condition('tlsroute-not-allowed-protocol-http', 'gateway-tlsroute-http-only', 'Accepted', 'False', 'NotAllowedByListeners');
    await condition('tlsroute-not-allowed-protocol-https', 'gateway-tlsroute-https-only', 'Accepted', 'False', 'NotAllowedByListeners');
    await condition('tlsroute-no-matching-section-name', 'gateway-tlsroute-tls-passthrough-only', 'Accepted', 'False', 'NoMatchingParent');
    await listener('gateway-tlsroute-http-only', 'http', { attached: 0, conditions: [] });
    await listener('gateway-tlsroute-https-only', 'https', { attached: 0, conditions: [] });
    await listener('gateway-tlsroute-tls-passthrough-only', 'tls-passthrough', { attached: 0, conditions: [] });
  });

  test('TLSRouteInvalidReferenceGrant', async () => {
    const grant = (name: string, namespace: string, from: Record<string, string>, to: Record<string, string> = {}): unknown => ({
      apiVersion: `${G}/v1`,
      kind: 'ReferenceGrant',
      metadata: { name, namespace },
      spec: { from: [{ group: G, kind: 'TLSRoute', namespace: NS, ...from }], to: [{ group: '', kind: 'Service', name: 'tls-backend', ...to }] },
    });
    await apply([
      gw('gateway-tlsroute-referencegrant', [tlsListener('tls')]),
      grant('reference-grant-wrong-namespace', NS, {}),
      grant('reference-grant-wrong-from-group', APP_NS, { group: 'not-the-group-youre-looking-for' }),
      grant('reference-grant-wrong-from-kind', APP_NS, { kind: 'Gateway' }),
      grant('reference-grant-wrong-from-namespace', APP_NS, { namespace: 'not-the-namespace-youre-looking-for' }),
      grant('reference-grant-wrong-to-group', APP_NS, {}, { group: 'not-the-group-youre-looking-for' }),
      grant('reference-grant-wrong-to-kind', APP_NS, {}, { kind: 'Secret' }),
      grant('reference-grant-wrong-to-name', APP_NS, {}, { name: 'not-the-service-youre-looking-for' }),
      tlsRoute('invalid-reference-grant', 'gateway-tlsroute-referencegrant', ['abc.example.com'], [{ name: 'tls-backend', namespace: APP_NS, port: 443 }]),
    ]);
    await condition('invalid-reference-grant', 'gateway-tlsroute-referencegrant', 'Accepted', 'True', 'Accepted');
    await condition('invalid-reference-grant', 'gateway-tlsroute-referencegrant', 'ResolvedRefs', 'False', 'RefNotPermitted');
    await rejected('abc.example.com');
  });

  test('TLSRouteListenerPassthroughSupportedKinds', async () => {
    await apply([
      gw('gateway-tlsroute-passthrough-supported-kind', [tlsListener('tls-passthrough', { allowedRoutes: { namespaces: { from: 'Same' }, kinds: [{ kind: 'TCPRoute' }, { kind: 'TLSRoute' }] } })]),
    ]);
    await listener('gateway-tlsroute-passthrough-supported-kind', 'tls-passthrough', { attached: 0, kinds: ['TLSRoute'], conditions: [['ResolvedRefs', 'False', 'InvalidRouteKinds']] });
  });

  test('HTTPRouteDisallowedKind', async () => {
    await apply([
      gw('tlsroutes-only', [tlsListener('tls')]),
      httpRoute('disallowed-kind', { parentRefs: [{ name: 'tlsroutes-only', namespace: NS }], rules: [{ backendRefs: [{ name: 'infra-backend-v1', port: 8080 }] }] }),
    ]);
    await c.routeCondition({ route: 'disallowed-kind', namespace: NS, gateway: 'tlsroutes-only', type: 'ResolvedRefs', status: 'True' });
    await c.routeCondition({ route: 'disallowed-kind', namespace: NS, gateway: 'tlsroutes-only', type: 'Accepted', status: 'False', reason: 'NotAllowedByListeners' });
    await listener('tlsroutes-only', 'tls', { attached: 0, conditions: [] });
    const doc = await c.debugGateway();
    const parents = doc.httpRoutes.find((r) => r.name === 'disallowed-kind')?.parents ?? [];
    assert.ok(
      parents.every((p) => p.conditions.some((x) => x.type === 'Accepted' && x.status === 'False')),
      'no accepted parent',
    );
  });
});
