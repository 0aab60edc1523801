// What crosses the build worker's boundary (worker/wire.ts): Sensitive values survive the structured clone, and
// packing copies only the objects on the way to one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pack, unpack } from '../../src/worker/wire.js';
import { Sensitive } from '../../src/model/tls-types.js';

test('Sensitive values anywhere (object, array, Map, frozen) cross a structured clone; the rest is shared, not copied', () => {
  const plain = Object.freeze({ servers: [{ host: 'a.test', locations: [{ path: '/' }] }] });
  const value = Object.freeze({
    plain,
    tls: Object.freeze({ certificates: Object.freeze([Object.freeze({ id: 'c1', pem: new Sensitive('KEY-1') })]) }),
    byName: new Map<string, unknown>([
      ['auth', { users: new Sensitive('alice:hash') }],
      ['none', { n: 1 }],
    ]),
  });
  const packed = pack(value);
  const copy = packed.value as typeof value;
  assert.equal(copy.plain, plain, 'a subtree without Sensitive values is not copied');
  assert.notEqual(copy.tls, value.tls);
  assert.equal(packed.at.length, 2);
  const back = unpack<typeof value>(structuredClone(packed));
  const pem = back.tls.certificates[0]?.pem;
  assert.ok(pem instanceof Sensitive);
  assert.equal(pem.reveal(), 'KEY-1');
  const users = (back.byName.get('auth') as { users: Sensitive }).users;
  assert.equal(users.reveal(), 'alice:hash');
  assert.deepEqual(back.plain, plain);
  assert.deepEqual(back.byName.get('none'), { n: 1 });
  // The original is untouched (frozen objects are copied, not written).
  assert.ok(value.tls.certificates[0]?.pem instanceof Sensitive);
});

test('only the Sensitive values packed are rebuilt: an object that looks tagged (an annotation named like the tag) stays plain', () => {
  const annotations = { __portico_sensitive__: 'not a secret' };
  const value = { annotations, key: new Sensitive('KEY'), list: [new Sensitive('A'), 'b'] };
  const back = unpack<{ annotations: Record<string, string>; key: Sensitive; list: unknown[] }>(structuredClone(pack(value)));
  assert.deepEqual(back.annotations, annotations);
  assert.ok(!((back.annotations as unknown) instanceof Sensitive));
  assert.equal(back.key.reveal(), 'KEY');
  assert.ok(back.list[0] instanceof Sensitive);
  assert.equal(back.list[1], 'b');
  // In the same thread too (no clone between): the sender's value keeps its own Sensitive objects.
  const same = unpack<typeof value>(pack(value));
  assert.equal(same.key.reveal(), 'KEY');
  assert.ok(value.key instanceof Sensitive);
  assert.equal(unpack<Sensitive>(structuredClone(pack(new Sensitive('root')))).reveal(), 'root');
});
