// The delta bodies pushed to Lua (backends, route table): what changed or is new is set, what is gone is named, and
// nothing when both are the same; the route table's catch-all ('_') is the default, never a host removed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { backendsDelta } from '../../src/render/lua-payload.js';
import { routesDelta } from '../../src/render/route-push.js';

const map = (entries: Record<string, string>): Map<string, string> => new Map(Object.entries(entries));

test('backends: set the changed and new ones, remove the gone ones, nothing for the same', () => {
  const running = map({ a: '{"name":"a"}', b: '{"name":"b"}', c: '{"name":"c"}' });
  assert.equal(backendsDelta(running, map({ a: '{"name":"a"}', b: '{"name":"b"}', c: '{"name":"c"}' })), undefined);
  const d = backendsDelta(running, map({ a: '{"name":"a","x":1}', c: '{"name":"c"}', d: '{"name":"d"}' }));
  assert.deepEqual([d?.set, d?.remove], [['a', 'd'], ['b']]);
  assert.deepEqual(JSON.parse(d?.body ?? ''), { set: [{ name: 'a', x: 1 }, { name: 'd' }], remove: ['b'] });
  const added = backendsDelta(running, map({ a: '{"name":"a"}', b: '{"name":"b"}', c: '{"name":"c"}', e: '{"name":"e"}' }));
  assert.deepEqual([added?.set, added?.remove], [['e'], []]);
});

test('route table: hosts set and removed (null), the catch-all as the default and never removed', () => {
  const held = map({ _: '{"f":1}', 'a.test': '{"r":1}', 'b.test': '{"r":2}' });
  assert.equal(routesDelta(held, map({ _: '{"f":1}', 'a.test': '{"r":1}', 'b.test': '{"r":2}' })), undefined);
  const d = routesDelta(held, map({ _: '{"f":2}', 'a.test': '{"r":1}', 'c.test': '{"r":3}' }));
  assert.deepEqual([d?.changed, d?.removed], [['_', 'c.test'], ['b.test']]);
  assert.deepEqual(JSON.parse(d?.body ?? ''), { hosts: { 'c.test': { r: 3 }, 'b.test': null }, default: { f: 2 } });
  const noFallback = routesDelta(held, map({ 'a.test': '{"r":1}', 'b.test': '{"r":2}' }));
  assert.deepEqual([noFallback?.changed, noFallback?.removed], [undefined, undefined], 'the catch-all gone is not a host removed');
});
