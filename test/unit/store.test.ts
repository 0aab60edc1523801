// The store keeps what the model reads and drops the rest: the model built from the store equals the one built from
// the objects as the API server sent them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { buildModel } from '../../src/model/build.js';
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import { endpointList, isPacked } from '../../src/model/packed-endpoints.js';
import { Store } from '../../src/store/store.js';
import { MODEL_OPTIONS, ingress, ingressClass, service, slice } from '../support/objects.js';

/** A slice as a real cluster's EndpointSlice controller writes it: every endpoint names its pod, node and zone. */
function realSlice(): EndpointSlice {
  const s = slice('web', 8080, [{ ip: '10.0.0.1' }, { ip: '10.0.0.2', ready: false, serving: true, terminating: true }, { ip: '10.0.0.3', ready: false }]);
  return {
    ...s,
    metadata: { ...s.metadata, ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: 'u-1', controller: true, blockOwnerDeletion: true }], resourceVersion: '7' },
    endpoints: s.endpoints.map((e, i) => ({
      ...e,
      nodeName: `node-${i}`,
      zone: 'zone-a',
      hostname: `web-${i}`,
      hints: { forZones: [{ name: 'zone-a' }] },
      targetRef: { kind: 'Pod', namespace: 'default', name: `web-${i}`, uid: `pod-${i}` },
    })),
  };
}

function snapshotOf(endpointSlices: Snapshot['endpointSlices']): Snapshot {
  return {
    ...EMPTY_SNAPSHOT,
    ingresses: [ingress('a', { className: 'portico', host: 'a.test', paths: [{ path: '/', type: 'Prefix', service: 'web' }] })],
    ingressClasses: [ingressClass('portico')],
    services: [service('web', 'default', [{ name: 'http', port: 80 }])],
    endpointSlices,
  };
}

test('a stored EndpointSlice keeps addresses and conditions, and drops targetRef, nodeName, zone, hints and ownerReferences', () => {
  const store = new Store<Snapshot>();
  store.upsert('EndpointSlice', realSlice());
  const [stored] = store.snapshot().endpointSlices;
  assert.ok(stored);
  assert.deepEqual(
    endpointList(stored).map((e) => Object.keys(e).sort()),
    [
      ['addresses', 'conditions'],
      ['addresses', 'conditions'],
      ['addresses', 'conditions'],
    ],
  );
  assert.deepEqual(
    endpointList(stored).map((e) => e.conditions),
    realSlice().endpoints.map((e) => e.conditions),
  );
  assert.equal(stored.metadata?.ownerReferences, undefined);
  assert.equal(stored.metadata?.labels?.['kubernetes.io/service-name'], 'web');
  assert.ok(isPacked(stored.endpoints), 'packed (model/packed-endpoints.ts)');
  assert.ok(Object.isFrozen(stored.endpoints));
});

test('the model built from the store equals the model built from the objects as sent (endpoints, their states)', () => {
  const store = new Store<Snapshot>();
  const real = realSlice();
  store.replaceKind('EndpointSlice', [real]);
  const fromStore = buildModel({ ...snapshotOf(store.snapshot().endpointSlices) }, MODEL_OPTIONS);
  const asSent = buildModel(snapshotOf([real]), MODEL_OPTIONS);
  assert.deepEqual(fromStore, asSent);
  // the ready endpoint only (a terminating one serves only when none is ready)
  assert.deepEqual(
    fromStore.upstreams.flatMap((u) => u.endpoints.map((e) => e.address)),
    ['10.0.0.1'],
  );
});
