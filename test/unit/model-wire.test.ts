// model-wire.ts: what a build's model carries back to the main thread, and what the main thread rebuilds from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelReceiver, ModelSender, type ModelDelta } from '../../src/worker/model-wire.js';
import { pack, unpack } from '../../src/worker/wire.js';
import { Sensitive } from '../../src/model/tls-types.js';
import type { Model, Server } from '../../src/model/types.js';

const EMPTY_TLS = { certificates: [], hosts: [], servers: [] } as unknown as Model['tls']; // only carried, never read here
// Extra fields stand for settings: the wire keys a server by its whole content, whatever its fields.
const server = (host: string, extra: Record<string, unknown> = {}): Server => ({ host, locations: [], ...extra });
const model = (servers: Server[]): Model => ({ servers, upstreams: [], ingresses: [], problems: [], tls: EMPTY_TLS });
/** A delta as it crosses the thread boundary: packed (its Sensitive values tagged), cloned, unpacked. */
const cross = (d: ModelDelta): ModelDelta => unpack<ModelDelta>(structuredClone(pack(d)));
const values = (m: Model, s: ModelSender) => s.delta(m).lists.servers.values.length;

test('only what the receiver lacks travels; a forgotten receiver gets everything again', () => {
  const sender = new ModelSender();
  const [a, b] = [server('a.test'), server('b.test')];
  assert.equal(values(model([a, b]), sender), 2);
  assert.equal(values(model([a, b]), sender), 0, 'the same servers again: nothing travels');
  assert.equal(values(model([a, server('c.test')]), sender), 1, 'the server kept stays, the new one travels');
  assert.equal(values(model([server('a.test', { secret: new Sensitive('one') })]), sender), 1);
  assert.equal(values(model([server('a.test', { secret: new Sensitive('two') })]), sender), 1, 'a changed secret is a changed server');
  sender.forget();
  assert.equal(values(model([server('a.test', { secret: new Sensitive('two') })]), sender), 1);
});

test('a whole build (every object new) sends only the servers whose content the receiver lacks', () => {
  const sender = new ModelSender();
  const receiver = new ModelReceiver();
  const hosts = Array.from({ length: 200 }, (_, i) => `h${String(i).padStart(3, '0')}.test`);
  const first = receiver.apply(structuredClone(sender.delta(model(hosts.map((h) => server(h))))));
  const whole = model(hosts.map((h, i) => server(h, i === 7 ? { changed: true } : {})));
  const d = sender.delta(whole);
  assert.equal(d.lists.servers.values.length, 1, 'of 200 rebuilt servers, the one that changed');
  const second = receiver.apply(structuredClone(d));
  assert.deepEqual(second.servers, whole.servers);
  assert.equal(second.servers[8], first.servers[8], 'an equal server is the object the receiver held');
});

test('a whole build ten times the size of the one held (the head, then the whole) sends its servers without looking them up by content', () => {
  const sender = new ModelSender();
  const receiver = new ModelReceiver();
  const hosts = Array.from({ length: 200 }, (_, i) => `h${String(i).padStart(3, '0')}.test`);
  receiver.apply(structuredClone(sender.delta(model(hosts.filter((_, i) => i % 10 === 0).map((h) => server(h))))));
  const whole = model(hosts.map((h) => server(h)));
  const d = sender.delta(whole);
  assert.equal(d.lists.servers.values.length, 200, 'the 20 servers the receiver holds travel again: cheaper than 200 content keys');
  assert.deepEqual(receiver.apply(structuredClone(d)).servers, whole.servers);
  const again = model(hosts.map((h, i) => server(h, i === 7 ? { changed: true } : {})));
  assert.equal(sender.delta(again).lists.servers.values.length, 1, 'then a whole build of the same size is matched by content');
});

test('in a long list, an insertion and a removal in the middle carry only what changed', () => {
  const sender = new ModelSender();
  const receiver = new ModelReceiver();
  const servers = Array.from({ length: 1000 }, (_, i) => server(`h${String(i).padStart(4, '0')}.test`));
  const first = receiver.apply(structuredClone(sender.delta(model(servers))));
  const added = [...servers.slice(0, 500), server('h0500a.test'), ...servers.slice(500)];
  const d = sender.delta(model(added));
  assert.deepEqual([d.lists.servers.head, d.lists.servers.tail, d.lists.servers.from.length, d.lists.servers.values.length], [500, 500, 1, 1]);
  const second = receiver.apply(structuredClone(d));
  assert.deepEqual(
    second.servers.map((s) => s.host),
    added.map((s) => s.host),
  );
  assert.equal(second.servers[999], first.servers[998]);
  const removed = added.filter((_, i) => i !== 20);
  const r = sender.delta(model(removed));
  assert.deepEqual([r.lists.servers.from.length, r.lists.servers.values.length], [0, 0]);
  assert.deepEqual(
    receiver.apply(structuredClone(r)).servers.map((s) => s.host),
    removed.map((s) => s.host),
  );
  // one namespace's servers rebuilt: spread over the sorted list, so the middle is almost all of it
  const spread = removed.map((s, i) => (i % 100 === 3 ? server(s.host, { rebuilt: i }) : s));
  const d2 = sender.delta(model(spread));
  assert.equal(d2.lists.servers.values.length, 10, 'the ten rebuilt servers travel, not the 990 between them');
  const third = receiver.apply(structuredClone(d2));
  assert.deepEqual(third.servers, spread);
  assert.equal(third.servers[50], first.servers[51], 'a server between them is the object the receiver held');
});

test('the receiver rebuilds each model in order, keeping held objects, and refuses a part it never got', () => {
  const sender = new ModelSender();
  const receiver = new ModelReceiver();
  const a = server('a.test');
  const first = receiver.apply(structuredClone(sender.delta(model([a, server('b.test')]))));
  const second = receiver.apply(structuredClone(sender.delta(model([a, server('c.test')]))));
  assert.deepEqual(
    second.servers.map((s) => s.host),
    ['a.test', 'c.test'],
  );
  assert.equal(second.servers[0], first.servers[0]);
  const lost = new ModelReceiver();
  assert.throws(() => lost.apply(structuredClone(sender.delta(model([a, server('d.test')])))), /model delta: .* never sent/);
});

test('of the rest, only the fields that changed travel; the receiver keeps the others as it holds them', () => {
  const sender = new ModelSender();
  const receiver = new ModelReceiver();
  const ingresses = [{ kind: 'Ingress', namespace: 'a', name: 'one' }];
  const a = server('a.test');
  const first = receiver.apply(structuredClone(sender.delta({ ...model([a]), ingresses })));
  const d = sender.delta({ ...model([a]), ingresses: [...ingresses, { kind: 'Ingress', namespace: 'a', name: 'two' }] });
  assert.deepEqual(Object.keys(d.rest), [], 'the lists cross element by element, the TLS model did not change');
  assert.deepEqual(d.kept, ['tls']);
  assert.equal(d.lists.ingresses.values.length, 1, 'only the new Ingress travels');
  const second = receiver.apply(structuredClone(d));
  assert.deepEqual(
    second.ingresses.map((i) => i.name),
    ['one', 'two'],
  );
  assert.equal(second.tls, first.tls, 'the TLS model did not change: the one held');
  assert.equal(second.servers[0], first.servers[0]);
  const gone = receiver.apply(structuredClone(sender.delta({ ...model([]), ingresses: [] })));
  assert.deepEqual([gone.servers, gone.ingresses], [[], []]);
});

test('a TLS model made anew of the held entries is kept; a changed entry travels alone, a changed key with its fields', () => {
  const sender = new ModelSender();
  const receiver = new ModelReceiver();
  const hosts = Array.from({ length: 50 }, (_, i) => ({ host: `h${i}.test`, certificate: 'c1' }));
  const key = (v: string) => ({ id: 'c1', key: new Sensitive(v) });
  const tls = (h: object[], k: object, ingresses: object = { 'a/one': { hsts: true } }) => ({ certificates: [k], hosts: h, servers: [], ingresses }) as unknown as Model['tls'];
  const k1 = key('first key');
  const first = receiver.apply(cross(sender.delta({ ...model([]), tls: tls(hosts, k1) })));
  // the splice's way: new arrays and records around the same entries, and an entry rebuilt with equal content
  const again = tls([...hosts.slice(0, 10), { host: 'h10.test', certificate: 'c1' }, ...hosts.slice(11)], { ...k1 });
  const d1 = sender.delta({ ...model([]), tls: again });
  assert.deepEqual(d1.kept, ['tls'], 'equal content: not sent');
  assert.equal(receiver.apply(cross(d1)).tls, first.tls, 'the TLS model held, the very object');
  // one host's certificate changes: that host alone travels (docs/adr/0056)
  const changedHost = tls([...hosts.slice(0, 49), { host: 'h49.test', certificate: 'c2' }], k1);
  const d2 = sender.delta({ ...model([]), tls: changedHost });
  assert.deepEqual(Object.keys(d2.rest), [], 'the TLS fields besides its lists did not change');
  assert.deepEqual([d2.tlsLists.hosts.values, d2.tlsLists.certificates.values.length], [[{ host: 'h49.test', certificate: 'c2' }], 0]);
  const second = receiver.apply(cross(d2));
  assert.deepEqual(second.tls, changedHost);
  assert.notEqual(second.tls, first.tls);
  assert.equal(second.tls.hosts[3], first.tls.hosts[3], 'an entry kept is the object the receiver held');
  // only a secret's value changes, in an object of the same shape: seen through its digest, that certificate travels
  const d3 = sender.delta({ ...model([]), tls: tls([...hosts.slice(0, 49), { host: 'h49.test', certificate: 'c2' }], key('second key')) });
  assert.deepEqual([Object.keys(d3.rest), d3.tlsLists.certificates.values.length, d3.tlsLists.hosts.values.length], [[], 1, 0]);
  assert.equal((receiver.apply(cross(d3)).tls.certificates[0] as unknown as { key: Sensitive }).key.reveal(), 'second key');
  // a host gone (a shorter list) is a change; so is a field besides the lists
  const d4 = sender.delta({ ...model([]), tls: tls(hosts.slice(1), k1, { 'a/one': { hsts: false } }) });
  assert.deepEqual(Object.keys(d4.rest), ['tls']);
  const fourth = receiver.apply(cross(d4));
  assert.deepEqual(fourth.tls, tls(hosts.slice(1), k1, { 'a/one': { hsts: false } }));
});
