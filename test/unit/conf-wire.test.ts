// conf-wire.ts: what a build's nginx.conf carries back to the main thread, and what the main thread rebuilds from it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfReceiver, ConfSender } from '../../src/worker/conf-wire.js';
import { routesDelta, routesText, withRoutes } from '../../src/render/route-push.js';
import type { RenderedConf } from '../../src/render/nginx-conf.js';

const conf = (text: string, hosts?: Record<string, string>): RenderedConf => {
  const base = { text, hash: `hash of ${text}`, shutdownTimeoutSeconds: 240, serverLines: [{ host: '_', first: 1, last: 2, locations: [] }] };
  return hosts === undefined ? base : withRoutes(base, new Map(Object.entries(hosts)), { router: `router of ${text}`, profiles: [`@portico_profile_${text.length}`] });
};
const cross = <T>(v: T): T => structuredClone(v);

test('the text crosses only when its hash changed; the route table as the hosts that changed', () => {
  const sender = new ConfSender();
  const receiver = new ConfReceiver();
  const first = sender.delta(conf('one', { _: '{"d":1}', 'a.test': '{"a":1}', 'b.test': '{"b":1}' }));
  assert.equal(first.text, 'one');
  assert.equal(first.routes?.set.length, 3);
  const a = receiver.apply(cross(first));
  assert.equal(a.routes, '{"hosts":{"a.test":{"a":1},"b.test":{"b":1}},"default":{"d":1}}');

  const second = sender.delta(conf('one', { _: '{"d":1}', 'a.test': '{"a":2}', 'c.test': '{"c":1}' }));
  assert.equal(second.text, undefined, 'the same nginx.conf: not sent again');
  assert.deepEqual(second.routes, {
    set: [
      ['a.test', '{"a":2}'],
      ['c.test', '{"c":1}'],
    ],
    removed: ['b.test'],
  });
  const b = receiver.apply(cross(second));
  assert.equal(b.text, 'one');
  assert.deepEqual(Object.fromEntries(b.routeHosts ?? []), { _: '{"d":1}', 'a.test': '{"a":2}', 'c.test': '{"c":1}' });
  assert.deepEqual(JSON.parse(b.routes ?? ''), { hosts: { 'a.test': { a: 2 }, 'c.test': { c: 1 } }, default: { d: 1 } });
  assert.notEqual(b.routesId, a.routesId, 'a changed table has a new id');
  assert.deepEqual(b.routeGate, { router: 'router of one', profiles: ['@portico_profile_3'] }, 'the gate stays with the text it came with');

  const third = receiver.apply(cross(sender.delta(conf('two', { _: '{"d":1}', 'a.test': '{"a":2}', 'c.test': '{"c":1}' }))));
  assert.equal(third.text, 'two');
  assert.equal(third.routesId, b.routesId, 'the same table keeps its id');
  assert.equal(third.routeHosts, b.routeHosts);
  assert.equal(third.routeGate?.router, 'router of two', 'a new text brings its gate');

  const plain = receiver.apply(cross(sender.delta(conf('three'))));
  assert.equal(plain.routeHosts, undefined);
  assert.equal(plain.routes, undefined);
});

test('a receiver that lost the last delta refuses the next; after forget() the sender sends everything', () => {
  const sender = new ConfSender();
  sender.delta(conf('one', { _: '{}' }));
  assert.throws(() => new ConfReceiver().apply(cross(sender.delta(conf('one', { _: '{}' })))), /no nginx.conf text was ever sent/);
  sender.forget();
  const again = new ConfReceiver().apply(cross(sender.delta(conf('one', { _: '{}' }))));
  assert.equal(again.text, 'one');
  assert.equal(again.routes, routesText(new Map([['_', '{}']])));
});

test('the push to Lua after a delta names the same hosts as a pass over both tables would', () => {
  const sender = new ConfSender();
  const receiver = new ConfReceiver();
  const a = receiver.apply(cross(sender.delta(conf('one', { _: '{"d":1}', 'a.test': '{"a":1}', 'b.test': '{"b":1}', 'c.test': '{"c":1}' }))));
  // a.test changes, b.test goes, d.test comes, c.test is sent again unchanged (a worker that lost track sends it)
  const d = cross(sender.delta(conf('one', { _: '{"d":1}', 'a.test': '{"a":2}', 'c.test': '{"c":1}', 'd.test': '{"d":2}' })));
  const b = receiver.apply({ ...d, routes: { set: [...(d.routes?.set ?? []), ['c.test', '{"c":1}']], removed: d.routes?.removed ?? [] } });
  const held = a.routeHosts ?? new Map<string, string>();
  const now = b.routeHosts ?? new Map<string, string>();
  const noted = routesDelta(held, now);
  const walked = routesDelta(new Map(held), new Map(now)); // copies: made by nobody's delta, so both are walked
  assert.deepEqual({ changed: [...(noted?.changed ?? [])].sort(), removed: noted?.removed }, { changed: ['a.test', 'd.test'], removed: ['b.test'] });
  assert.deepEqual(JSON.parse(noted?.body ?? ''), JSON.parse(walked?.body ?? ''));
  // against a table other than the one it was made from, the note does not apply
  assert.deepEqual(routesDelta(new Map([['_', '{"d":1}']]), now)?.changed, ['a.test', 'c.test', 'd.test']);
});
