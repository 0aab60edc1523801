// A stored EndpointSlice's endpoints packed into two strings (src/model/packed-endpoints.ts, docs/adr/0060): read back
// exactly as the API gave them (less what the store drops), or kept as they came when they cannot be.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { endpointList, isPacked, packEndpoints } from '../../src/model/packed-endpoints.js';
import { trim } from '../../src/store/kinds.js';
import { buildModel } from '../../src/model/build.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import { MODEL_OPTIONS, ingress, ingressClass, service, slice } from '../support/objects.js';

const roundTrip = (list: readonly unknown[]): unknown => {
  const packed = packEndpoints(list);
  assert.ok(packed, `packs ${JSON.stringify(list)}`);
  return endpointList({ endpoints: packed });
};

test('every combination of the three conditions, and none at all, reads back as it was', () => {
  const values = [undefined, true, false];
  const list: { addresses: string[]; conditions?: Record<string, boolean> }[] = [{ addresses: ['10.0.0.0'] }];
  let n = 1;
  for (const ready of values) {
    for (const serving of values) {
      for (const terminating of values) {
        const c: Record<string, boolean> = {};
        if (ready !== undefined) c['ready'] = ready;
        if (serving !== undefined) c['serving'] = serving;
        if (terminating !== undefined) c['terminating'] = terminating;
        list.push({ addresses: [`10.0.0.${n}`], conditions: c });
        n += 1;
      }
    }
  }
  assert.equal(list.length, 28);
  assert.deepEqual(roundTrip(list), list);
});

test('several addresses, none, IPv6 and FQDN names; an empty list', () => {
  const list = [{ addresses: ['10.0.0.1', '10.0.0.2'] }, { addresses: [], conditions: {} }, { addresses: ['fd00::1'], conditions: { ready: true } }, { addresses: ['a.example.com'] }];
  assert.deepEqual(roundTrip(list), list);
  assert.deepEqual(roundTrip([]), []);
});

test('what the packed form could not give back exactly stays as it came', () => {
  const refused: unknown[][] = [
    [{ addresses: ['10.0.0.1 10.0.0.2'] }], // a separator inside an address
    [{ addresses: ['10.0.0.1,10.0.0.2'] }],
    [{ addresses: [''] }],
    [{ addresses: ['10.0.0.1'], conditions: { ready: 'yes' } }],
    [{ addresses: ['10.0.0.1'], conditions: { ready: true, alive: true } }],
    [{ addresses: ['10.0.0.1'], nodeName: 'n1' }],
    [{ addresses: '10.0.0.1' }],
    [{ addresses: [1] }],
    ['10.0.0.1'],
    [null],
  ];
  for (const list of refused) assert.equal(packEndpoints(list), undefined, JSON.stringify(list));
  // such a slice is stored with its endpoints as they came (less what the store drops), and read the same
  const odd = { ...slice('o', 80, ['10.0.0.1'], { name: 'o-1' }), endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: true, alive: true } }] };
  const stored = trim(odd as unknown as ReturnType<typeof slice>, 'EndpointSlice');
  assert.equal(isPacked(stored.endpoints), false);
  assert.deepEqual(endpointList(stored), odd.endpoints);
});

test('the store packs a slice; the model built from it equals the one built from the slice as sent', () => {
  const sent = slice('web', 8080, [{ ip: '10.0.0.1' }, { ip: '10.0.0.2', ready: false, serving: true, terminating: true }, { ip: '10.0.0.3', ready: false }, '10.0.0.4']);
  const stored = trim(sent, 'EndpointSlice');
  assert.ok(isPacked(stored.endpoints));
  assert.equal(JSON.stringify(stored).includes('"states"'), true, 'plain data: it crosses as JSON as it is');
  const snap = (endpointSlices: Snapshot['endpointSlices']): Snapshot => ({
    ...EMPTY_SNAPSHOT,
    ingresses: [ingress('a', { className: 'portico', host: 'a.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] })],
    ingressClasses: [ingressClass('portico')],
    services: [service('web', 'default', [{ name: 'http', port: 80 }])],
    endpointSlices,
  });
  const fromStore = buildModel(snap([stored]), MODEL_OPTIONS);
  assert.deepEqual(fromStore, buildModel(snap([sent]), MODEL_OPTIONS));
  assert.deepEqual(
    fromStore.upstreams.flatMap((u) => u.endpoints.map((e) => e.address)),
    ['10.0.0.1', '10.0.0.4'],
  );
});
