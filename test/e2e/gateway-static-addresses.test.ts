// Gateway spec.addresses beyond the conformance suite (docs/adr/0037): a claimed static address answers the Gateway's
// route through real nginx, Gateways of the holder's namespace share it, a Gateway of another namespace is refused it
// (AddressNotUsable, without learning the holder's name) and gets it when the holder lets go.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort, until } from '../support/portico.js';
import { backend, httpRoute, startConformance, type Conformance } from '../gateway-conformance/harness.js';
import { INFRA_NS, WEB_NS } from '../gateway-conformance/base.js';
import { addressedGateway, gatewayMust, getAt, has, values } from '../gateway-conformance/addresses-support.js';

const WAIT_MS = 30_000;
const USABLE = '127.0.0.2';

describe('Gateway static addresses: one namespace holds each', () => {
  let c: Conformance;
  let local8080 = 0;
  before(async () => {
    local8080 = await freePort();
    c = await startConformance(['--gateway-port-map', `8080=${String(local8080)}`, '--publish-status-address', '127.0.0.1', '--gateway-static-addresses', `${USABLE},127.0.0.3`]);
  });
  after(async () => {
    await c?.stop();
  });

  test('a claimed static address serves the Gateway, and another namespace cannot take it', async () => {
    const holder = addressedGateway('holder', [{ type: 'IPAddress', value: USABLE }], { created: '2026-01-01T00:00:00Z' });
    // same namespace: shares what its namespace holds
    const sibling = addressedGateway('sibling', [{ type: 'IPAddress', value: USABLE }], { created: '2026-02-01T00:00:00Z' });
    // another namespace, younger, asking for the held address and for a free one
    const intruder = addressedGateway('intruder', [{ type: 'IPAddress', value: USABLE }], { namespace: WEB_NS, created: '2026-03-01T00:00:00Z' });
    const other = addressedGateway('other', [{ type: 'IPAddress', value: '127.0.0.3' }], { namespace: WEB_NS, created: '2026-03-01T00:00:00Z' });
    const route = httpRoute('to-holder', { parentRefs: [{ name: 'holder', namespace: INFRA_NS }], hostnames: ['static.example.test'], rules: [{ backendRefs: [backend('infra-backend-v1')] }] });
    await c.apply([holder, sibling, intruder, other, route]);

    const held = await gatewayMust(c, 'Programmed with its static address', 'holder', (g) => has(g, 'Programmed', 'True') && values(g).join() === USABLE);
    assert.equal(held.listeners[0]?.attachedRoutes, 1);
    await gatewayMust(c, 'sharing the address its namespace holds', 'sibling', (g) => has(g, 'Programmed', 'True') && values(g).join() === USABLE);
    const refused = await gatewayMust(c, 'Programmed False AddressNotUsable', 'intruder', (g) => has(g, 'Accepted', 'True') && has(g, 'Programmed', 'False', 'AddressNotUsable'), WEB_NS);
    assert.deepEqual(refused.addresses, [], 'the held address is not written to the other namespace');
    assert.match(refused.conditions.find((x) => x.type === 'Programmed')?.message ?? '', /held by a Gateway of another namespace/);
    assert.doesNotMatch(refused.conditions.find((x) => x.type === 'Programmed')?.message ?? '', /holder/, "the holder's name is not told to another namespace");
    await gatewayMust(c, 'a free static address is its own', 'other', (g) => has(g, 'Programmed', 'True') && values(g).join() === '127.0.0.3', WEB_NS);

    // the listener is bound at the address the Gateway claimed
    await until('the route answers at the claimed address', async () => (await getAt(USABLE, local8080, 'static.example.test', '/')).pod.startsWith('infra-backend-v1'), WAIT_MS);

    // the holder lets go: the next oldest claimant of another namespace gets it
    await c.apply([intruder]);
    await gatewayMust(c, 'Programmed with the address let go', 'intruder', (g) => has(g, 'Programmed', 'True') && values(g).join() === USABLE, WEB_NS);
  });
});
