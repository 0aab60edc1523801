// Snapshots cross to the build worker as changes (worker/snapshot-wire.ts): the receiver's snapshot equals the
// sender's after every delta, holds on to the objects it already had, and is sent only what it lacks.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SnapshotReceiver, SnapshotSender, type SnapshotDelta } from '../../src/worker/snapshot-wire.js';
import { EMPTY_SNAPSHOT, type Snapshot } from '../../src/model/input.js';
import { ingress, service, slice } from '../support/objects.js';
import { compactText, peekWireText, trim } from '../../src/store/kinds.js';
import { Store } from '../../src/store/store.js';
import { endpointList } from '../../src/model/packed-endpoints.js';

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
  const conditions = got.endpointSlices.flatMap((s) => endpointList(s).map((e) => e.conditions));
  assert.equal(conditions.length, 3);
  assert.ok(conditions.every((c) => c === conditions[0]));
});

test('a list crosses as its common ends and what lies between: inserts, removals and moves in a long list', () => {
  const sender = new SnapshotSender();
  const receiver = new SnapshotReceiver();
  const many = Array.from({ length: 200 }, (_, i) => ing(`i${String(i).padStart(3, '0')}`, `h${i}.test`));
  const web = service('web');
  const first: Snapshot = { ...EMPTY_SNAPSHOT, ingresses: many, services: [web] };
  const got1 = receiver.apply(cross(sender.delta(first)));

  // one Ingress inserted in the middle, one removed near the end, one changed near the start
  const changed = ing('i005', 'changed.test');
  const list = [...many.slice(0, 5), changed, ...many.slice(6, 100), ing('i100a', 'new.test'), ...many.slice(100, 150), ...many.slice(151)];
  const d = cross(sender.delta({ ...first, ingresses: list }));
  const l = d.lists.ingresses;
  assert.deepEqual(Object.keys(d.lists), ['ingresses']);
  assert.equal(l?.added.length, 2, 'only the changed and the new Ingress cross as text');
  assert.equal((l?.head ?? 0) + (l?.tail ?? 0) + (l?.ids.length ?? 0), list.length);
  assert.ok((l?.ids.length ?? 0) < 150, `the ids between the common ends are not the whole list (${String(l?.ids.length)})`);
  const got2 = receiver.apply(d);
  assert.deepEqual(got2, JSON.parse(JSON.stringify({ ...first, ingresses: list })));
  assert.equal(got2.ingresses[0], got1.ingresses[0]);
  assert.equal(got2.ingresses[120], got1.ingresses[119], 'an Ingress between the changes is the object the receiver had');
  assert.equal(got2.ingresses[199], got1.ingresses[199]);

  // the first two swap places, the last one goes: the objects are still the receiver's, none crosses
  const swapped = [list[1], list[0], ...list.slice(2, -1)] as typeof list;
  const d3 = cross(sender.delta({ ...first, ingresses: swapped }));
  assert.equal(d3.lists.ingresses?.added.length, 0);
  const got3 = receiver.apply(d3);
  assert.deepEqual(got3, JSON.parse(JSON.stringify({ ...first, ingresses: swapped })));
  assert.equal(got3.ingresses[0], got2.ingresses[1]);
  // the Ingress removed before is not held any more: a delta naming it is refused, and the receiver is unchanged
  const stale = { ...d3, lists: { ingresses: { had: swapped.length, head: 0, tail: 0, ids: [...(d3.lists.ingresses?.ids ?? []), 987654], added: [] } } };
  assert.throws(() => receiver.apply(stale), /was never sent/);
  // a delta made against another list than the one held (a length the sender counted wrong) is refused too
  const other = { ...d3, lists: { ingresses: { ...(d3.lists.ingresses ?? { head: 0, tail: 0, ids: [], added: [] }), had: swapped.length + 1 } } };
  assert.throws(() => receiver.apply(other), /counted as held/);
  const d4 = cross(sender.delta({ ...first, ingresses: swapped.slice(1) }));
  assert.deepEqual(receiver.apply(d4), JSON.parse(JSON.stringify({ ...first, ingresses: swapped.slice(1) })));
});

test('objects sent ahead (preload) are named by id alone in the next deltas; what two deltas did not name is dropped', () => {
  const sender = new SnapshotSender();
  const receiver = new SnapshotReceiver();
  // stored objects, each with the text the store keeps for it until it crosses
  const a = trim(ing('a', 'a.test'), 'Ingress');
  const b = trim(ing('b', 'b.test'), 'Ingress');
  const gone = trim(ing('gone', 'gone.test'), 'Ingress');
  const s = trim(slice('web', 80, ['10.0.0.1', '10.0.0.2']), 'EndpointSlice');
  const items = sender.preload([a, b, gone, s]);
  assert.equal(items.ids.length, 4);
  assert.deepEqual(sender.preload([a]).ids, [], 'an object is sent ahead once');
  receiver.preload(structuredClone(items));
  const texts = (d: SnapshotDelta) => Object.values(d.lists).flatMap((l) => l.added.map((x) => x[1]));
  // the startup head: a alone
  const head = cross(sender.delta({ ...EMPTY_SNAPSHOT, ingresses: [a] }));
  assert.deepEqual(texts(head), [undefined], 'no text crosses again');
  assert.equal(head.dropEarly, undefined, 'what was sent ahead is kept for the next delta');
  assert.deepEqual(receiver.apply(head).ingresses, JSON.parse(JSON.stringify([a])));
  // the whole: b and the slice, sent ahead too
  const snap: Snapshot = { ...EMPTY_SNAPSHOT, ingresses: [a, b], endpointSlices: [s] };
  const whole = cross(sender.delta(snap));
  assert.deepEqual(texts(whole), [undefined, undefined]);
  assert.equal(whole.dropEarly, true, 'after two deltas, what neither named (gone) is dropped');
  const got = receiver.apply(whole);
  assert.deepEqual(got.ingresses, JSON.parse(JSON.stringify([a, b])));
  assert.deepEqual(endpointList(got.endpointSlices[0]!), endpointList(s), 'a slice sent ahead is packed as the store keeps it');
  // `gone` was dropped by both sides: a later snapshot sends its text
  const d3 = cross(sender.delta({ ...snap, ingresses: [a, b, gone] }));
  assert.equal(typeof d3.lists.ingresses?.added[0]?.[1], 'string');
  assert.deepEqual(
    receiver.apply(d3).ingresses.map((i) => i.metadata?.name),
    ['a', 'b', 'gone'],
  );
});

test('objects sent ahead cross as one text a batch: a line break inside a value survives, a batch that does not match its ids is not taken', () => {
  const sender = new SnapshotSender();
  const receiver = new SnapshotReceiver();
  const multi = ing('multi', 'multi.test');
  const a = trim({ ...multi, metadata: { ...multi.metadata, annotations: { 'nginx.ingress.kubernetes.io/configuration-snippet': 'more_set_headers "A: 1";\nmore_set_headers "B: 2";' } } }, 'Ingress');
  const b = trim(ing('b', 'b.test'), 'Ingress');
  const items = sender.preload([a, b]);
  assert.equal(typeof items.texts, 'string');
  receiver.preload(structuredClone(items));
  const got = receiver.apply(cross(sender.delta({ ...EMPTY_SNAPSHOT, ingresses: [a, b] })));
  assert.deepEqual(got.ingresses, JSON.parse(JSON.stringify([a, b])));
  assert.match(got.ingresses[0]?.metadata?.annotations?.['nginx.ingress.kubernetes.io/configuration-snippet'] ?? '', /;\nmore_set_headers/);
  // a batch whose texts and ids disagree: nothing of it is taken, so the delta naming its objects is refused
  const other = new SnapshotSender();
  const fresh = new SnapshotReceiver();
  const c = trim(ing('c', 'c.test'), 'Ingress');
  const sent = other.preload([c]);
  fresh.preload({ ids: sent.ids, texts: `${sent.texts}\n{}` });
  assert.throws(() => fresh.apply(cross(other.delta({ ...EMPTY_SNAPSHOT, ingresses: [c] }))), /snapshot delta:.*sent ahead/);
});

test('a delta naming an object sent ahead that the receiver never got is refused, and the next whole delta carries its text', () => {
  const sender = new SnapshotSender();
  const receiver = new SnapshotReceiver();
  const a = trim(ing('a', 'a.test'), 'Ingress');
  const b = trim(ing('b', 'b.test'), 'Ingress');
  receiver.preload(structuredClone(sender.preload([b])));
  sender.preload([a]); // lost on the way
  const snap: Snapshot = { ...EMPTY_SNAPSHOT, ingresses: [a] };
  assert.throws(() => receiver.apply(cross(sender.delta(snap))), /snapshot delta:.*sent ahead/);
  sender.forget();
  const again = cross(sender.delta({ ...snap, ingresses: [a, b] }));
  assert.equal(again.dropEarly, true, 'the receiver drops what was sent ahead before the refusal');
  assert.deepEqual(receiver.apply(again).ingresses, JSON.parse(JSON.stringify([a, b])));
});

test('an object sent ahead keeps no text, and the store still keeps it as it is: the next delta names it by id alone', () => {
  const sender = new SnapshotSender();
  const receiver = new SnapshotReceiver();
  const store = new Store<Snapshot>();
  // as a folder's first read makes it: the stamp's own JSON, parsed once (store/kinds.ts compactText)
  const a = compactText(JSON.stringify(ing('a', 'a.test')), 'Ingress');
  receiver.preload(structuredClone(sender.preload([a])));
  assert.equal(peekWireText(a), undefined, 'its text is forgotten once sent');
  store.replaceKind('Ingress', [a]);
  const snap = store.snapshot();
  assert.equal(snap.ingresses[0], a, 'the store froze the object sent ahead, not a copy of it');
  const d = cross(sender.delta(snap));
  assert.deepEqual(d.lists.ingresses?.added, [[d.lists.ingresses?.ids[0]]], 'named by id, without its text');
  assert.deepEqual(receiver.apply(d).ingresses, JSON.parse(JSON.stringify([a])));
});
