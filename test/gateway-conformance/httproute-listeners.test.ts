// Gateway API conformance (v1.6.1), reproduced through real nginx: the GATEWAY-HTTP tests of hostnames, listeners and
// parentRefs (hostname intersection, listener hostnames and ports, sectionName and port that match no listener, path
// precedence, named rules, Services of other kinds). Each test is named with the upstream ShortName; the manifests are
// this repository's own. HTTPRouteMultipleGateways (a route on two Gateways) needs each Gateway on local ports of its
// own: multiple-gateways.test.ts.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backend, httpRoute, mustBeAccepted, prefixRule, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS, WEB_NS } from './base.js';
import type { Expected } from './expect.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const V3 = 'infra-backend-v3';
const at = (host: string | undefined, path: string, backendName: string): Expected => ({ request: { ...(host === undefined ? {} : { host }), path }, backend: backendName, namespace: NS });
const missing = (host: string | undefined, path: string): Expected => ({ request: { ...(host === undefined ? {} : { host }), path }, response: { statusCode: 404 } });

/** A Gateway of the infra namespace with HTTP listeners admitting routes of `from` namespaces. */
function gateway(name: string, listeners: readonly { name: string; port?: number; hostname?: string }[], from = 'Same'): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: NS },
    spec: {
      gatewayClassName: 'portico-conformance',
      listeners: listeners.map((l) => ({ name: l.name, port: l.port ?? 80, protocol: 'HTTP', ...(l.hostname === undefined ? {} : { hostname: l.hostname }), allowedRoutes: { namespaces: { from } } })),
    },
  };
}
const parent = (name: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ name, namespace: NS, ...more });

describe('GATEWAY-HTTP conformance: hostnames, listeners and parentRefs', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  const condition = (route: string, gw: string, want: { type: string; status: 'True' | 'False'; reason?: string }, namespace = NS): Promise<void> =>
    c.routeCondition({ route, namespace, gateway: gw, ...want });
  /** HTTPRouteMustHaveNoAcceptedParents: no parent entry of the route says Accepted True. */
  const noAcceptedParents = async (route: string, namespace = NS): Promise<void> => {
    const r = (await c.debugGateway()).httpRoutes.find((x) => x.name === route && x.namespace === namespace);
    assert.ok(r !== undefined, `route ${namespace}/${route} is known`);
    for (const p of r.parents) assert.notEqual(p.conditions.find((x) => x.type === 'Accepted')?.status, 'True', `${route}: parent ${p.parentRef.name} accepted`);
  };
  /** GatewayMustHaveZeroRoutes: every listener of the Gateway has no attached route. */
  const zeroRoutes = async (gw: string): Promise<void> => {
    const g = (await c.debugGateway()).gateways.find((x) => x.name === gw && x.namespace === NS);
    assert.ok(g !== undefined, `Gateway ${gw} is known`);
    assert.deepEqual(
      g.listeners.map((l) => l.attachedRoutes),
      g.listeners.map(() => 0),
    );
  };

  test('HTTPRouteHostnameIntersection', async () => {
    const gw = 'httproute-hostname-intersection';
    const all = 'httproute-hostname-intersection-all';
    const route = (name: string, hostnames: string[], path: string, to: string, gwName = gw): unknown =>
      httpRoute(name, { parentRefs: [parent(gwName)], hostnames, rules: [prefixRule(path, [], to)] });
    await c.apply([
      gateway(gw, [
        { name: 'listener-1', hostname: 'very.specific.com' },
        { name: 'listener-2', hostname: '*.wildcard.io' },
        { name: 'listener-3', hostname: '*.anotherwildcard.io' },
      ]),
      gateway(all, [{ name: 'listener-1' }]),
      route('specific-host-matches-listener-specific-host', ['non.matching.com', '*.nonmatchingwildcard.io', 'very.specific.com'], '/s1', V1),
      route('specific-host-matches-listener-wildcard-host', ['non.matching.com', 'wildcard.io', 'foo.wildcard.io', 'bar.wildcard.io', 'foo.bar.wildcard.io'], '/s2', V2),
      route('wildcard-host-matches-listener-specific-host', ['non.matching.com', '*.specific.com'], '/s3', V3),
      route('wildcard-host-matches-listener-wildcard-host', ['*.anotherwildcard.io'], '/s4', V1),
      route('no-intersecting-hosts', ['specific.but.wrong.com', 'wildcard.io'], '/s5', V2),
      httpRoute('httproute-hostname-intersection-all', {
        parentRefs: [parent(all)],
        hostnames: ['first.com', 'sub.first.com', 'second.com', 'sub.second.com'],
        rules: [{ backendRefs: [backend(V2)] }],
      }),
    ]);
    await mustBeAccepted(
      c,
      gw,
      [
        'specific-host-matches-listener-specific-host',
        'specific-host-matches-listener-wildcard-host',
        'wildcard-host-matches-listener-specific-host',
        'wildcard-host-matches-listener-wildcard-host',
      ].map((r) => [NS, r]),
    );
    for (const e of [
      at('very.specific.com', '/s1', V1),
      at('very.specific.com:1234', '/s1', V1),
      missing('non.matching.com', '/s1'),
      missing('foo.nonmatchingwildcard.io', '/s1'),
      missing('foo.wildcard.io', '/s1'),
      missing('very.specific.com', '/non-matching-prefix'),
      at('foo.wildcard.io', '/s2', V2),
      at('bar.wildcard.io', '/s2', V2),
      at('foo.bar.wildcard.io', '/s2', V2),
      missing('non.matching.com', '/s2'),
      missing('wildcard.io', '/s2'),
      missing('very.specific.com', '/s2'),
      missing('foo.wildcard.io', '/non-matching-prefix'),
      at('very.specific.com', '/s3', V3),
      missing('non.matching.com', '/s3'),
      missing('foo.specific.com', '/s3'),
      missing('foo.wildcard.io', '/s3'),
      missing('very.specific.com', '/non-matching-prefix'),
      at('foo.anotherwildcard.io', '/s4', V1),
      at('bar.anotherwildcard.io', '/s4', V1),
      at('foo.bar.anotherwildcard.io', '/s4', V1),
      missing('anotherwildcard.io', '/s4'),
      missing('foo.wildcard.io', '/s4'),
      missing('very.specific.com', '/s4'),
      missing('foo.anotherwildcard.io', '/non-matching-prefix'),
    ])
      await c.expect(e);
    await condition('no-intersecting-hosts', gw, { type: 'Accepted', status: 'False', reason: 'NoMatchingListenerHostname' });
    await c.expect(missing('specific.but.wrong.com', '/s5'));
    await c.expect(missing('wildcard.io', '/s5'));
    await c.listenersMust(gw, { 'listener-1': 2, 'listener-2': 1, 'listener-3': 1 });
    await mustBeAccepted(c, all, [[NS, 'httproute-hostname-intersection-all']]);
    for (const host of ['first.com', 'sub.first.com', 'second.com', 'sub.second.com']) await c.expect(at(host, '/', V2));
    for (const host of ['third.com', 'sub.third.com']) await c.expect(missing(host, '/'));
  });

  test('HTTPRouteListenerHostnameMatching', async () => {
    const gw = 'httproute-listener-hostname-matching';
    await c.apply([
      gateway(gw, [
        { name: 'listener-1', hostname: 'bar.com' },
        { name: 'listener-2', hostname: 'foo.bar.com' },
        { name: 'listener-3', hostname: '*.bar.com' },
        { name: 'listener-4', hostname: '*.foo.com' },
      ]),
      httpRoute('backend-v1', { parentRefs: [parent(gw, { sectionName: 'listener-1' })], rules: [{ backendRefs: [backend(V1)] }] }),
      httpRoute('backend-v2', { parentRefs: [parent(gw, { sectionName: 'listener-2' })], rules: [{ backendRefs: [backend(V2)] }] }),
      httpRoute('backend-v3', { parentRefs: [parent(gw, { sectionName: 'listener-3' }), parent(gw, { sectionName: 'listener-4' })], rules: [{ backendRefs: [backend(V3)] }] }),
    ]);
    await mustBeAccepted(c, gw, [
      [NS, 'backend-v1'],
      [NS, 'backend-v2'],
      [NS, 'backend-v3'],
    ]);
    for (const e of [
      at('bar.com', '/', V1),
      at('foo.bar.com', '/', V2),
      at('baz.bar.com', '/', V3),
      at('boo.bar.com', '/', V3),
      at('multiple.prefixes.bar.com', '/', V3),
      at('multiple.prefixes.foo.com', '/', V3),
      missing('foo.com', '/'),
      missing('no.matching.host', '/'),
    ])
      await c.expect(e);
  });

  test('HTTPRoutePathMatchOrder', async () => {
    const exact = (value: string, to: string): unknown => ({ matches: [{ path: { type: 'Exact', value } }], backendRefs: [backend(to)] });
    await c.apply([
      httpRoute('path-matching-order', {
        rules: [
          exact('/match', V1),
          exact('/match/exact', V2),
          exact('/match/exact/one', V3),
          prefixRule('/match/', [], V3),
          prefixRule('/match/prefix/', [], V1),
          prefixRule('/match/prefix/one', [], V2),
        ],
      }),
    ]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'path-matching-order']]);
    for (const e of [
      at(undefined, '/match/exact/one', V3),
      at(undefined, '/match/exact', V2),
      at(undefined, '/match', V1),
      at(undefined, '/match/prefix/one/any', V2),
      at(undefined, '/match/prefix/any', V1),
      at(undefined, '/match/any', V3),
    ])
      await c.expect(e);
  });

  test('HTTPRouteInvalidCrossNamespaceParentRef', async () => {
    const name = 'invalid-cross-namespace-parent-ref';
    await c.apply([httpRoute(name, { parentRefs: [parent('same-namespace')], rules: [{ backendRefs: [backend('web-backend')] }] }, WEB_NS)]);
    await condition(name, 'same-namespace', { type: 'ResolvedRefs', status: 'True' }, WEB_NS);
    await condition(name, 'same-namespace', { type: 'Accepted', status: 'False', reason: 'NotAllowedByListeners' }, WEB_NS);
    await noAcceptedParents(name, WEB_NS);
    await zeroRoutes('same-namespace');
  });

  test('HTTPRouteInvalidParentRefNotMatchingSectionName', async () => {
    const name = 'httproute-listener-not-matching-section-name';
    await c.apply([httpRoute(name, { parentRefs: [parent('same-namespace', { port: 80, sectionName: 'http1' })], rules: [{ backendRefs: [backend(V1, { kind: 'Service' })] }] })]);
    await condition(name, 'same-namespace', { type: 'Accepted', status: 'False', reason: 'NoMatchingParent' });
    await noAcceptedParents(name);
    await zeroRoutes('same-namespace');
  });

  test('HTTPRouteInvalidParentRefSectionNameNotMatchingPort', async () => {
    const gw = 'gateway-with-one-not-matching-port-and-section-name-route';
    const name = 'httproute-listener-section-name-not-matching-port';
    await c.apply([
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: gw, namespace: NS },
        spec: { gatewayClassName: 'portico-conformance', listeners: [{ name: 'http', port: 80, protocol: 'HTTP', allowedRoutes: { kinds: [{ kind: 'HTTPRoute' }], namespaces: { from: 'All' } } }] },
      },
      httpRoute(name, { parentRefs: [parent(gw, { sectionName: 'http', port: 81 })], rules: [{ backendRefs: [backend(V1, { kind: 'Service' })] }] }),
    ]);
    await condition(name, gw, { type: 'Accepted', status: 'False', reason: 'NoMatchingParent' });
    await noAcceptedParents(name);
    await zeroRoutes(gw);
  });

  test('HTTPRouteNamedRule', async () => {
    await c.apply([httpRoute('http-named-rules', { rules: [{ name: 'named-rule', ...prefixRule('/named', [], V1) }, prefixRule('/unnamed', [], V2)] })]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'http-named-rules']]);
    await c.expect({ request: { path: '/named' }, response: { statusCode: 200 }, namespace: NS });
    await c.expect({ request: { path: '/unnamed' }, response: { statusCode: 200 }, namespace: NS });
  });

  test('HTTPRouteServiceTypes', async () => {
    // The endpoints Kubernetes would give these Services: infra-backend-v1's pod (here its echo backend on 127.0.0.1).
    const port = c.echoes.get(`${NS}/${V1}`)?.port;
    assert.ok(port !== undefined);
    const service = (name: string, headless: boolean): unknown => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace: NS },
      spec: { ...(headless ? { clusterIP: 'None' } : {}), ports: [{ name: 'first-port', protocol: 'TCP', port: 8080, targetPort: 3000 }] },
    });
    const slice = (service: string, family: 'IPv4' | 'IPv6'): unknown => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: `${service}-${family === 'IPv4' ? 'ip4' : 'ip6'}`, namespace: NS, labels: { 'kubernetes.io/service-name': service } },
      addressType: family,
      ports: [{ name: 'first-port', port, protocol: 'TCP' }],
      endpoints: family === 'IPv4' ? [{ addresses: ['127.0.0.1'], conditions: { ready: true, serving: true, terminating: false } }] : [],
    });
    const exact = (value: string): unknown => ({ matches: [{ path: { type: 'Exact', value } }], backendRefs: [backend(value.slice(1))] });
    await c.apply([
      httpRoute('service-types', { rules: [exact('/manual-endpointslices'), exact('/headless'), exact('/headless-manual-endpointslices')] }),
      service('manual-endpointslices', false),
      slice('manual-endpointslices', 'IPv4'),
      slice('manual-endpointslices', 'IPv6'),
      service('headless', true),
      slice('headless', 'IPv4'),
      service('headless-manual-endpointslices', true),
      slice('headless-manual-endpointslices', 'IPv4'),
      slice('headless-manual-endpointslices', 'IPv6'),
    ]);
    await mustBeAccepted(c, 'same-namespace', [[NS, 'service-types']]);
    for (const path of ['/manual-endpointslices', '/headless-manual-endpointslices', '/headless']) await c.expect({ request: { path }, response: { statusCode: 200 }, backend: V1, namespace: NS });
  });
});
