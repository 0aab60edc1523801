// Gateway API conformance (v1.6.1), reproduced through real nginx: HTTPRouteMultipleGateways. Two Gateways of the infra
// namespace, same-namespace and all-namespaces, each an HTTP listener on port 80 with no hostname; a route on /shared
// attached to both, and a route on / for each. Upstream asks each Gateway at its own address; here the operator gives
// each Gateway local ports of its own with per-Gateway entries of --gateway-port-map (docs/adr/0030), as a Service per
// Gateway would in a cluster, so "the address of Gateway X" is X's local port. The manifests are this repository's own.
import { after, before, describe, test } from 'node:test';
import { freePort } from '../support/portico.js';
import { httpRoute, mustBeAccepted, prefixRule, startConformance, type Conformance } from './harness.js';
import { INFRA_NS as NS } from './base.js';
import type { Expected } from './expect.js';

const V1 = 'infra-backend-v1';
const V2 = 'infra-backend-v2';
const V3 = 'infra-backend-v3';
const at = (path: string, backendName: string): Expected => ({ request: { path }, backend: backendName, namespace: NS });

describe('GATEWAY-HTTP conformance: a route on two Gateways, each Gateway on its own local ports', () => {
  let c: Conformance;
  const local = { same: 0, all: 0 };
  before(async () => {
    local.same = await freePort();
    local.all = await freePort();
    c = await startConformance(['--gateway-port-map', `${NS}/same-namespace:80=${String(local.same)},${NS}/all-namespaces:80=${String(local.all)}`]);
  });
  after(async () => {
    await c?.stop();
  });

  test('HTTPRouteMultipleGateways', async () => {
    await c.apply([
      httpRoute('multiple-gateways-shared-route', { parentRefs: [{ name: 'same-namespace' }, { name: 'all-namespaces' }], rules: [prefixRule('/shared', [], V1)] }),
      httpRoute('same-namespace-dedicated-route', { parentRefs: [{ name: 'same-namespace' }], rules: [prefixRule('/', [], V2)] }),
      httpRoute('all-namespaces-dedicated-route', { parentRefs: [{ name: 'all-namespaces' }], rules: [prefixRule('/', [], V3)] }),
    ]);
    // Gateway same-namespace
    await mustBeAccepted(c, 'same-namespace', [
      [NS, 'multiple-gateways-shared-route'],
      [NS, 'same-namespace-dedicated-route'],
    ]);
    await c.expect(at('/shared', V1), local.same);
    await c.expect(at('/', V2), local.same);
    // Gateway all-namespaces
    await mustBeAccepted(c, 'all-namespaces', [
      [NS, 'multiple-gateways-shared-route'],
      [NS, 'all-namespaces-dedicated-route'],
    ]);
    await c.expect(at('/shared', V1), local.all);
    await c.expect(at('/', V3), local.all);
    // Beyond upstream: neither Gateway's routes answer on --http-port, where the other Gateways of port 80 are served.
    await c.expect({ request: { path: '/' }, response: { statusCode: 404 } });
    await c.expect({ request: { path: '/shared' }, response: { statusCode: 404 } });
  });
});
