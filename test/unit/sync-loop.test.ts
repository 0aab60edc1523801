// The coalescing sync loop: bursts of marks become a few syncs, the last mark is always applied, hold/release.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SyncLoop } from '../../src/controller/sync-loop.js';
import { createLogger } from '../../src/log.js';

const log = createLogger('silent');
const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A loop whose sync reads `state` (as the real one reads the store) and takes `syncMs`. */
function harness(minIntervalMs: number, syncMs: number) {
  const state = { value: 0 };
  const applied: number[] = [];
  const causes: Record<string, number>[] = [];
  const loop = new SyncLoop(
    minIntervalMs,
    async (c) => {
      const seen = state.value;
      causes.push(Object.fromEntries(c));
      await tick(syncMs);
      applied.push(seen);
    },
    log,
  );
  return { state, applied, causes, loop };
}

void test('1,000 marks in a burst become a few syncs, and the last value is applied', async (t) => {
  const h = harness(50, 5);
  t.after(() => {
    h.loop.stop();
  });
  for (let i = 1; i <= 1000; i++) {
    h.state.value = i;
    h.loop.mark(i % 2 ? 'Ingress' : 'EndpointSlice');
    if (i % 100 === 0) await tick(10); // spread over ~100 ms, as a watch stream delivers it
  }
  await tick(5);
  await h.loop.idle();
  assert.ok(h.applied.length >= 1 && h.applied.length <= 6, `syncs: ${h.applied.length}`);
  assert.equal(h.applied.at(-1), 1000);
  const total = h.causes.reduce((n, c) => n + Object.values(c).reduce((a, b) => a + b, 0), 0);
  assert.equal(total, 1000, 'every mark is counted in exactly one sync');
});

void test('syncs start at least the minimum interval apart', async (t) => {
  const starts: number[] = [];
  const loop = new SyncLoop(
    40,
    async () => {
      starts.push(Date.now());
      await tick(1);
    },
    log,
  );
  t.after(() => {
    loop.stop();
  });
  for (let i = 0; i < 20; i++) {
    loop.mark('x');
    await tick(10);
  }
  await loop.idle();
  for (let i = 1; i < starts.length; i++) assert.ok(starts[i]! - starts[i - 1]! >= 38, `gap ${starts[i]! - starts[i - 1]!} ms`);
  assert.ok(starts.length >= 3 && starts.length <= 7, `syncs: ${starts.length}`);
});

void test('a mark during a running sync schedules exactly one more', async (t) => {
  const h = harness(10, 30);
  t.after(() => {
    h.loop.stop();
  });
  h.state.value = 1;
  h.loop.mark('a');
  await tick(15); // the first sync is running
  for (let i = 2; i <= 50; i++) {
    h.state.value = i;
    h.loop.mark('b');
  }
  await tick(1);
  await h.loop.idle();
  assert.deepEqual(h.applied, [1, 50]);
  assert.deepEqual(h.causes, [{ a: 1 }, { b: 49 }]);
});

void test('held marks wait for release() and then become one sync', async (t) => {
  const h = harness(10, 1);
  t.after(() => {
    h.loop.stop();
  });
  h.loop.hold();
  for (const k of ['Ingress', 'Service', 'Service']) h.loop.mark(k);
  await tick(40);
  assert.deepEqual(h.applied, []);
  h.state.value = 7;
  h.loop.release();
  await tick(1);
  await h.loop.idle();
  assert.deepEqual(h.applied, [7]);
  assert.deepEqual(h.causes, [{ Ingress: 1, Service: 2 }]);
});
