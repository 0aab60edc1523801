// model-wire.ts: what a build's model carries back to the main thread, and what the main thread rebuilds from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ModelReceiver, ModelSender } from '../../src/worker/model-wire.js';
import { Sensitive } from '../../src/model/tls-types.js';
import type { Model, Server } from '../../src/model/types.js';

const EMPTY_TLS = { certificates: [], hosts: [] } as unknown as Model['tls']; // only carried, never read here
// Extra fields stand for settings: the wire keys a server by its whole content, whatever its fields.
const server = (host: string, extra: Record<string, unknown> = {}): Server => ({ host, locations: [], ...extra });
const model = (servers: Server[]): Model => ({ servers, upstreams: [], ingresses: [], problems: [], tls: EMPTY_TLS });
const values = (m: Model, s: ModelSender) => s.delta(m).lists.servers.values.length;

test('only what the receiver lacks travels; a forgotten receiver gets everything again', () => {
  const sender = new ModelSender();
  const a = model([server('a.test'), server('b.test')]);
  assert.equal(values(a, sender), 2);
  assert.equal(values(a, sender), 0, 'the same model again: keys only');
  assert.equal(values(model([server('a.test'), server('c.test')]), sender), 1);
  assert.equal(values(model([server('a.test', { secret: new Sensitive('one') })]), sender), 1);
  assert.equal(values(model([server('a.test', { secret: new Sensitive('two') })]), sender), 1, 'a changed secret is a changed server');
  sender.forget();
  assert.equal(values(model([server('a.test', { secret: new Sensitive('two') })]), sender), 1);
});

test('the receiver rebuilds each model in order, keeping held objects, and refuses a part it never got', () => {
  const sender = new ModelSender();
  const receiver = new ModelReceiver();
  const first = receiver.apply(structuredClone(sender.delta(model([server('a.test'), server('b.test')]))));
  const second = receiver.apply(structuredClone(sender.delta(model([server('a.test'), server('c.test')]))));
  assert.deepEqual(
    second.servers.map((s) => s.host),
    ['a.test', 'c.test'],
  );
  assert.equal(second.servers[0], first.servers[0]);
  const lost = new ModelReceiver();
  assert.throws(() => lost.apply(structuredClone(sender.delta(model([server('a.test'), server('d.test')])))), /model delta: .* never sent/);
});

test('of the rest, only the fields that changed travel; the receiver keeps the others as it holds them', () => {
  const sender = new ModelSender();
  const receiver = new ModelReceiver();
  const ingresses = [{ kind: 'Ingress', namespace: 'a', name: 'one' }];
  const first = receiver.apply(structuredClone(sender.delta({ ...model([server('a.test')]), ingresses })));
  const d = sender.delta({ ...model([server('a.test')]), ingresses: [...ingresses, { kind: 'Ingress', namespace: 'a', name: 'two' }] });
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
