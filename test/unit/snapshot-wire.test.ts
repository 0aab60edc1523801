// Snapshots cross to the build worker as changes (worker/snapshot-wire.ts): the receiver's snapshot equals the
// sender's after every delta, holds on to the objects it already had, and is sent only what it lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SnapshotReceiver, SnapshotSender, type SnapshotDelta } from '../../src/worker/snapshot-wire.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import { ingress, service, slice } from '../support/objects.js';
import { trim } from '../../src/store/kinds.js';

/** What crossing a thread does to a message. */
const cross = (d: SnapshotDelta): SnapshotDelta => structuredClone(d);
const added = (d: SnapshotDelta): number => Object.values(d.lists).reduce((n, l) => n + l.added.length, 0);
const ing = (name: string, host: string) => ingress(name, { className: 'portico', host, paths: [{ path: '/', type: 'Prefix', service: 'web' }] });

test('the receiver rebuilds each snapshot from the changes alone and keeps the objects it holds', () => {
  const sender = new SnapshotSender();
  const receiver = new SnapshotReceiver();
  const a = ing('a', 'a.test');
  const b = ing('b', 'b.test');
  const web = service('web');
  const first: Snapshot = { ...EMPTY_SNAPSHOT, ingresses: [a, b], services: [web] };
  const d1 = cross(sender.delta(first));
  assert.equal(added(d1), 3);
  const got1 = receiver.apply(d1);
  assert.deepEqual(got1, JSON.parse(JSON.stringify(first)));

  // b changes (a new frozen object, as the store makes), c is added, a and the Service stay.
  const b2 = ing('b', 'b2.test');
  const c = ing('c', 'c.test');
  const second: Snapshot = { ...first, ingresses: [a, b2, c] };
  const d2 = cross(sender.delta(second));
  assert.deepEqual(Object.keys(d2.lists), ['ingresses'], 'only the list that changed crosses');
  assert.equal(added(d2), 2, 'only the changed and the new Ingress cross');
  const got2 = receiver.apply(d2);
  assert.deepEqual(got2, JSON.parse(JSON.stringify(second)));
  assert.equal(got2.ingresses[0], got1.ingresses[0], 'the unchanged Ingress is the object the receiver had');
  assert.equal(got2.services[0], got1.services[0]);

  // Removal, and an optional list appearing then disappearing.
  const third: Snapshot = { ...EMPTY_SNAPSHOT, ingresses: [c], services: [web], gateways: [] };
  assert.deepEqual(receiver.apply(cross(sender.delta(third))), JSON.parse(JSON.stringify(third)));
  const fourth: Snapshot = { ingresses: [c], ingressClasses: [], services: [web], endpointSlices: [], secrets: [], configMaps: [] };
  const got4 = receiver.apply(cross(sender.delta(fourth)));
  assert.deepEqual(got4, JSON.parse(JSON.stringify(fourth)));
  assert.equal('gateways' in got4, false);
});

test('after forget() (a new worker) everything crosses again, and a receiver that missed objects says so', () => {
  const sender = new SnapshotSender();
  const snap: Snapshot = { ...EMPTY_SNAPSHOT, ingresses: [ing('a', 'a.test')], services: [service('web')] };
  new SnapshotReceiver().apply(cross(sender.delta(snap)));
  sender.forget();
  const fresh = new SnapshotReceiver();
  const d = cross(sender.delta(snap));
  assert.equal(added(d), 2);
  assert.deepEqual(fresh.apply(d), JSON.parse(JSON.stringify(snap)));
  // A receiver that never saw the objects a delta refers to refuses it instead of building from a partial snapshot.
  const next: Snapshot = { ...snap, ingresses: [...snap.ingresses, ing('b', 'b.test')] };
  assert.throws(() => new SnapshotReceiver().apply(cross(sender.delta(next))), /was never sent/);
});

test('objects cross as JSON text, and the receiver shares endpoint conditions as the store does', () => {
  const sender = new SnapshotSender();
  const a = trim(slice('a', 80, ['10.0.0.1', '10.0.0.2'], { name: 'a-1' }), 'EndpointSlice');
  const b = trim(slice('b', 80, ['10.0.0.3'], { name: 'b-1' }), 'EndpointSlice');
  const snap: Snapshot = { ...EMPTY_SNAPSHOT, endpointSlices: [a, b] };
  const d = cross(sender.delta(snap));
  for (const [, text] of d.lists.endpointSlices?.added ?? []) assert.equal(typeof text, 'string');
  const got = new SnapshotReceiver().apply(d);
  assert.deepEqual(got, JSON.parse(JSON.stringify(snap)));
  const conditions = got.endpointSlices.flatMap((s) => (s.endpoints ?? []).map((e) => e.conditions));
  assert.equal(conditions.length, 3);
  assert.ok(conditions.every((c) => c === conditions[0]));
});
