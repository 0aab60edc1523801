// Gateway spec.addresses, unit level (status/gateway-addresses.ts, docs/adr/0037): which addresses a Gateway may claim,
// who holds a static address, and the verdict for each kind of entry.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Gateway } from '../../src/model/gateway/api.js';
import { claimedAddresses, staticClaims, type GatewayAddress } from '../../src/status/gateway-addresses.js';

const OWN: GatewayAddress[] = [
  { type: 'Hostname', value: 'lb.example.test' },
  { type: 'IPAddress', value: '192.0.2.1' },
];
const POOL = ['198.51.100.7', 'Static.Example.Test'];

function gw(namespace: string, name: string, addresses: { type?: string; value?: string }[] | undefined, created = '2026-01-01T00:00:00Z'): Gateway {
  return { metadata: { namespace, name, creationTimestamp: created }, spec: { gatewayClassName: 'portico', listeners: [], ...(addresses ? { addresses } : {}) } };
}

void test("without spec.addresses a Gateway lists Portico's own addresses; unknown own addresses are left unsaid", () => {
  const claims = staticClaims([], POOL);
  assert.deepEqual(claimedAddresses(gw('a', 'g', undefined), OWN, claims), { addresses: OWN });
  assert.deepEqual(claimedAddresses(gw('a', 'g', []), undefined, claims), {});
});

void test('own addresses and pooled ones are claimed by value and type; the pool is typed by value and compared without case', () => {
  const g = gw('a', 'g', [{ value: '192.0.2.1' }, { type: 'Hostname', value: 'static.example.test' }]);
  const claims = staticClaims([g], POOL);
  assert.deepEqual(claimedAddresses(g, OWN, claims), {
    addresses: [
      { type: 'IPAddress', value: '192.0.2.1' },
      { type: 'Hostname', value: 'static.example.test' },
    ],
  });
  // the right value with the wrong type is not the address
  const wrongType = gw('a', 'h', [{ type: 'Hostname', value: '198.51.100.7' }]);
  const r = claimedAddresses(wrongType, OWN, staticClaims([wrongType], POOL));
  assert.deepEqual(r.addresses, []);
  assert.equal(r.problem?.[1], 'AddressNotUsable');
  assert.match(r.problem?.[2] ?? '', /^spec\.addresses\[0\]: Hostname 198\.51\.100\.7 is not an address Portico may claim/);
});

void test('the oldest claimant holds a static address for its namespace; another namespace is refused it, whatever the order given', () => {
  const holder = gw('team-a', 'old', [{ value: '198.51.100.7' }], '2026-01-01T00:00:00Z');
  const sibling = gw('team-a', 'sibling', [{ value: '198.51.100.7' }], '2026-03-01T00:00:00Z');
  const other = gw('team-b', 'young', [{ value: '198.51.100.7' }, { value: '192.0.2.1' }], '2026-02-01T00:00:00Z');
  for (const order of [
    [holder, sibling, other],
    [other, sibling, holder],
  ]) {
    const claims = staticClaims(order, POOL);
    assert.deepEqual(claimedAddresses(holder, OWN, claims).addresses, [{ type: 'IPAddress', value: '198.51.100.7' }]);
    assert.deepEqual(claimedAddresses(sibling, OWN, claims).addresses, [{ type: 'IPAddress', value: '198.51.100.7' }]);
    const refused = claimedAddresses(other, OWN, claims);
    assert.deepEqual(refused.addresses, [{ type: 'IPAddress', value: '192.0.2.1' }], 'what it may have is still listed');
    assert.deepEqual(refused.problem?.slice(0, 2), [false, 'AddressNotUsable']);
    assert.doesNotMatch(refused.problem?.[2] ?? '', /team-a|\bold\b/, 'the holder is not named to another namespace');
  }
  // the holder lets go: the next oldest claimant, of another namespace, holds it
  const claims = staticClaims([sibling, other], POOL);
  assert.equal(claimedAddresses(other, OWN, claims).problem, undefined);
  assert.equal(claimedAddresses(sibling, OWN, claims).problem?.[1], 'AddressNotUsable');
});

void test("an entry with a type only gets Portico's own addresses of that type, else AddressNotAssigned; unsupported types are left to Accepted", () => {
  const claims = staticClaims([], POOL);
  assert.deepEqual(claimedAddresses(gw('a', 'g', [{ type: 'IPAddress' }]), OWN, claims), { addresses: [{ type: 'IPAddress', value: '192.0.2.1' }] });
  const none = claimedAddresses(gw('a', 'g', [{ type: 'Hostname' }]), [{ type: 'IPAddress', value: '192.0.2.1' }], claims);
  assert.deepEqual(none.addresses, []);
  assert.equal(none.problem?.[1], 'AddressNotAssigned');
  assert.deepEqual(claimedAddresses(gw('a', 'g', [{ type: 'IPAddress' }]), undefined, claims), {}, 'own addresses unknown: no verdict');
  assert.deepEqual(claimedAddresses(gw('a', 'g', [{ type: 'example.test/Named', value: 'x' }]), OWN, claims), { addresses: [] });
});
