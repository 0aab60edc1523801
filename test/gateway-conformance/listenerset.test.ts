// Gateway API conformance (v1.6.1), reproduced through real nginx: the ListenerSet tests (GEP-1713). A ListenerSet
// adds listeners to a Gateway whose allowedListeners admit its namespace; routes name it by parentRef kind
// ListenerSet. Status is read from /debug/gateway (the status the leader writes); the manifests are this
// repository's own. Beyond upstream: a ListenerSet of another namespace never serves a host on a Gateway that does not
// admit it (docs/security.md).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { httpRoute, mustBeAccepted, prefixRule, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS, WEB_NS } from './base.js';
import type { Expected } from './expect.js';
import { until } from '../support/portico.js';
import type { Condition } from '../../src/model/gateway/api.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const V3 = 'infra-backend-v3';
const OTHER_NS = 'gateway-api-listenerset-not-allowed-ns';
const at = (host: string, path: string, backendName: string): Expected => ({ request: { host, path }, backend: backendName, namespace: NS });
const missing = (host: string, path: string): Expected => ({ request: { host, path }, response: { statusCode: 404 } });

type Want = { readonly type: string; readonly status: 'True' | 'False'; readonly reason?: string };
const ACCEPTED_LISTENER: readonly Want[] = [
  { type: 'ResolvedRefs', status: 'True' },
  { type: 'Accepted', status: 'True' },
  { type: 'Programmed', status: 'True' },
];
const conflictedListener = (reason: string): readonly Want[] => [
  { type: 'Accepted', status: 'False', reason },
  { type: 'Programmed', status: 'False', reason },
  { type: 'Conflicted', status: 'True', reason },
];

interface HttpListener {
  readonly name: string;
  readonly hostname?: string;
  readonly port?: number;
  readonly protocol?: string;
  /** allowedRoutes.namespaces.from; unset: All. */
  readonly from?: string;
}
const listeners = (list: readonly HttpListener[]): unknown[] =>
  list.map((l) => ({ name: l.name, port: l.port ?? 80, protocol: l.protocol ?? 'HTTP', ...(l.hostname ? { hostname: l.hostname } : {}), allowedRoutes: { namespaces: { from: l.from ?? 'All' } } }));

/** A Gateway of the infra namespace; `allowed`: spec.allowedListeners.namespaces (unset: the default, None). */
function gateway(name: string, list: readonly HttpListener[], allowed?: Record<string, unknown>): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name, namespace: NS },
    spec: { gatewayClassName: 'portico-conformance', listeners: listeners(list), ...(allowed ? { allowedListeners: { namespaces: allowed } } : {}) },
  };
}

/** A ListenerSet naming Gateway `parent` of the infra namespace. */
function listenerSet(name: string, parent: string, list: readonly HttpListener[], namespace = NS): unknown {
  return {
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'ListenerSet',
    metadata: { name, namespace, creationTimestamp: '2026-01-01T00:00:00Z' },
    spec: { parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: parent, namespace: NS }, listeners: listeners(list) },
  };
}
const setRef = (name: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ group: 'gateway.networking.k8s.io', kind: 'ListenerSet', name, namespace: NS, ...more });
const gwRef = (name: string, more: Record<string, unknown> = {}): Record<string, unknown> => ({ name, namespace: NS, ...more });

const has = (cs: readonly Condition[] | undefined, w: Want): boolean => cs?.some((c) => c.type === w.type && c.status === w.status && (w.reason === undefined || c.reason === w.reason)) === true;

describe('GATEWAY-HTTP conformance: ListenerSet', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  /** ListenerSetMustHaveCondition, and when `listener` is given ListenerSetListenersMustHaveConditions (with its attachedRoutes when given). */
  const setMust = async (name: string, want: readonly Want[], listener?: { readonly name: string; readonly want: readonly Want[]; readonly attached?: number }, namespace = NS): Promise<void> => {
    let seen = '';
    await until(`ListenerSet ${namespace}/${name}: ${JSON.stringify(want)} ${JSON.stringify(listener ?? null)} (seen ${seen})`, async () => {
      const s = (await c.debugGateway()).listenerSets?.find((x) => x.namespace === namespace && x.name === name);
      seen = JSON.stringify(s ?? null);
      if (!s || !want.every((w) => has(s.conditions, w))) return false;
      if (!listener) return true;
      const l = s.listeners.find((x) => x.name === listener.name);
      return l !== undefined && listener.want.every((w) => has(l.conditions, w)) && (listener.attached === undefined || l.attachedRoutes === listener.attached);
    });
  };
  /** GatewayMustHaveAttachedListeners, with Accepted True (GatewayMustHaveCondition). */
  const attachedSets = async (gw: string, n: number): Promise<void> => {
    await until(`Gateway ${gw}: Accepted, attachedListenerSets ${String(n)}`, async () => {
      const g = (await c.debugGateway()).gateways.find((x) => x.namespace === NS && x.name === gw);
      return g !== undefined && has(g.conditions, { type: 'Accepted', status: 'True' }) && (g.attachedListenerSets ?? 0) === n;
    });
  };
  const notAllowed: readonly Want[] = [
    { type: 'Accepted', status: 'False', reason: 'NotAllowed' },
    { type: 'Programmed', status: 'False', reason: 'NotAllowed' },
  ];
  const acceptedSet: readonly Want[] = [
    { type: 'Accepted', status: 'True', reason: 'Accepted' },
    { type: 'Programmed', status: 'True', reason: 'Programmed' },
  ];

  test('ListenerSetHTTPRouting', async () => {
    const gw = 'gateway-with-listener-sets-http-routing';
    const ls1 = 'listener-set-http-routing-1';
    const ls2 = 'listener-set-http-routing-2';
    const lsListeners = (set: string): HttpListener[] => [1, 2].map((i) => ({ name: `${set}-listener-${i}`, hostname: `${set}-listener-${i}.com` }));
    await c.apply([
      gateway(
        gw,
        [1, 2].map((i) => ({ name: `gateway-listener-${i}`, hostname: `gateway-listener-${i}.com` })),
        { from: 'All' },
      ),
      listenerSet(ls1, gw, lsListeners(ls1)),
      listenerSet(ls2, gw, lsListeners(ls2)),
      httpRoute('attaches-to-all-listeners', { parentRefs: [gwRef(gw), setRef(ls1), setRef(ls2)], rules: [prefixRule('/route', [], V1)] }),
      httpRoute('gateway-route', { parentRefs: [gwRef(gw)], rules: [prefixRule('/gateway-route', [], V2)] }),
      httpRoute('gateway-section-route', { parentRefs: [gwRef(gw, { sectionName: 'gateway-listener-1' })], rules: [prefixRule('/gateway-section-route', [], V3)] }),
      httpRoute(`${ls1}-route`, { parentRefs: [setRef(ls1)], rules: [prefixRule(`/${ls1}-route`, [], V2)] }),
      httpRoute(`${ls1}-section-route`, { parentRefs: [setRef(ls1, { sectionName: `${ls1}-listener-1` })], rules: [prefixRule(`/${ls1}-section-route`, [], V3)] }),
      httpRoute(`${ls2}-route`, { parentRefs: [setRef(ls2)], rules: [prefixRule(`/${ls2}-route`, [], V2)] }),
    ]);
    await mustBeAccepted(
      c,
      gw,
      ['attaches-to-all-listeners', 'gateway-route', 'gateway-section-route'].map((r) => [NS, r]),
    );
    await attachedSets(gw, 2);
    for (const r of ['attaches-to-all-listeners', `${ls1}-route`, `${ls1}-section-route`]) await c.routeCondition({ route: r, namespace: NS, gateway: ls1, type: 'Accepted', status: 'True' });
    await setMust(ls1, acceptedSet, { name: `${ls1}-listener-1`, want: ACCEPTED_LISTENER, attached: 3 });
    await setMust(ls1, acceptedSet, { name: `${ls1}-listener-2`, want: ACCEPTED_LISTENER, attached: 2 });
    for (const r of ['attaches-to-all-listeners', `${ls2}-route`]) await c.routeCondition({ route: r, namespace: NS, gateway: ls2, type: 'Accepted', status: 'True' });
    await setMust(ls2, acceptedSet, { name: `${ls2}-listener-1`, want: ACCEPTED_LISTENER, attached: 2 });
    await setMust(ls2, acceptedSet, { name: `${ls2}-listener-2`, want: ACCEPTED_LISTENER, attached: 2 });

    const gwHosts = ['gateway-listener-1.com', 'gateway-listener-2.com'];
    const ls1Hosts = [`${ls1}-listener-1.com`, `${ls1}-listener-2.com`];
    const ls2Hosts = [`${ls2}-listener-1.com`, `${ls2}-listener-2.com`];
    const all = [...gwHosts, ...ls1Hosts, ...ls2Hosts];
    const table: Expected[] = [
      ...all.map((h) => at(h, '/route', V1)),
      ...all.map((h) => (gwHosts.includes(h) ? at(h, '/gateway-route', V2) : missing(h, '/gateway-route'))),
      ...all.map((h) => (h === 'gateway-listener-1.com' ? at(h, '/gateway-section-route', V3) : missing(h, '/gateway-section-route'))),
      ...all.map((h) => (ls1Hosts.includes(h) ? at(h, `/${ls1}-route`, V2) : missing(h, `/${ls1}-route`))),
      ...all.map((h) => (h === `${ls1}-listener-1.com` ? at(h, `/${ls1}-section-route`, V3) : missing(h, `/${ls1}-section-route`))),
      ...all.map((h) => (ls2Hosts.includes(h) ? at(h, `/${ls2}-route`, V2) : missing(h, `/${ls2}-route`))),
    ];
    for (const e of table) await c.expect(e);
  });

  test('ListenerSetDefaultNotAllowed', async () => {
    const gw = 'gateway-default-does-not-allow-listenerset';
    const ls = 'listenerset-default-not-allowed';
    await c.apply([
      gateway(gw, [{ name: 'gateway-listener', hostname: 'gateway-listener.com' }]),
      listenerSet(ls, gw, [{ name: 'listenerset-listener', hostname: 'listenerset-listener.com' }]),
      // beyond upstream: a route naming the refused ListenerSet serves nothing, and nothing of the Gateway's own changes
      httpRoute('to-the-gateway', { parentRefs: [gwRef(gw)], rules: [prefixRule('/', [], V1)] }),
      httpRoute('to-the-listenerset', { parentRefs: [setRef(ls)], rules: [prefixRule('/', [], V2)] }),
    ]);
    await attachedSets(gw, 0);
    await setMust(ls, notAllowed);
    await c.expect(at('gateway-listener.com', '/', V1));
    await c.expect(missing('listenerset-listener.com', '/'));
  });

  // beyond upstream: a ListenerSet of another namespace serves no host on this Gateway (docs/security.md)
  test('ListenerSetAllowedNamespaceSame', async () => {
    const gw = 'gateway-allows-listenerset-in-same-namespace';
    const same = 'listenerset-in-same-namespace';
    const other = 'listenerset-in-different-namespace';
    await c.apply([
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: OTHER_NS } },
      gateway(gw, [{ name: 'gateway-listener', hostname: 'gateway-listener.com' }], { from: 'Same' }),
      listenerSet(same, gw, [{ name: `${same}-listener`, hostname: `${same}-listener.com` }]),
      listenerSet(other, gw, [{ name: `${other}-listener`, hostname: `${other}-listener.com` }], OTHER_NS),
      httpRoute('same-route', { parentRefs: [setRef(same)], rules: [prefixRule('/', [], V1)] }),
      // the other namespace's own route on its own ListenerSet, and one on the Gateway's hostname: neither is served
      httpRoute('other-route', { parentRefs: [setRef(other, { namespace: OTHER_NS })], hostnames: [`${other}-listener.com`, 'gateway-listener.com'], rules: [prefixRule('/', [], V2)] }, OTHER_NS),
    ]);
    await attachedSets(gw, 1);
    await setMust(same, acceptedSet, { name: `${same}-listener`, want: ACCEPTED_LISTENER, attached: 1 });
    await setMust(other, notAllowed, undefined, OTHER_NS);
    await c.expect(at(`${same}-listener.com`, '/', V1));
    await c.expect(missing(`${other}-listener.com`, '/'));
    await c.expect(missing('gateway-listener.com', '/'));
  });

  test('ListenerSetHostnameConflict', async () => {
    const gw = 'gateway-with-listenerset-hostname-conflict';
    const withGw = 'hostname-conflict-with-gateway-listener';
    const withSet = 'hostname-conflict-with-listener-set-listener';
    const l = (name: string): HttpListener => ({ name, hostname: `${name}.com` });
    const g1 = 'listenerset-with-hostname-conflict-with-gateway-1';
    const g2 = 'listenerset-with-hostname-conflict-with-gateway-2';
    const s1 = 'listenerset-with-hostname-conflict-with-listener-set-1';
    const s2 = 'listenerset-with-hostname-conflict-with-listener-set-2';
    await c.apply([
      gateway(gw, [l('gateway-listener'), l(withGw)], { from: 'Same' }),
      listenerSet(g1, gw, [l('listener-set-1-listener'), l(withGw), l(withSet)]),
      listenerSet(g2, gw, [l(withGw)]),
      listenerSet(s1, gw, [l('listener-set-2-listener'), l(withSet)]),
      listenerSet(s2, gw, [l(withSet)]),
      // beyond upstream: the winner of each hostname serves it
      httpRoute('on-the-gateway', { parentRefs: [gwRef(gw, { sectionName: withGw })], rules: [prefixRule('/', [], V1)] }),
      httpRoute('on-the-first-set', { parentRefs: [setRef(g1, { sectionName: withSet })], rules: [prefixRule('/', [], V2)] }),
    ]);
    await attachedSets(gw, 2);
    const conflicted = conflictedListener('HostnameConflict');
    const listenersNotValid: readonly Want[] = [
      { type: 'Accepted', status: 'False', reason: 'ListenersNotValid' },
      { type: 'Programmed', status: 'False', reason: 'ListenersNotValid' },
    ];
    const acceptedAny: readonly Want[] = [{ type: 'Accepted', status: 'True' }, acceptedSet[1] as Want];
    await setMust(g1, acceptedAny, { name: 'listener-set-1-listener', want: ACCEPTED_LISTENER });
    await setMust(g1, acceptedAny, { name: withGw, want: conflicted });
    await setMust(g1, acceptedAny, { name: withSet, want: ACCEPTED_LISTENER });
    await setMust(g2, listenersNotValid, { name: withGw, want: conflicted });
    await setMust(s1, acceptedAny, { name: 'listener-set-2-listener', want: ACCEPTED_LISTENER });
    await setMust(s1, acceptedAny, { name: withSet, want: conflicted });
    await setMust(s2, listenersNotValid, { name: withSet, want: conflicted });
    await c.expect(at(`${withGw}.com`, '/', V1));
    await c.expect(at(`${withSet}.com`, '/', V2));
  });

  test('ListenerSetProtocolConflict', async () => {
    const gw = 'gateway-with-listenerset-protocol-conflict';
    const withGw = 'protocol-conflict-with-gateway-listener';
    const withSet = 'protocol-conflict-with-listener-set-listener';
    const l = (name: string): HttpListener => ({ name, hostname: `${name}.com` });
    const tcp = (name: string): HttpListener => ({ name, protocol: 'TCP' });
    const g1 = 'listenerset-with-protocol-conflict-with-gateway-1';
    const g2 = 'listenerset-with-protocol-conflict-with-gateway-2';
    const s1 = 'listenerset-with-protocol-conflict-with-listener-set-1';
    const s2 = 'listenerset-with-protocol-conflict-with-listener-set-2';
    await c.apply([
      gateway(gw, [l('gateway-listener'), l(withGw)], { from: 'Same' }),
      listenerSet(g1, gw, [l('listener-set-1-listener'), tcp(withGw), l(withSet)]),
      listenerSet(g2, gw, [tcp(withGw)]),
      listenerSet(s1, gw, [l('listener-set-2-listener'), tcp(withSet)]),
      listenerSet(s2, gw, [tcp(withSet)]),
      httpRoute('on-the-gateway', { parentRefs: [gwRef(gw)], rules: [prefixRule('/', [], V1)] }),
    ]);
    await c.listenersMust(gw, { 'gateway-listener': 1, [withGw]: 1 });
    await attachedSets(gw, 2);
    const conflicted = conflictedListener('ProtocolConflict');
    const listenersNotValid: readonly Want[] = [
      { type: 'Accepted', status: 'False', reason: 'ListenersNotValid' },
      { type: 'Programmed', status: 'False', reason: 'ListenersNotValid' },
    ];
    const acceptedAny: readonly Want[] = [{ type: 'Accepted', status: 'True' }, acceptedSet[1] as Want];
    await setMust(g1, acceptedAny, { name: 'listener-set-1-listener', want: ACCEPTED_LISTENER });
    await setMust(g1, acceptedAny, { name: withGw, want: conflicted });
    await setMust(g1, acceptedAny, { name: withSet, want: ACCEPTED_LISTENER });
    await setMust(g2, listenersNotValid, { name: withGw, want: conflicted });
    await setMust(s1, acceptedAny, { name: 'listener-set-2-listener', want: ACCEPTED_LISTENER });
    await setMust(s1, acceptedAny, { name: withSet, want: conflicted });
    await setMust(s2, listenersNotValid, { name: withSet, want: conflicted });
    await c.expect(at(`${withGw}.com`, '/', V1));
  });

  test('ListenerSetAllowedNamespaceNone', async () => {
    const gw = 'gateway-does-not-allow-listenerset';
    const ls = 'listenerset-not-allowed';
    await c.apply([
      gateway(gw, [{ name: 'gateway-listener', hostname: 'gateway-listener.com' }], { from: 'None' }),
      listenerSet(ls, gw, [{ name: 'listener-set-listener', hostname: 'listener-set-listener.com' }]),
      httpRoute('to-the-listenerset', { parentRefs: [setRef(ls)], rules: [prefixRule('/', [], V2)] }),
    ]);
    await attachedSets(gw, 0);
    await setMust(ls, notAllowed);
    await c.expect(missing('listener-set-listener.com', '/'));
  });

  test('ListenerSetAllowedNamespaceSelector', async () => {
    const gw = 'gateway-allows-listenerset-in-selected-namespace';
    const inNs = 'gateway-api-listenerset-selector-allowed-ns';
    const outNs = 'gateway-api-listenerset-selector-not-allowed-ns';
    const selected = 'listenerset-in-selected-namespace';
    const notSelected = 'listenerset-not-in-selected-namespace';
    await c.apply([
      gateway(gw, [{ name: 'gateway-listener', hostname: 'gateway-listener.com' }], { from: 'Selector', selector: { matchLabels: { allowed: 'ns' } } }),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: inNs, labels: { allowed: 'ns' } } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: outNs } },
      listenerSet(selected, gw, [{ name: `${selected}-listener`, hostname: `${selected}-listener.com` }], inNs),
      listenerSet(notSelected, gw, [{ name: `${notSelected}-listener`, hostname: `${notSelected}-listener.com` }], outNs),
      // beyond upstream: a route on each ListenerSet; only the selected namespace's is served
      httpRoute('in-route', { parentRefs: [setRef(selected, { namespace: inNs })], rules: [prefixRule('/', [], V1)] }),
      httpRoute('out-route', { parentRefs: [setRef(notSelected, { namespace: outNs })], rules: [prefixRule('/', [], V1)] }),
    ]);
    await attachedSets(gw, 1);
    await setMust(selected, acceptedSet, { name: `${selected}-listener`, want: ACCEPTED_LISTENER, attached: 1 }, inNs);
    await setMust(notSelected, notAllowed, undefined, outNs);
    await c.expect({ request: { host: `${selected}-listener.com`, path: '/' }, backend: V1, namespace: NS });
    await c.expect(missing(`${notSelected}-listener.com`, '/'));
  });

  test('ListenerSetGatewayParentSectionNameNotFound', async () => {
    const gw = 'gateway-section-name';
    const ls = 'listenerset-section-name';
    await c.apply([
      gateway(gw, [{ name: 'gw-listener', hostname: 'gw-section.com', from: 'Same' }], { from: 'Same' }),
      listenerSet(ls, gw, [{ name: 'ls-only-listener', hostname: 'ls-section-name.com', from: 'Same' }]),
      httpRoute('route-via-listenerset', { parentRefs: [setRef(ls, { sectionName: 'ls-only-listener' })], rules: [prefixRule('/goodsection', [], V1)] }),
      httpRoute('route-via-gateway', { parentRefs: [gwRef(gw, { sectionName: 'ls-only-listener' })], rules: [prefixRule('/badsection', [], V2)] }),
    ]);
    await attachedSets(gw, 1);
    await c.routeCondition({ route: 'route-via-listenerset', namespace: NS, gateway: ls, type: 'Accepted', status: 'True' });
    await c.routeCondition({ route: 'route-via-listenerset', namespace: NS, gateway: ls, type: 'ResolvedRefs', status: 'True' });
    await c.routeCondition({ route: 'route-via-gateway', namespace: NS, gateway: gw, type: 'Accepted', status: 'False', reason: 'NoMatchingParent' });
    await c.expect(at('ls-section-name.com', '/goodsection', V1));
    await c.expect(missing('gw-section.com', '/badsection'));
    await c.expect(missing('ls-section-name.com', '/badsection'));
  });

  test('ListenerSetRouteStatusScopedToParentRef', async () => {
    const gw = 'gateway-parentref';
    const ls = 'listenerset-parentref';
    await c.apply([
      gateway(gw, [{ name: 'gw-parentref-listener', hostname: 'gw-parentref.com', from: 'Same' }], { from: 'Same' }),
      listenerSet(ls, gw, [{ name: 'listenerset-parentref-listener', hostname: 'listenerset-parentref.com', from: 'Same' }]),
      httpRoute('route-parentref-gwonly', { parentRefs: [gwRef(gw)], rules: [prefixRule('/gwonly', [], V1)] }),
      httpRoute('route-parentref-lsonly', { parentRefs: [setRef(ls)], rules: [prefixRule('/lsonly', [], V2)] }),
    ]);
    await attachedSets(gw, 1);
    await setMust(ls, acceptedSet, { name: 'listenerset-parentref-listener', want: ACCEPTED_LISTENER, attached: 1 });
    await c.listenersMust(gw, { 'gw-parentref-listener': 1 });
    await c.routeCondition({ route: 'route-parentref-gwonly', namespace: NS, gateway: gw, type: 'Accepted', status: 'True' });
    await c.routeCondition({ route: 'route-parentref-lsonly', namespace: NS, gateway: ls, type: 'Accepted', status: 'True' });
    // HTTPRouteMustHaveParents: each route has exactly the one parent entry it names, of its own kind
    const doc = await c.debugGateway();
    const parents = (name: string): string[] => (doc.httpRoutes.find((r) => r.namespace === NS && r.name === name)?.parents ?? []).map((p) => `${p.parentRef.kind ?? 'Gateway'}/${p.parentRef.name}`);
    assert.deepEqual(parents('route-parentref-gwonly'), [`Gateway/${gw}`]);
    assert.deepEqual(parents('route-parentref-lsonly'), [`ListenerSet/${ls}`]);
    await c.expect(at('gw-parentref.com', '/gwonly', V1));
    await c.expect(missing('listenerset-parentref.com', '/gwonly'));
    await c.expect(at('listenerset-parentref.com', '/lsonly', V2));
    await c.expect(missing('gw-parentref.com', '/lsonly'));
  });

  test('ListenerSetDualParentRefIndependence', async () => {
    const gw = 'gateway-dual-parentref';
    const ls = 'ls-dual-parentref';
    await c.apply([
      gateway(gw, [{ name: 'gw-dual-parentref-listener', hostname: 'gw-dual.com', from: 'Same' }], { from: 'Same' }),
      listenerSet(ls, gw, [{ name: 'ls-dual-parentref-listener', hostname: 'ls-dual.com', from: 'Same' }]),
      httpRoute('route-dual-parentref-both', { parentRefs: [gwRef(gw), setRef(ls)], rules: [prefixRule('/dualboth', [], V1)] }),
      httpRoute('route-dual-parentref-one', {
        parentRefs: [gwRef(gw, { sectionName: 'ls-dual-parentref-listener' }), setRef(ls, { sectionName: 'ls-dual-parentref-listener' })],
        rules: [prefixRule('/dualone', [], V2)],
      }),
    ]);
    await attachedSets(gw, 1);
    await setMust(ls, acceptedSet, { name: 'ls-dual-parentref-listener', want: ACCEPTED_LISTENER, attached: 2 });
    await c.routeCondition({ route: 'route-dual-parentref-both', namespace: NS, gateway: gw, type: 'Accepted', status: 'True' });
    await c.routeCondition({ route: 'route-dual-parentref-both', namespace: NS, gateway: ls, type: 'Accepted', status: 'True' });
    await c.expect(at('gw-dual.com', '/dualboth', V1));
    await c.expect(at('ls-dual.com', '/dualboth', V1));
    await c.routeCondition({ route: 'route-dual-parentref-one', namespace: NS, gateway: gw, type: 'Accepted', status: 'False', reason: 'NoMatchingParent' });
    await c.routeCondition({ route: 'route-dual-parentref-one', namespace: NS, gateway: ls, type: 'Accepted', status: 'True' });
    await c.expect(at('ls-dual.com', '/dualone', V2));
    await c.expect(missing('gw-dual.com', '/dualone'));
  });

  test('ListenerSetReferenceGrant', async () => {
    const gw = 'gateway-with-listener-sets-test-reference-grant';
    const granted = 'listenerset-with-reference-grant';
    const ungranted = 'listenerset-without-reference-grant';
    const refNs = 'gateway-api-listener-sets-test-reference-grant-ns';
    const tls = { certificateRefs: [{ group: '', kind: 'Secret', name: 'certificate', namespace: WEB_NS }] };
    const https = (name: string, hostname: string): unknown => ({ name, port: 443, protocol: 'HTTPS', hostname, allowedRoutes: { namespaces: { from: 'All' } }, tls });
    const grant = (name: string, kind: string): unknown => ({
      apiVersion: 'gateway.networking.k8s.io/v1beta1',
      kind: 'ReferenceGrant',
      metadata: { name, namespace: WEB_NS },
      spec: { from: [{ group: 'gateway.networking.k8s.io', kind, namespace: NS }], to: [{ group: '', kind: 'Secret' }] },
    });
    const set = (name: string, namespace: string, listener: unknown): unknown => ({
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'ListenerSet',
      metadata: { name, namespace },
      spec: { parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: gw, namespace: NS }, listeners: [listener] },
    });
    await c.apply([
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'Gateway',
        metadata: { name: gw, namespace: NS },
        spec: { gatewayClassName: 'portico-conformance', listeners: [https('gateway-listener', 'gateway-listener.com')], allowedListeners: { namespaces: { from: 'All' } } },
      },
      grant('reference-grant-for-gateway', 'Gateway'),
      grant('reference-grant-for-listener-set', 'ListenerSet'),
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: refNs } },
      set(granted, NS, https(`${granted}-listener`, `${granted}-listener.com`)),
      set(ungranted, refNs, https(`${ungranted}-listener`, `${ungranted}-listener-1.com`)),
    ]);
    await until(`Gateway ${gw}: Accepted, listener ResolvedRefs True`, async () => {
      const g = (await c.debugGateway()).gateways.find((x) => x.namespace === NS && x.name === gw);
      return g !== undefined && has(g.conditions, { type: 'Accepted', status: 'True' }) && has(g.listeners[0]?.conditions, { type: 'ResolvedRefs', status: 'True' });
    });
    await setMust(
      granted,
      [
        { type: 'Accepted', status: 'True' },
        { type: 'Programmed', status: 'True' },
      ],
      { name: `${granted}-listener`, want: [{ type: 'ResolvedRefs', status: 'True' }] },
    );
    await setMust(
      ungranted,
      [
        { type: 'Accepted', status: 'False', reason: 'ListenersNotValid' },
        { type: 'Programmed', status: 'False', reason: 'ListenersNotValid' },
      ],
      { name: `${ungranted}-listener`, want: [{ type: 'ResolvedRefs', status: 'False', reason: 'RefNotPermitted' }] },
      refNs,
    );
  });

  test('ListenerSetAllowedRoutesSupportedKinds', async () => {
    const gw = 'gateway-with-listener-sets-test-supported-route-kinds';
    const ls = 'listenerset-test-allowed-routes-supported-kinds';
    await c.apply([
      gateway(gw, [{ name: 'gateway-listener', hostname: 'gateway-listener.com' }], { from: 'All' }),
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'ListenerSet',
        metadata: { name: ls, namespace: NS },
        spec: {
          parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: gw, namespace: NS },
          listeners: [
            {
              name: 'listener-set-listener-allowed-routes-tls-only',
              port: 443,
              protocol: 'TLS',
              hostname: 'listener-set-listener-allowed-routes-tls-only.com',
              allowedRoutes: { namespaces: { from: 'All' }, kinds: [{ kind: 'HTTPRoute' }] },
              tls: { mode: 'Passthrough' },
            },
          ],
        },
      },
    ]);
    await attachedSets(gw, 0);
    await setMust(ls, [], { name: 'listener-set-listener-allowed-routes-tls-only', want: [{ type: 'ResolvedRefs', status: 'False', reason: 'InvalidRouteKinds' }] });
  });

  test('ListenerSetAllowedRoutesNamespaces', async () => {
    const gw = 'gateway-with-listener-sets-test-allowed-routes';
    const ls = 'listenerset-test-allowed-routes-namespaces';
    const crossLs = 'listenerset-test-allowed-routes-cross-ns';
    const selectedNs = 'gateway-api-routes-allowed-ns';
    const otherNs = 'gateway-api-routes-not-allowed-ns';
    const lsNs = 'gateway-api-ls-cross-ns';
    const host = (what: string): string => `listener-set-listener-allowed-routes-${what}.com`;
    const route = (name: string, namespace: string, parent: Record<string, unknown>, to: string): unknown =>
      httpRoute(name, { parentRefs: [parent], rules: [prefixRule(`/${name}`, [], to)].map((r) => ({ ...r, backendRefs: [{ name: to, namespace: NS, port: 8080 }] })) }, namespace);
    await c.apply([
      gateway(gw, [{ name: 'gateway-listener', hostname: 'gateway-listener.com' }], { from: 'All' }),
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'ListenerSet',
        metadata: { name: ls, namespace: NS, creationTimestamp: '2026-01-01T00:00:00Z' },
        spec: {
          parentRef: { group: 'gateway.networking.k8s.io', kind: 'Gateway', name: gw, namespace: NS },
          listeners: [
            { name: 'listener-set-listener-allowed-routes-all', port: 80, protocol: 'HTTP', hostname: host('all'), allowedRoutes: { namespaces: { from: 'All' } } },
            { name: 'listener-set-listener-allowed-routes-same', port: 80, protocol: 'HTTP', hostname: host('same'), allowedRoutes: { namespaces: { from: 'Same' } } },
            {
              name: 'listener-set-listener-allowed-routes-selector',
              port: 80,
              protocol: 'HTTP',
              hostname: host('selector'),
              allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { allowed: 'ns' } } } },
            },
          ],
        },
      },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: selectedNs, labels: { allowed: 'ns' } } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: otherNs } },
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: lsNs } },
      route('route-in-same-namespace', NS, setRef(ls), V1),
      route('route-in-selected-namespace', selectedNs, setRef(ls), V2),
      route('route-not-in-selected-namespace', otherNs, setRef(ls), V3),
      listenerSet(crossLs, gw, [{ name: 'listener-set-listener-allowed-routes-cross-ns-same', hostname: host('cross-ns-same'), from: 'Same' }], lsNs),
      route('route-in-listenerset-namespace', lsNs, setRef(crossLs, { namespace: lsNs }), V1),
      route('route-in-gateway-namespace', NS, setRef(crossLs, { namespace: lsNs }), V2),
      {
        apiVersion: 'gateway.networking.k8s.io/v1beta1',
        kind: 'ReferenceGrant',
        metadata: { name: 'listenerset-test-allowed-routes-namespaces-reference-grant', namespace: NS },
        spec: { from: [selectedNs, otherNs, lsNs].map((namespace) => ({ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace })), to: [{ group: '', kind: 'Service' }] },
      },
    ]);
    await attachedSets(gw, 2);
    for (const [r, ns] of [
      ['route-in-same-namespace', NS],
      ['route-in-selected-namespace', selectedNs],
      ['route-not-in-selected-namespace', otherNs],
    ] as const)
      await c.routeCondition({ route: r, namespace: ns, gateway: ls, type: 'Accepted', status: 'True' });
    await setMust(ls, acceptedSet, { name: 'listener-set-listener-allowed-routes-all', want: ACCEPTED_LISTENER, attached: 3 });
    await setMust(ls, acceptedSet, { name: 'listener-set-listener-allowed-routes-same', want: ACCEPTED_LISTENER, attached: 1 });
    await setMust(ls, acceptedSet, { name: 'listener-set-listener-allowed-routes-selector', want: ACCEPTED_LISTENER, attached: 1 });
    for (const e of [
      at(host('all'), '/route-in-same-namespace', V1),
      at(host('all'), '/route-in-selected-namespace', V2),
      at(host('all'), '/route-not-in-selected-namespace', V3),
      at(host('same'), '/route-in-same-namespace', V1),
      missing(host('same'), '/route-in-selected-namespace'),
      missing(host('same'), '/route-not-in-selected-namespace'),
      missing(host('selector'), '/route-in-same-namespace'),
      at(host('selector'), '/route-in-selected-namespace', V2),
      missing(host('selector'), '/route-not-in-selected-namespace'),
    ])
      await c.expect(e);
    // allowedRoutes Same on a ListenerSet's listener means the ListenerSet's namespace, not the Gateway's
    await c.routeCondition({ route: 'route-in-listenerset-namespace', namespace: lsNs, gateway: crossLs, type: 'Accepted', status: 'True' });
    await c.routeCondition({ route: 'route-in-gateway-namespace', namespace: NS, gateway: crossLs, type: 'Accepted', status: 'False', reason: 'NotAllowedByListeners' });
    await setMust(crossLs, acceptedSet, { name: 'listener-set-listener-allowed-routes-cross-ns-same', want: ACCEPTED_LISTENER, attached: 1 }, lsNs);
    await c.expect(at(host('cross-ns-same'), '/route-in-listenerset-namespace', V1));
    await c.expect(missing(host('cross-ns-same'), '/route-in-gateway-namespace'));
  });
});
