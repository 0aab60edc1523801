// model/keys.ts localeOrder: the order String.prototype.localeCompare gives (upstreams and Ingresses are sorted by it
// in whole builds and in the incremental splice, which must agree to the element).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { localeOrder } from '../../src/model/keys.js';

test('localeOrder sorts as localeCompare does, case, digits, dashes and accents included', () => {
  const names = ['team-10-app-2-80', 'Team-1-app-80', 'team-1-app-80', 'team-2', 'team_2', 'Zeta', 'zeta', 'éclair', 'eclair', 'a-10', 'a-9', 'a9', 'A-9', '', 'ns/b', 'ns-b'];
  assert.deepEqual(
    [...names].sort(localeOrder),
    [...names].sort((a, b) => a.localeCompare(b)),
  );
  for (const a of names) for (const b of names) assert.equal(Math.sign(localeOrder(a, b)), Math.sign(a.localeCompare(b)), `${a} against ${b}`);
});
