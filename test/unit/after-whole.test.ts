// The build worker holds a whole build's collection and warm-up until the main thread applied it (worker/after-whole.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { AfterWhole } from '../../src/worker/after-whole.js';

function recorder(afterWord: number, atMost: number): { runs: boolean[]; after: AfterWhole } {
  const runs: boolean[] = [];
  return { runs, after: new AfterWhole((first) => runs.push(first), afterWord, atMost) };
}

test('held work runs once the main thread applied the build, not before', async () => {
  const { runs, after } = recorder(20, 5_000);
  after.hold(true);
  await sleep(60);
  assert.deepEqual(runs, [], 'nothing before the word');
  after.synced();
  await sleep(60);
  assert.deepEqual(runs, [true]);
  after.synced();
  await sleep(60);
  assert.deepEqual(runs, [true], 'once');
});

test('a build that comes first drops what the last one held', async () => {
  const { runs, after } = recorder(20, 5_000);
  after.hold(false);
  after.synced();
  after.drop();
  await sleep(60);
  assert.deepEqual(runs, []);
  after.hold(false);
  after.synced();
  await sleep(60);
  assert.deepEqual(runs, [false], 'the next build holds its own');
});

test('without the word (a sync that failed) the work runs after the longest wait', async () => {
  const { runs, after } = recorder(5_000, 40);
  after.hold(true);
  await sleep(120);
  assert.deepEqual(runs, [true]);
});
