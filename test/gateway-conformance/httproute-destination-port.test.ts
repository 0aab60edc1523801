// Gateway API conformance (v1.6.1), reproduced through real nginx: HTTPRouteInvalidParentRefNotMatchingListenerPort
// (feature HTTPRouteDestinationPortMatching). A parentRef whose port no listener of the Gateway has attaches to
// nothing: the route is not Accepted (NoMatchingParent), has no accepted parent, the Gateway counts no route, and
// nginx does not serve it. The manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { backend, httpRoute, startConformance, type Conformance } from './harness.js';
import { INFRA_NS } from './base.js';

describe('GATEWAY-HTTP conformance: a parentRef port no listener has', () => {
  let c: Conformance;
  before(async () => {
    c = await startConformance();
  });
  after(async () => {
    await c?.stop();
  });

  test('HTTPRouteInvalidParentRefNotMatchingListenerPort', async () => {
    const route = 'httproute-listener-not-matching-route-port';
    await c.apply([
      httpRoute(route, {
        // same-namespace has one listener, HTTP on 80: nothing listens on 81
        parentRefs: [{ name: 'same-namespace', namespace: INFRA_NS, port: 81 }],
        rules: [{ backendRefs: [backend('infra-backend-v1')] }],
      }),
    ]);
    await c.routeCondition({ route, namespace: INFRA_NS, gateway: 'same-namespace', type: 'ResolvedRefs', status: 'True' });
    await c.routeCondition({ route, namespace: INFRA_NS, gateway: 'same-namespace', type: 'Accepted', status: 'False', reason: 'NoMatchingParent' });

    const parents = (await c.debugGateway()).httpRoutes.find((r) => r.name === route && r.namespace === INFRA_NS)?.parents ?? [];
    assert.equal(parents.length, 1, 'one parent entry, for the one parentRef');
    assert.ok(
      parents.every((p) => !p.conditions.some((x) => x.type === 'Accepted' && x.status === 'True')),
      'no parent accepted',
    );
    await c.listenersMust('same-namespace', { http: 0 });
    // not served either: the Gateway's port 80 answers the request with nginx's default 404
    await c.expect({ request: { path: '/' }, response: { statusCode: 404 } });
  });
});
