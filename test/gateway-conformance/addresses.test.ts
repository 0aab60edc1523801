// Gateway API conformance (v1.6.1), the tests of spec.addresses: GatewayStaticAddresses (an unsupported type is not
// Accepted, an address Portico may not claim is not Programmed, a usable one is the Gateway's only status address) and
// GatewayOptionalAddressValue (an entry with a type only gets an address). Portico runs in local mode with
// --publish-status-address 127.0.0.1 (its own address) and --gateway-static-addresses 127.0.0.2,127.0.0.3 (the suite's
// usable addresses); 192.0.2.10 (TEST-NET-1) stands for the suite's unusable one. The status read is /debug/gateway,
// the one the leader writes. Beyond upstream: test/e2e/gateway-static-addresses.test.ts. Manifests are our own.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { freePort } from '../support/portico.js';
import { startConformance, type Conformance } from './harness.js';
import { addressedGateway, gatewayMust, has, values } from './addresses-support.js';

const USABLE = '127.0.0.2';
const UNUSABLE = '192.0.2.10';

describe('GATEWAY-HTTP conformance: Gateway addresses', () => {
  let c: Conformance;
  let local8080 = 0;
  before(async () => {
    local8080 = await freePort();
    c = await startConformance(['--gateway-port-map', `8080=${String(local8080)}`, '--publish-status-address', '127.0.0.1', '--gateway-static-addresses', `${USABLE},127.0.0.3`]);
  });
  after(async () => {
    await c?.stop();
  });

  test('GatewayStaticAddresses', async () => {
    const invalid = { type: 'test/fake-invalid-type', value: 'fake address teehee!' };
    const unusable = { type: 'IPAddress', value: UNUSABLE };
    const usable = { type: 'IPAddress', value: USABLE };
    await c.apply([addressedGateway('gateway-static-addresses', [invalid, unusable, usable])]);
    const refused = await gatewayMust(c, 'Accepted False UnsupportedAddress', 'gateway-static-addresses', (g) => has(g, 'Accepted', 'False', 'UnsupportedAddress'));
    assert.deepEqual(refused.addresses, [], 'a Gateway that is not accepted is bound to no address');

    await c.apply([addressedGateway('gateway-static-addresses', [unusable, usable])]);
    await gatewayMust(
      c,
      'Accepted True, Programmed False AddressNotUsable',
      'gateway-static-addresses',
      (g) => has(g, 'Accepted', 'True', 'Accepted') && has(g, 'Programmed', 'False', 'AddressNotUsable'),
    );

    await c.apply([addressedGateway('gateway-static-addresses', [usable])]);
    const g = await gatewayMust(c, 'Accepted and Programmed True', 'gateway-static-addresses', (x) => has(x, 'Accepted', 'True', 'Accepted') && has(x, 'Programmed', 'True', 'Programmed'));
    assert.deepEqual(
      g.listeners.map((l) => [l.name, l.attachedRoutes, l.supportedKinds.map((k) => k.kind), ['Accepted', 'ResolvedRefs'].every((t) => l.conditions.some((x) => x.type === t && x.status === 'True'))]),
      [['http', 0, ['HTTPRoute'], true]],
    );
    assert.deepEqual(g.addresses, [{ type: 'IPAddress', value: USABLE }], 'exactly the usable address, with its type');
    assert.ok(!values(g).includes(UNUSABLE) && !values(g).includes(invalid.value));
  });

  test('GatewayOptionalAddressValue', async () => {
    await c.apply([addressedGateway('gateway-without-address-value', [{ type: 'IPAddress' }])]);
    const g = await gatewayMust(c, 'an address with a type in status', 'gateway-without-address-value', (x) => has(x, 'Accepted', 'True') && (x.addresses ?? []).some((a) => a.type !== undefined));
    assert.deepEqual(g.addresses, [{ type: 'IPAddress', value: '127.0.0.1' }], "Portico's own IPAddress");
    assert.ok(has(g, 'Programmed', 'True'));
  });
});
