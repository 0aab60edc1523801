// The collections the build worker and the main thread run after a sync (worker/collect.ts): they collect, and
// they leave no gc() behind in contexts made later.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
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

/**
 * A thread that grows its young generation in a burst, is quiet for `quietMs`, and settles: the young generation's
 * committed bytes after the burst and after settle(). In a process of its own: the test runner's own work in this
 * one counts as the thread's allocation.
 */
async function burstThenSettle(quietMs: number): Promise<{ grown: number; settled: number }> {
  const script = `
    import { getHeapSpaceStatistics } from 'node:v8';
    import { settle } from ${JSON.stringify(new URL('../../src/worker/collect.js', import.meta.url).href)};
    const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size;
    let held = [];
    for (let i = 0; i < 400000; i += 1) {
      if (i % 50000 === 0) held = [...held.slice(-3), []];
      held[held.length - 1].push({ i, s: 'x' + i });
    }
    held = [];
    const grown = young();
    setTimeout(() => {
      clearTimeout(settle(false));
      console.log(JSON.stringify({ grown, settled: young() }));
    }, ${quietMs});`;
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script]);
  return JSON.parse(stdout) as { grown: number; settled: number };
}

test('settle gives back the young generation a burst grew, once the thread was quiet for 5 s', async () => {
  const { grown, settled } = await burstThenSettle(6_000);
  // a burst whose objects live a while, as a sync's do: V8 grows the young generation to 32 MiB
  assert.ok(grown >= 8 * 2 ** 20, `the burst grew the young generation (${grown} bytes)`);
  assert.ok(settled <= grown / 4, `settle shrank it: ${grown} -> ${settled} bytes`);
});
