// Every API call a real Portico makes against the API server double is one deploy/rbac.yaml allows, pods and Leases
// only in its own namespace; and every grant is used by some call (nothing granted for nothing).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { RequestRecord } from '../support/apiserver/index.js';
import { until } from '../support/portico.js';
import { accessOf, allows, rbacDocs, type Access, type RbacDoc } from '../support/rbac.js';
import { put, route, startCluster, type Cluster } from '../kube/cluster.js';
import { NS, addressOf, events, reloadingRoute, replica } from './replicas.js';
import { gateway, gatewayClass, grpcRoute, httpRoute, tlsRoute } from '../support/gateway.js';

const SA = { namespace: NS, name: 'portico' };
const key = (a: Access): string => `${a.verb} ${a.group}/${a.resource}${a.namespace === undefined ? '' : ` in ${a.namespace}`}`;
/** Granted but not reached here: an Event series (a repeat within 6 minutes) is patched, covered by test/status. */
const NOT_EXERCISED = new Set(['patch events.k8s.io/events']);

describe('RBAC against the calls Portico makes', () => {
  let c: Cluster;
  let docs: RbacDoc[];
  const calls: RequestRecord[] = [];

  before(async () => {
    docs = await rbacDocs();
    c = await startCluster(['one'], ['default', NS]);
    put(c.api, route('app', 'app.test', 'one'));
    const rules = [{ backendRefs: [{ name: 'one', port: 80 }] }];
    // The GRPCRoute on an HTTP listener is not attached (docs/adr/0020), and its status says so: grpcroutes/status is used.
    // So is the TLSRoute's: tlsroutes/status.
    for (const o of [
      gatewayClass('portico'),
      gateway('web', [{ name: 'http' }]),
      httpRoute('gw', { parentRefs: [{ name: 'web' }], rules }),
      grpcRoute('rpc', { parentRefs: [{ name: 'web' }], rules }),
      // A BackendTLSPolicy on the routes' Service: its ancestor status is written, so backendtlspolicies/status is used.
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'BackendTLSPolicy',
        metadata: { name: 'tls-one', namespace: 'default' },
        spec: { targetRefs: [{ group: '', kind: 'Service', name: 'one' }], validation: { wellKnownCACertificates: 'System', hostname: 'one.test' } },
      },
      tlsRoute('tls', { parentRefs: [{ name: 'web' }], hostnames: ['tls.test'], rules: [{ backendRefs: [{ name: 'one', port: 80 }] }] }),
      // A TCPRoute and a UDPRoute naming the HTTP listener: NotAllowedByListeners, written through tcproutes/status and udproutes/status.
      ...(['TCPRoute', 'UDPRoute'] as const).map((kind) => ({
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind,
        metadata: { name: kind.toLowerCase(), namespace: 'default' },
        spec: { parentRefs: [{ name: 'web' }], rules: [{ backendRefs: [{ name: 'one', port: 80 }] }] },
      })),
      // A ListenerSet naming the Gateway, which admits none (allowedListeners unset): NotAllowed, written through listenersets/status.
      {
        apiVersion: 'gateway.networking.k8s.io/v1',
        kind: 'ListenerSet',
        metadata: { name: 'extra', namespace: 'default' },
        spec: { parentRef: { name: 'web' }, listeners: [{ name: 'extra', port: 80, protocol: 'HTTP', hostname: 'extra.test' }] },
      },
    ])
      put(c.api, o);
    put(c.api, { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-1' }, status: { addresses: [{ type: 'ExternalIP', address: '203.0.113.9' }] } });
  });

  after(async () => {
    await c.stop();
  });

  test("node addresses, a reload, the last replica's shutdown", async () => {
    c.api.clearRequests();
    const p = await replica(c, 'rbac-a', []);
    await until('status from the node', () => JSON.stringify(addressOf(c.api, 'app')) === '[{"ip":"203.0.113.9"}]', 10_000);
    await until(
      'Gateway API status',
      () =>
        c.api.writes('HTTPRoute').length > 0 &&
        c.api.writes('GRPCRoute').length > 0 &&
        c.api.writes('TLSRoute').length > 0 &&
        c.api.writes('TCPRoute').length > 0 &&
        c.api.writes('UDPRoute').length > 0 &&
        c.api.writes('ListenerSet').length > 0 &&
        c.api.writes('BackendTLSPolicy').length > 0 &&
        c.api.writes('GatewayClass').length > 0,
      10_000,
    );
    put(c.api, reloadingRoute('more', 'more.test', 'one')); // a new server block: a reload
    await until('the RELOAD Event', () => events(c.api, NS).some((e) => e.reason === 'RELOAD'), 10_000);
    assert.equal(await p.stop(), 0);
    assert.deepEqual(addressOf(c.api, 'app'), [], 'cleared by the last replica');
    calls.push(...c.api.requests());
    c.api.remove('Pod', NS, 'rbac-a');
  });

  test('--publish-service and --watch-namespace-selector', async () => {
    c.api.clearRequests();
    const p = await replica(c, 'rbac-b', ['--publish-service', 'default/one', '--watch-namespace-selector', 'team=web', '--update-status-on-shutdown=false']);
    await until('the publish Service read', () => c.api.requests().some((r) => r.verb === 'get' && r.kind === 'Service'), 10_000);
    assert.equal(await p.stop(), 0);
    calls.push(...c.api.requests());
  });

  test('every call is allowed, and every grant is used', () => {
    const accesses = calls.flatMap((r) => {
      const a = accessOf(r);
      return a ? [a] : [];
    });
    assert.ok(accesses.length > 20, 'calls were recorded');
    assert.deepEqual([...new Set(accesses.filter((a) => !allows(docs, SA, a)).map(key))], [], 'calls RBAC would refuse');
    const used = new Set(accesses.map((a) => `${a.verb} ${a.group}/${a.resource}`));
    const granted = docs
      .filter((d) => d.kind === 'ClusterRole' || d.kind === 'Role')
      .flatMap((d) => (d.rules ?? []).flatMap((r) => r.apiGroups.flatMap((g) => r.resources.flatMap((res) => r.verbs.map((v) => `${v} ${g}/${res}`)))));
    assert.deepEqual(
      granted.filter((g) => !used.has(g) && !NOT_EXERCISED.has(g)),
      [],
      'grants no call used',
    );
    const ownNamespaceOnly = accesses.filter((a) => a.resource === 'pods' || a.resource === 'leases');
    assert.ok(ownNamespaceOnly.length > 0);
    assert.deepEqual([...new Set(ownNamespaceOnly.map((a) => a.namespace))], [NS], "pods and Leases are read in Portico's namespace");
  });
});
