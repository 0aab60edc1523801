// The collections the build worker and the main thread run after a sync (worker/collect.ts): they collect, and
// they leave no gc() behind in contexts made later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { runInNewContext } from 'node:vm';
import { collect } from '../../src/worker/collect.js';

/** A WeakRef to an object nothing else holds (made in its own function so no local keeps it). */
function garbage(): WeakRef<object> {
  return new WeakRef({ payload: Array.from({ length: 1000 }, (_, i) => ({ i })) });
}

test('collect collects what nothing holds', async () => {
  const ref = garbage();
  // a WeakRef's target is kept until the end of the current job: collect in a later one
  await new Promise((r) => setImmediate(r));
  await collect();
  assert.equal(ref.deref(), undefined);
});

test('contexts made after the collector was set up have no gc()', () => {
  assert.equal(runInNewContext('typeof gc'), 'undefined');
});
