// Gateway API conformance (v1.6.1), reproduced against a running Portico: every TCPRoute and UDPRoute test (GATEWAY-TCP
// and GATEWAY-UDP profiles), through nginx's stream module. Listener ports are mapped to free local ports with
// --gateway-port-map; backends are this repository's TCP and UDP echo servers (l4-echo.ts). Each test is named with
// the upstream ShortName; the manifests are this repository's own, with the names the upstream tests read.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { freePort, until } from '../support/portico.js';
import { startConformance, type Conformance } from './harness.js';
import { APP_NS, INFRA_NS as NS, WEB_NS } from './base.js';
import { dnsQuery, tcpConversation, tcpEcho, udpEcho, udpOnce, type L4Backend } from './l4-echo.js';

const G = 'gateway.networking.k8s.io';
type Kind = 'TCPRoute' | 'UDPRoute';
const TCP_PORTS = [9300, 9301, 9302, 9310, 9311, 9312, 9313, 9320, 9321];
const UDP_PORTS = [5300, 5301, 5302, 5310, 5311, 5312];

function gateway(name: string, listeners: readonly Record<string, unknown>[]): unknown {
  return { apiVersion: `${G}/v1`, kind: 'Gateway', metadata: { name, namespace: NS }, spec: { gatewayClassName: 'portico-conformance', listeners } };
}
const listener = (name: string, protocol: 'TCP' | 'UDP', port: number): Record<string, unknown> => ({
  name,
  protocol,
  port,
  allowedRoutes: { kinds: [{ kind: protocol === 'TCP' ? 'TCPRoute' : 'UDPRoute' }] },
});
function route(kind: Kind, name: string, parentRefs: readonly Record<string, unknown>[], backendRefs: readonly Record<string, unknown>[], created?: string): unknown {
  return { apiVersion: `${G}/v1`, kind, metadata: { name, namespace: NS, ...(created ? { creationTimestamp: created } : {}) }, spec: { parentRefs, rules: [{ backendRefs }] } };
}
function grant(name: string, namespace: string, kind: Kind, service: string): unknown {
  return {
    apiVersion: `${G}/v1beta1`,
    kind: 'ReferenceGrant',
    metadata: { name, namespace },
    spec: { from: [{ group: G, kind, namespace: NS }], to: [{ group: '', kind: 'Service', name: service }] },
  };
}

describe('GATEWAY-TCP and GATEWAY-UDP conformance: TCPRoute and UDPRoute', () => {
  let c: Conformance;
  const local = new Map<number, number>();
  const backends = new Map<string, L4Backend>();
  /** A Service of `port` (protocol of the backend) with one EndpointSlice to the local echo backend of that name. */
  const svc = (name: string, port: number, namespace = NS): unknown[] => {
    const b = backends.get(`${namespace}/${name}`);
    if (!b) throw new Error(`no echo backend ${namespace}/${name}`);
    const protocol = b.name.startsWith('udp') || name === 'coredns' ? 'UDP' : 'TCP';
    return [
      { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace }, spec: { ports: [{ name: 'p', port, protocol }] } },
      {
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        addressType: 'IPv4',
        metadata: { name: `${name}-1`, namespace, labels: { 'kubernetes.io/service-name': name } },
        ports: [{ name: 'p', port: b.port, protocol }],
        endpoints: [{ addresses: ['127.0.0.1'] }],
      },
    ];
  };

  before(async () => {
    for (const p of [...TCP_PORTS, ...UDP_PORTS]) local.set(p, await freePort());
    const tcp = [
      ['tcp-attach-backend-1', NS],
      ['tcp-attach-backend-2', NS],
      ['tcp-echo-attach-all', NS],
      ['tcp-echo-one', NS],
      ['tcp-echo-two', NS],
      ['tcp-echo-three', NS],
      ['tcp-reference-grant-backend', WEB_NS],
      ['tcp-backend-v1', NS],
      ['tcp-backend-v2', NS],
      ['tcp-backend-v3', NS],
    ];
    const udp = [
      ['udp-attach-backend-1', NS],
      ['udp-attach-backend-2', NS],
      ['udp-echo-attach-all', NS],
      ['udp-echo-by-port', NS],
      ['udp-echo-by-section', NS],
      ['udp-echo-by-section-and-port', NS],
      ['udp-echo-reference-grant', APP_NS],
      ['udp-backend-v1', NS],
      ['udp-backend-v2', NS],
      ['udp-backend-v3', NS],
    ];
    for (const [name = '', ns = NS] of tcp) backends.set(`${ns}/${name}`, await tcpEcho(name, ns));
    for (const [name = '', ns = NS] of udp) backends.set(`${ns}/${name}`, await udpEcho(name, ns));
    backends.set(`${NS}/coredns`, await udpEcho('coredns', NS, true));
    c = await startConformance(['--gateway-port-map', [...local].map(([k, v]) => `${k}=${v}`).join(',')]);
  });
  after(async () => {
    await c?.stop();
    await Promise.all([...backends.values()].map((b) => b.close()));
  });

  const port = (listenerPort: number): number => local.get(listenerPort) ?? 0;

  /** The route's parent entry for Gateway `gw` has condition `type` = `status` (and `reason`). */
  const condition = async (kind: Kind, name: string, gw: string, [type, status, reason]: readonly [string, 'True' | 'False', string?]): Promise<void> => {
    let seen = '';
    await until(
      `${kind} ${name}: ${type}=${status} ${reason ?? ''} for ${gw}`,
      async () => {
        const doc = await c.debugGateway();
        const r = (kind === 'TCPRoute' ? doc.tcpRoutes : doc.udpRoutes)?.find((x) => x.name === name && x.namespace === NS);
        const p = r?.parents.find((x) => x.parentRef.name === gw);
        seen = JSON.stringify(p?.conditions ?? null);
        const x = p?.conditions.find((cc) => cc.type === type);
        return x !== undefined && x.status === status && (reason === undefined || x.reason === reason);
      },
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; conditions: ${seen}`);
    });
  };
  /** GatewayAndTCP/UDPRoutesMustBeAccepted: the Gateway Accepted and Programmed, each route Accepted. */
  const accepted = async (kind: Kind, gw: string, ...routes: string[]): Promise<void> => {
    await until(
      `Gateway ${gw} Accepted and Programmed`,
      async () => {
        const g = (await c.debugGateway()).gateways.find((x) => x.name === gw && x.namespace === NS);
        return ['Accepted', 'Programmed'].every((t) => g?.conditions.find((x) => x.type === t)?.status === 'True');
      },
      30_000,
    );
    for (const r of routes) await condition(kind, r, gw, ['Accepted', 'True', 'Accepted']);
  };
  /** The listeners' attachedRoutes and supportedKinds, each listener Accepted (and ResolvedRefs) True. */
  const listeners = async (gw: string, want: Readonly<Record<string, number>>, kind: Kind | undefined): Promise<void> => {
    let seen = '';
    await until(
      `${gw}: attachedRoutes ${JSON.stringify(want)}`,
      async () => {
        const g = (await c.debugGateway()).gateways.find((x) => x.name === gw && x.namespace === NS);
        seen = JSON.stringify(g?.listeners ?? null);
        const got = Object.fromEntries((g?.listeners ?? []).map((l) => [l.name, l.attachedRoutes]));
        const kinds = (g?.listeners ?? []).every(
          (l) =>
            kind === undefined ||
            (l.supportedKinds.some((k) => k.kind === kind && (k.group ?? G) === G) && ['Accepted', 'ResolvedRefs'].every((t) => l.conditions.find((x) => x.type === t)?.status === 'True')),
        );
        return kinds && JSON.stringify(got) === JSON.stringify(want);
      },
      30_000,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; listeners: ${seen}`);
    });
  };
  /** MakeTCPRequestAndExpectEventuallyValidResponse: the whole conversation, the TEST answer from `backend` in `ns`. */
  const tcpFrom = async (listenerPort: number, backend: string, ns = NS): Promise<void> => {
    let last = '';
    await until(
      `TCP ${listenerPort} answered by ${ns}/${backend}`,
      async () => {
        const r = await tcpConversation(port(listenerPort), true);
        last = JSON.stringify(r);
        return typeof r !== 'string' && r.namespace === ns && r.pod.startsWith(`${backend}-`);
      },
      30_000,
      250,
    ).catch((err: unknown) => {
      throw new Error(`${String(err)}; last: ${last}`);
    });
  };
  const udpAnswer = async (listenerPort: number): Promise<{ pod: string; namespace: string } | undefined> => {
    const r = await udpOnce(port(listenerPort), 'gateway-api-conformance-udp\n');
    return r ? (JSON.parse(r.toString('utf8')) as { pod: string; namespace: string }) : undefined;
  };
  const udpFrom = async (listenerPort: number, backend: string, ns = NS): Promise<void> => {
    await until(
      `UDP ${listenerPort} answered by ${ns}/${backend}`,
      async () => {
        const r = await udpAnswer(listenerPort);
        return r !== undefined && r.namespace === ns && r.pod.startsWith(`${backend}-`);
      },
      30_000,
      250,
    );
  };
  /**
   * weight.TestWeightedDistribution: each backend's share within 0.05 of its weight's over `n` connections (0 stays
   * 0), no other answer; as the suite, up to 10 attempts (weight.MaxTestRetries), so one datagram lost in flight (nginx
   * drops a UDP session its old worker holds at a reload: the listener's reload may still be ending) fails one attempt.
   */
  const distribution = async (send: () => Promise<string>, want: Readonly<Record<string, number>>, n = 200): Promise<void> => {
    const misses: string[] = [];
    for (let attempt = 0; attempt < 10; attempt++) {
      const seen = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const pod = await send();
        const backend = Object.keys(want).find((b) => pod.startsWith(`${b}-`)) ?? pod;
        seen.set(backend, (seen.get(backend) ?? 0) + 1);
      }
      const off = Object.entries(want).filter(([b, share]) => {
        const got = (seen.get(b) ?? 0) / n;
        return share === 0 ? got !== 0 : Math.abs(got - share) > 0.05;
      });
      const others = [...seen.keys()].filter((k) => !(k in want));
      if (off.length === 0 && others.length === 0) return;
      misses.push(JSON.stringify(Object.fromEntries(seen)));
    }
    assert.fail(`the distribution missed the weights ${JSON.stringify(want)} ± 0.05 in 10 attempts of ${n}: ${misses.join('; ')}`);
  };

  test('TCPRouteInvalidBackendRefNonexistent', async () => {
    await c.apply([
      gateway('tcp-gateway-invalid-backend', [listener('tcp', 'TCP', 9300)]),
      route('TCPRoute', 'tcp-route-invalid-backend-ref-nonexistent', [{ name: 'tcp-gateway-invalid-backend', sectionName: 'tcp' }], [{ name: 'nonexistent-service', port: 8080 }]),
    ]);
    await condition('TCPRoute', 'tcp-route-invalid-backend-ref-nonexistent', 'tcp-gateway-invalid-backend', ['ResolvedRefs', 'False', 'BackendNotFound']);
  });

  test('TCPRouteInvalidCrossNamespaceBackendRef', async () => {
    await c.apply([
      { apiVersion: 'v1', kind: 'Service', metadata: { name: 'tcp-invalid-xns-backend', namespace: WEB_NS }, spec: { ports: [{ name: 'tcp', port: 3000, protocol: 'TCP' }] } },
      gateway('tcp-invalid-cross-namespace-backend-ref-gateway', [listener('tcp', 'TCP', 9321)]),
      route(
        'TCPRoute',
        'tcp-invalid-cross-namespace-backend-ref',
        [{ name: 'tcp-invalid-cross-namespace-backend-ref-gateway', sectionName: 'tcp' }],
        [{ name: 'tcp-invalid-xns-backend', namespace: WEB_NS, port: 3000 }],
      ),
    ]);
    await accepted('TCPRoute', 'tcp-invalid-cross-namespace-backend-ref-gateway', 'tcp-invalid-cross-namespace-backend-ref');
    await condition('TCPRoute', 'tcp-invalid-cross-namespace-backend-ref', 'tcp-invalid-cross-namespace-backend-ref-gateway', ['ResolvedRefs', 'False', 'RefNotPermitted']);
  });

  test('TCPRouteInvalidNonTCPListener', async () => {
    await c.apply([
      gateway('tcp-mixed-protocol-gateway', [{ name: 'only-allow-http-routes', protocol: 'HTTP', port: 5300, allowedRoutes: { kinds: [{ kind: 'HTTPRoute' }] } }]),
      route('TCPRoute', 'tcp-route', [{ name: 'tcp-mixed-protocol-gateway', sectionName: 'only-allow-http-routes' }], [{ name: 'tcp-echo-backend', port: 8080 }]),
    ]);
    await condition('TCPRoute', 'tcp-route', 'tcp-mixed-protocol-gateway', ['Accepted', 'False', 'NotAllowedByListeners']);
    await listeners('tcp-mixed-protocol-gateway', { 'only-allow-http-routes': 0 }, undefined);
  });

  test('TCPRouteMultipleRoutesAttachment', async () => {
    const gw = gateway('tcp-multi-route-attach-gateway', [{ ...listener('tcp', 'TCP', 9310), allowedRoutes: { kinds: [{ kind: 'TCPRoute', group: G }], namespaces: { from: 'Same' } } }]);
    const older = route('TCPRoute', 'tcproute-attach-older', [{ name: 'tcp-multi-route-attach-gateway', sectionName: 'tcp' }], [{ name: 'tcp-attach-backend-1', port: 3000 }], '2026-01-01T00:00:00Z');
    const base = [...svc('tcp-attach-backend-1', 3000), ...svc('tcp-attach-backend-2', 3000), gw, older];
    await c.apply(base);
    await accepted('TCPRoute', 'tcp-multi-route-attach-gateway', 'tcproute-attach-older');
    await c.apply([
      ...base,
      route('TCPRoute', 'tcproute-attach-newer', [{ name: 'tcp-multi-route-attach-gateway', sectionName: 'tcp' }], [{ name: 'tcp-attach-backend-2', port: 3000 }], '2026-01-01T00:00:01Z'),
    ]);
    await condition('TCPRoute', 'tcproute-attach-older', 'tcp-multi-route-attach-gateway', ['Accepted', 'True', 'Accepted']);
    await condition('TCPRoute', 'tcproute-attach-newer', 'tcp-multi-route-attach-gateway', ['Accepted', 'True', 'Accepted']);
    await listeners('tcp-multi-route-attach-gateway', { tcp: 2 }, 'TCPRoute');
    await tcpFrom(9310, 'tcp-attach-backend-1');
    for (let i = 0; i < 100; i++) {
      const r = await tcpConversation(port(9310), false);
      assert.ok(typeof r !== 'string' && r.pod.startsWith('tcp-attach-backend-1-'), `connection ${i + 1}: ${JSON.stringify(r)}`);
    }
  });

  test('TCPRouteParentRefAttachAll', async () => {
    await c.apply([
      ...svc('tcp-echo-attach-all', 3000),
      gateway('tcp-attach-all-gateway', [listener('one', 'TCP', 9310), listener('two', 'TCP', 9311), listener('three', 'TCP', 9312), listener('four', 'TCP', 9313)]),
      route('TCPRoute', 'tcp-route-attach-all', [{ name: 'tcp-attach-all-gateway' }], [{ name: 'tcp-echo-attach-all', port: 3000 }]),
    ]);
    await condition('TCPRoute', 'tcp-route-attach-all', 'tcp-attach-all-gateway', ['Accepted', 'True', 'Accepted']);
    for (const p of [9310, 9311, 9312, 9313]) await tcpFrom(p, 'tcp-echo-attach-all');
  });

  test('TCPRouteParentRefPortAndSectionName', async () => {
    const gw = 'tcp-multi-listener-gateway';
    await c.apply([
      ...svc('tcp-echo-one', 3000),
      ...svc('tcp-echo-two', 3000),
      ...svc('tcp-echo-three', 3000),
      gateway(gw, [listener('one', 'TCP', 9300), listener('two', 'TCP', 9301), listener('three', 'TCP', 9302)]),
      route('TCPRoute', 'tcp-route-by-port', [{ name: gw, port: 9300 }], [{ name: 'tcp-echo-one', port: 3000 }]),
      route('TCPRoute', 'tcp-route-by-section', [{ name: gw, sectionName: 'two' }], [{ name: 'tcp-echo-two', port: 3000 }]),
      route('TCPRoute', 'tcp-route-by-section-and-port', [{ name: gw, sectionName: 'three', port: 9302 }], [{ name: 'tcp-echo-three', port: 3000 }]),
    ]);
    for (const [r, p, b] of [
      ['tcp-route-by-port', 9300, 'tcp-echo-one'],
      ['tcp-route-by-section', 9301, 'tcp-echo-two'],
      ['tcp-route-by-section-and-port', 9302, 'tcp-echo-three'],
    ] as const) {
      await condition('TCPRoute', r, gw, ['Accepted', 'True', 'Accepted']);
      await tcpFrom(p, b);
    }
  });

  test('TCPRouteReferenceGrant', async () => {
    const objects = [
      ...svc('tcp-reference-grant-backend', 3000, WEB_NS),
      gateway('tcp-reference-grant-gateway', [listener('tcp', 'TCP', 9320)]),
      route('TCPRoute', 'tcp-reference-grant', [{ name: 'tcp-reference-grant-gateway', sectionName: 'tcp' }], [{ name: 'tcp-reference-grant-backend', namespace: WEB_NS, port: 3000 }]),
    ];
    await c.apply([...objects, grant('tcp-reference-grant', WEB_NS, 'TCPRoute', 'tcp-reference-grant-backend')]);
    await accepted('TCPRoute', 'tcp-reference-grant-gateway', 'tcp-reference-grant');
    await tcpFrom(9320, 'tcp-reference-grant-backend', WEB_NS);
    await c.apply(objects);
    await condition('TCPRoute', 'tcp-reference-grant', 'tcp-reference-grant-gateway', ['ResolvedRefs', 'False', 'RefNotPermitted']);
  });

  test('TCPRouteWeightedRouting', async () => {
    await c.apply([
      ...svc('tcp-backend-v1', 3000),
      ...svc('tcp-backend-v2', 3000),
      ...svc('tcp-backend-v3', 3000),
      gateway('tcp-weighted-gateway', [listener('tcp', 'TCP', 9300)]),
      route(
        'TCPRoute',
        'tcp-weighted-route',
        [{ name: 'tcp-weighted-gateway', sectionName: 'tcp' }],
        [
          { name: 'tcp-backend-v1', port: 3000, weight: 70 },
          { name: 'tcp-backend-v2', port: 3000, weight: 30 },
          { name: 'tcp-backend-v3', port: 3000, weight: 0 },
        ],
      ),
    ]);
    await accepted('TCPRoute', 'tcp-weighted-gateway', 'tcp-weighted-route');
    await tcpFrom(9300, 'tcp-backend-v1').catch(() => tcpFrom(9300, 'tcp-backend-v2'));
    await distribution(
      async () => {
        const r = await tcpConversation(port(9300), false);
        return typeof r === 'string' ? r : r.pod;
      },
      { 'tcp-backend-v1': 0.7, 'tcp-backend-v2': 0.3, 'tcp-backend-v3': 0 },
    );
  });

  test('UDPRouteInvalidBackendRefNonexistent', async () => {
    await c.apply([
      gateway('udp-gateway-invalid-backend', [listener('udp', 'UDP', 5300)]),
      route('UDPRoute', 'udp-route-invalid-backend-ref-nonexistent', [{ name: 'udp-gateway-invalid-backend', sectionName: 'udp' }], [{ name: 'nonexistent-service', port: 8080 }]),
    ]);
    await condition('UDPRoute', 'udp-route-invalid-backend-ref-nonexistent', 'udp-gateway-invalid-backend', ['ResolvedRefs', 'False', 'BackendNotFound']);
  });

  test('UDPRouteInvalidCrossNamespaceBackendRef', async () => {
    const gw = 'udp-gateway-invalid-cross-namespace-backend-ref';
    await c.apply([
      gateway(gw, [listener('udp', 'UDP', 5300)]),
      route('UDPRoute', 'udp-route-invalid-cross-namespace-backend-ref', [{ name: gw, sectionName: 'udp' }], [{ name: 'udp-echo-no-reference-grant', namespace: APP_NS, port: 8080 }]),
    ]);
    await accepted('UDPRoute', gw, 'udp-route-invalid-cross-namespace-backend-ref');
    await condition('UDPRoute', 'udp-route-invalid-cross-namespace-backend-ref', gw, ['ResolvedRefs', 'False', 'RefNotPermitted']);
  });

  test('UDPRouteMultipleRoutesAttachment', async () => {
    const gw = 'udp-multi-route-attach-gateway';
    const older = route('UDPRoute', 'udproute-attach-older', [{ name: gw, sectionName: 'udp' }], [{ name: 'udp-attach-backend-1', port: 8080 }], '2026-01-01T00:00:00Z');
    const base = [...svc('udp-attach-backend-1', 8080), ...svc('udp-attach-backend-2', 8080), gateway(gw, [listener('udp', 'UDP', 5301)]), older];
    await c.apply(base);
    await accepted('UDPRoute', gw, 'udproute-attach-older');
    await c.apply([...base, route('UDPRoute', 'udproute-attach-newer', [{ name: gw, sectionName: 'udp' }], [{ name: 'udp-attach-backend-2', port: 8080 }], '2026-01-01T00:00:01Z')]);
    await condition('UDPRoute', 'udproute-attach-older', gw, ['Accepted', 'True', 'Accepted']);
    await condition('UDPRoute', 'udproute-attach-newer', gw, ['Accepted', 'True', 'Accepted']);
    await listeners(gw, { udp: 2 }, 'UDPRoute');
    await udpFrom(5301, 'udp-attach-backend-1');
    for (let i = 0; i < 20; i++) {
      const r = await udpAnswer(5301);
      assert.ok(r?.pod.startsWith('udp-attach-backend-1-'), `datagram ${i + 1}: ${JSON.stringify(r)}`);
    }
  });

  test('UDPRouteNotAllowedByListeners', async () => {
    const gw = 'udproute-tls-only-gateway';
    await c.apply([
      gateway(gw, [{ name: 'tls', port: 443, protocol: 'TLS', tls: { mode: 'Passthrough' }, allowedRoutes: { namespaces: { from: 'Same' } } }]),
      route('UDPRoute', 'udproute-not-allowed-by-listeners', [{ name: gw, sectionName: 'tls' }], [{ name: 'coredns', port: 53 }]),
    ]);
    await condition('UDPRoute', 'udproute-not-allowed-by-listeners', gw, ['Accepted', 'False', 'NotAllowedByListeners']);
    await listeners(gw, { tls: 0 }, undefined);
  });

  test('UDPRouteParentRefAttachAllListeners', async () => {
    const gw = 'udp-attach-all-listeners-gateway';
    await c.apply([
      ...svc('udp-echo-attach-all', 8080),
      gateway(gw, [listener('udp-1', 'UDP', 5310), listener('udp-2', 'UDP', 5311), listener('udp-3', 'UDP', 5312)]),
      route('UDPRoute', 'udp-route-attach-all', [{ name: gw }], [{ name: 'udp-echo-attach-all', port: 8080 }]),
    ]);
    await condition('UDPRoute', 'udp-route-attach-all', gw, ['Accepted', 'True', 'Accepted']);
    await listeners(gw, { 'udp-1': 1, 'udp-2': 1, 'udp-3': 1 }, 'UDPRoute');
    for (const p of [5310, 5311, 5312]) await udpFrom(p, 'udp-echo-attach-all');
  });

  test('UDPRouteParentRefPortAndSectionName', async () => {
    const gw = 'udp-multi-listener-gateway';
    await c.apply([
      ...svc('udp-echo-by-port', 8080),
      ...svc('udp-echo-by-section', 8080),
      ...svc('udp-echo-by-section-and-port', 8080),
      gateway(gw, [listener('by-port', 'UDP', 5300), listener('by-section', 'UDP', 5301), listener('by-section-and-port', 'UDP', 5302)]),
      route('UDPRoute', 'udp-route-by-port', [{ name: gw, port: 5300 }], [{ name: 'udp-echo-by-port', port: 8080 }]),
      route('UDPRoute', 'udp-route-by-section', [{ name: gw, sectionName: 'by-section' }], [{ name: 'udp-echo-by-section', port: 8080 }]),
      route('UDPRoute', 'udp-route-by-section-and-port', [{ name: gw, sectionName: 'by-section-and-port', port: 5302 }], [{ name: 'udp-echo-by-section-and-port', port: 8080 }]),
    ]);
    for (const [r, p, b] of [
      ['udp-route-by-port', 5300, 'udp-echo-by-port'],
      ['udp-route-by-section', 5301, 'udp-echo-by-section'],
      ['udp-route-by-section-and-port', 5302, 'udp-echo-by-section-and-port'],
    ] as const) {
      await condition('UDPRoute', r, gw, ['Accepted', 'True', 'Accepted']);
      await udpFrom(p, b);
    }
  });

  test('UDPRouteReferenceGrant', async () => {
    const gw = 'udp-gateway-reference-grant';
    const objects = [
      ...svc('udp-echo-reference-grant', 8080, APP_NS),
      gateway(gw, [listener('udp', 'UDP', 5300)]),
      route('UDPRoute', 'udp-route-reference-grant', [{ name: gw, sectionName: 'udp' }], [{ name: 'udp-echo-reference-grant', namespace: APP_NS, port: 8080 }]),
    ];
    await c.apply([...objects, grant('udp-reference-grant', APP_NS, 'UDPRoute', 'udp-echo-reference-grant')]);
    await accepted('UDPRoute', gw, 'udp-route-reference-grant');
    await condition('UDPRoute', 'udp-route-reference-grant', gw, ['ResolvedRefs', 'True', 'ResolvedRefs']);
    await udpFrom(5300, 'udp-echo-reference-grant', APP_NS);
    await c.apply(objects);
    await condition('UDPRoute', 'udp-route-reference-grant', gw, ['ResolvedRefs', 'False', 'RefNotPermitted']);
  });

  test('UDPRoute', async () => {
    await c.apply([
      ...svc('coredns', 53),
      gateway('udp-gateway', [listener('coredns', 'UDP', 5300)]),
      route('UDPRoute', 'udp-coredns', [{ name: 'udp-gateway', sectionName: 'coredns' }], [{ name: 'coredns', port: 53 }]),
    ]);
    await accepted('UDPRoute', 'udp-gateway', 'udp-coredns');
    await until(
      'a DNS answer through the UDP listener',
      async () => {
        const r = await udpOnce(port(5300), dnsQuery(4242, 'foo.bar.com.'));
        return r !== undefined && r.readUInt16BE(0) === 4242 && (r.readUInt16BE(2) & 0x8000) !== 0;
      },
      30_000,
      250,
    );
  });

  test('UDPRouteWeightedRouting', async () => {
    await c.apply([
      ...svc('udp-backend-v1', 8080),
      ...svc('udp-backend-v2', 8080),
      ...svc('udp-backend-v3', 8080),
      gateway('udp-weighted-gateway', [listener('udp', 'UDP', 5300)]),
      route(
        'UDPRoute',
        'udp-weighted-route',
        [{ name: 'udp-weighted-gateway', sectionName: 'udp' }],
        [
          { name: 'udp-backend-v1', port: 8080, weight: 70 },
          { name: 'udp-backend-v2', port: 8080, weight: 30 },
          { name: 'udp-backend-v3', port: 8080, weight: 0 },
        ],
      ),
    ]);
    await accepted('UDPRoute', 'udp-weighted-gateway', 'udp-weighted-route');
    await until('a UDP answer', async () => (await udpAnswer(5300)) !== undefined, 30_000, 250);
    await distribution(async () => (await udpAnswer(5300))?.pod ?? 'no answer', { 'udp-backend-v1': 0.7, 'udp-backend-v2': 0.3, 'udp-backend-v3': 0 });
  });
});
