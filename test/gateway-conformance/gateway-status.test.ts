// Gateway API conformance (v1.6.1), reproduced against a running Portico: the GATEWAY-HTTP tests that assert Gateway
// and listener status only (invalid route kinds, unsupported protocols, invalid certificate references, attached
// routes), read from /debug/gateway, the status the leader writes. Each test is named with the upstream ShortName;
// the manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import { until } from '../support/portico.js';
import { backend, httpRoute, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';

const G = 'gateway.networking.k8s.io';
const V1 = 'infra-backend-v1';

interface WantListener {
  readonly name: string;
  /** supportedKinds by kind (group gateway.networking.k8s.io). */
  readonly kinds: readonly string[];
  readonly attached: number;
  readonly conditions: readonly { readonly type: string; readonly status: 'True' | 'False'; readonly reason?: string }[];
}

function gateway(name: string, listeners: readonly Record<string, unknown>[]): unknown {
  return { apiVersion: `${G}/v1`, kind: 'Gateway', metadata: { name, namespace: NS }, spec: { gatewayClassName: 'portico-conformance', listeners } };
}
const https = (certificateRef: Record<string, string>): Record<string, unknown> => ({
  name: 'https',
  port: 443,
  protocol: 'HTTPS',
  allowedRoutes: { namespaces: { from: 'All' } },
  tls: { certificateRefs: [{ group: '', kind: 'Secret', ...certificateRef }] },
});
const infraOnly = { kinds: [{ kind: 'HTTPRoute' }], namespaces: { from: 'Selector', selector: { matchLabels: { 'kubernetes.io/metadata.name': NS } } } };

describe('GATEWAY-HTTP conformance: Gateway and listener status', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  /** GatewayStatusMustHaveListeners: exactly these listeners, kinds and attached routes, with at least these conditions. */
  const listenersMust = async (gw: string, want: readonly WantListener[]): Promise<void> => {
    let seen = '';
    await until(
      `${gw}: listeners ${JSON.stringify(want)}`,
      async () => {
        const g = (await c.debugGateway()).gateways.find((x) => x.name === gw && x.namespace === NS);
        seen = JSON.stringify(g?.listeners ?? null);
        if (g?.listeners.length !== want.length) return false;
        return want.every((w, i) => {
          const l = g.listeners[i];
          if (l?.name !== w.name || l.attachedRoutes !== w.attached) return false;
          // as upstream's listenersMatch: every expected kind is listed (more may be), and none when none is expected
          const kinds = l.supportedKinds.map((k) => `${k.group ?? G}/${k.kind}`);
          if (w.kinds.length === 0 ? kinds.length !== 0 : !w.kinds.every((k) => kinds.includes(`${G}/${k}`))) return false;
          return w.conditions.every((wc) => l.conditions.some((x) => x.type === wc.type && x.status === wc.status && (wc.reason === undefined || x.reason === wc.reason)));
        });
      },
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; listeners: ${seen}`);
    });
  };
  const gatewayMust = async (gw: string, type: string, status: 'True' | 'False', reason: string): Promise<void> => {
    await until(`${gw}: ${type}=${status} ${reason}`, async () => {
      const g = (await c.debugGateway()).gateways.find((x) => x.name === gw && x.namespace === NS);
      return g?.conditions.some((x) => x.type === type && x.status === status && x.reason === reason) === true;
    });
  };

  test('GatewayInvalidRouteKind', async () => {
    await c.apply([
      gateway('gateway-only-invalid-route-kind', [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' }, kinds: [{ kind: 'InvalidRoute' }] } }]),
      gateway('gateway-supported-and-invalid-route-kind', [
        { name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { namespaces: { from: 'All' }, kinds: [{ kind: 'InvalidRoute' }, { kind: 'HTTPRoute' }] } },
      ]),
    ]);
    const invalid = [{ type: 'ResolvedRefs', status: 'False', reason: 'InvalidRouteKinds' }] as const;
    await listenersMust('gateway-only-invalid-route-kind', [{ name: 'http', kinds: [], attached: 0, conditions: invalid }]);
    await listenersMust('gateway-supported-and-invalid-route-kind', [{ name: 'http', kinds: ['HTTPRoute'], attached: 0, conditions: invalid }]);
  });

  test('GatewayListenerUnsupportedProtocol', async () => {
    const invalid = { name: 'invalid', port: 1111, protocol: 'INVALID' };
    await c.apply([gateway('gateway-only-unsupported-protocols', [invalid]), gateway('gateway-supported-and-unsupported-protocols', [{ name: 'http', port: 80, protocol: 'HTTP' }, invalid])]);
    const unsupported: WantListener = { name: 'invalid', kinds: [], attached: 0, conditions: [{ type: 'Accepted', status: 'False', reason: 'UnsupportedProtocol' }] };
    await gatewayMust('gateway-only-unsupported-protocols', 'Accepted', 'False', 'ListenersNotValid');
    await listenersMust('gateway-only-unsupported-protocols', [unsupported]);
    await gatewayMust('gateway-supported-and-unsupported-protocols', 'Accepted', 'True', 'ListenersNotValid');
    await listenersMust('gateway-supported-and-unsupported-protocols', [
      { name: 'http', kinds: ['HTTPRoute'], attached: 0, conditions: [{ type: 'Accepted', status: 'True', reason: 'Accepted' }] },
      unsupported,
    ]);
  });

  test('GatewayInvalidTLSConfiguration', async () => {
    await c.apply([
      gateway('gateway-certificate-nonexistent-secret', [https({ name: 'nonexistent-certificate' })]),
      gateway('gateway-certificate-unsupported-group', [https({ group: 'wrong.group.company.io', name: 'tls-validity-checks-certificate' })]),
      gateway('gateway-certificate-unsupported-kind', [https({ kind: 'WrongKind', name: 'tls-validity-checks-certificate' })]),
      gateway('gateway-certificate-malformed-secret', [https({ name: 'malformed-certificate' })]),
      {
        apiVersion: 'v1',
        kind: 'Secret',
        type: 'kubernetes.io/tls',
        metadata: { name: 'malformed-certificate', namespace: NS },
        data: { 'tls.crt': 'bm90IGEgY2VydAo=', 'tls.key': 'bm90IGEga2V5Cg==' },
      },
    ]);
    for (const gw of ['gateway-certificate-nonexistent-secret', 'gateway-certificate-unsupported-group', 'gateway-certificate-unsupported-kind', 'gateway-certificate-malformed-secret']) {
      await listenersMust(gw, [{ name: 'https', kinds: ['HTTPRoute'], attached: 0, conditions: [{ type: 'ResolvedRefs', status: 'False', reason: 'InvalidCertificateRef' }] }]);
    }
  });

  test('GatewayWithAttachedRoutes', async () => {
    const ref = (name: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ kind: 'Gateway', name, namespace: NS, ...more });
    await c.apply([
      gateway('gateway-with-one-attached-route', [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: infraOnly }]),
      httpRoute('http-route-1', { parentRefs: [ref('gateway-with-one-attached-route')], rules: [{ backendRefs: [backend(V1)] }] }),
      gateway('gateway-with-two-attached-routes', [{ name: 'http', port: 80, protocol: 'HTTP', hostname: 'foo.example.com', allowedRoutes: infraOnly }]),
      httpRoute('http-route-2', { parentRefs: [ref('gateway-with-two-attached-routes')], rules: [{ backendRefs: [backend(V1)] }] }),
      httpRoute('http-route-3', { parentRefs: [ref('gateway-with-two-attached-routes')], rules: [{ backendRefs: [backend(V1)] }] }),
      httpRoute('http-route-not-accepted', { hostnames: ['not-accepted.test.com'], parentRefs: [ref('gateway-with-two-attached-routes')], rules: [{ backendRefs: [backend(V1)] }] }),
      gateway('unresolved-gateway-with-one-attached-unresolved-route', [{ ...https({ name: 'does-not-exist' }), name: 'tls', allowedRoutes: infraOnly }]),
      httpRoute('http-route-4', {
        parentRefs: [ref('unresolved-gateway-with-one-attached-unresolved-route', { sectionName: 'tls' })],
        rules: [{ backendRefs: [{ name: 'does-not-exist', port: 8080 }] }],
      }),
    ]);
    const ok = [
      { type: 'Accepted', status: 'True' },
      { type: 'ResolvedRefs', status: 'True' },
    ] as const;
    await listenersMust('gateway-with-one-attached-route', [{ name: 'http', kinds: ['HTTPRoute'], attached: 1, conditions: ok }]);
    await listenersMust('gateway-with-two-attached-routes', [{ name: 'http', kinds: ['HTTPRoute'], attached: 2, conditions: ok }]);
    await c.routeCondition({ route: 'http-route-not-accepted', namespace: NS, gateway: 'gateway-with-two-attached-routes', type: 'Accepted', status: 'False', reason: 'NoMatchingListenerHostname' });
    await listenersMust('unresolved-gateway-with-one-attached-unresolved-route', [
      {
        name: 'tls',
        kinds: ['HTTPRoute'],
        attached: 1,
        conditions: [
          { type: 'Programmed', status: 'False' },
          { type: 'ResolvedRefs', status: 'False' },
        ],
      },
    ]);
    await c.routeCondition({ route: 'http-route-4', namespace: NS, gateway: 'unresolved-gateway-with-one-attached-unresolved-route', type: 'ResolvedRefs', status: 'False' });
  });
});
