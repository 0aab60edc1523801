// render/overlay-map.ts: a map made of another and a few changes answers as the copy with those changes would, over
// generations of changes (flattened on the way), and the changes are noted for the push that follows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OverlayMap } from '../../src/render/overlay-map.js';
import { entryChanges } from '../../src/render/entry-changes.js';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** A small deterministic generator (no Math.random: a failure repeats). */
function lcg(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    return x / 2 ** 31;
  };
}

test('generations of overlays answer as copies with the same changes would, and note exactly what changed', () => {
  const random = lcg(7);
  let copy = new Map<string, string>(Array.from({ length: 300 }, (_, i) => [`k${i}`, `v${i}`]));
  let map: ReadonlyMap<string, string> = new Map(copy);
  let flattened = 0;
  for (let gen = 0; gen < 60; gen += 1) {
    const removed = [...new Set(Array.from({ length: Math.floor(random() * 4) }, () => `k${Math.floor(random() * 320)}`))];
    const setKeys = [...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, () => `k${Math.floor(random() * 340)}`))];
    const set = setKeys.map((k) => [k, `${k}@${gen}`] as const);
    const next = new Map(copy);
    for (const k of removed) next.delete(k);
    for (const [k, v] of set) next.set(k, v);
    const made: ReadonlyMap<string, string> = OverlayMap.from(map, set, removed);
    if (!(made instanceof OverlayMap)) flattened += 1;
    assert.equal(made.size, next.size, `generation ${gen}: size`);
    assert.deepEqual(new Map([...made].sort()), new Map([...next].sort()), `generation ${gen}: entries`);
    for (const k of ['k0', 'k150', 'k299', 'k310', 'k339', ...removed, ...setKeys]) {
      assert.equal(made.get(k), next.get(k), `generation ${gen}: get ${k}`);
      assert.equal(made.has(k), next.has(k), `generation ${gen}: has ${k}`);
    }
    assert.deepEqual(
      [...made.keys()],
      [...made.entries()].map(([k]) => k),
    );
    assert.deepEqual(
      [...made.values()],
      Array.from(made.keys(), (k) => made.get(k)),
    );
    // the noted changes are what a walk of both finds (a copy is not noted)
    const noted = entryChanges(map, made);
    const walked = entryChanges(map, new Map(made));
    assert.deepEqual(
      { changed: [...noted.changed].sort(), removed: [...noted.removed].sort() },
      { changed: [...walked.changed].sort(), removed: [...walked.removed].sort() },
      `generation ${gen}: noted`,
    );
    copy = next;
    map = made;
  }
  assert.ok(flattened >= 3, `the chain was flattened along the way (${flattened} times)`);
});

test('a changed key keeps its place in the order; new keys come after the others', () => {
  const base = new Map([
    ['a', '1'],
    ['b', '2'],
    ['c', '3'],
  ]);
  const made = OverlayMap.from(
    base,
    [
      ['b', '20'],
      ['z', '26'],
    ],
    ['a'],
  );
  assert.deepEqual(
    [...made],
    [
      ['b', '20'],
      ['c', '3'],
      ['z', '26'],
    ],
  );
  const seen: string[] = [];
  made.forEach((v, k) => seen.push(`${k}=${v}`));
  assert.deepEqual(seen, ['b=20', 'c=3', 'z=26']);
});

test('generations before the last flattening are not kept alive (by the overlays or by the notes of changes)', async () => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  // made in a function of its own: no variable of the test holds the first generations
  const { refs, map } = ((): { refs: WeakRef<ReadonlyMap<string, string>>[]; map: ReadonlyMap<string, string> } => {
    let m: ReadonlyMap<string, string> = new Map(Array.from({ length: 100 }, (_, i) => [`k${i}`, `v${i}`] as const));
    const made = [new WeakRef(m)];
    for (let gen = 0; gen < 60; gen += 1) {
      m = OverlayMap.from(m, [[`k${gen % 100}`, `v${gen}`]], []);
      made.push(new WeakRef(m));
    }
    return { refs: made, map: m };
  })();
  // WeakRefs hold their targets until the job that made them ends
  await new Promise((r) => setImmediate(r));
  gc();
  await new Promise((r) => setImmediate(r));
  const alive = refs.filter((r) => r.deref() !== undefined).length;
  assert.ok(alive <= 20, `${alive} of ${refs.length} generations still alive (the last chain is at most 17)`);
  assert.equal(refs[0]?.deref(), undefined, 'the first map is gone');
  assert.equal(map.get('k59'), 'v59');
});

test('maps a few generations apart: their changes come from the notes between them, without walking either map', () => {
  /** A map that counts the walks over it. */
  class Counted extends Map<string, string> {
    walks = 0;
    override entries(): MapIterator<[string, string]> {
      this.walks += 1;
      return super.entries();
    }
    override keys(): MapIterator<string> {
      this.walks += 1;
      return super.keys();
    }
    override [Symbol.iterator](): MapIterator<[string, string]> {
      return this.entries();
    }
  }
  const held = new Counted(Array.from({ length: 200 }, (_, i) => [`k${i}`, `v${i}`]));
  const one = OverlayMap.from(
    held,
    [
      ['k1', 'one'],
      ['new', 'one'],
    ],
    ['k2'],
  );
  const two = OverlayMap.from(
    one,
    [
      ['k2', 'back'],
      ['k3', 'two'],
    ],
    ['new', 'k4'],
  );
  const three = OverlayMap.from(two, [['k1', 'v1']], []);
  held.walks = 0;
  const got = entryChanges(held, three);
  assert.equal(held.walks, 0, 'the held map was not walked');
  // k1 came back to its held value and `new` came and went: neither is a change; k2 is set again, other than held
  assert.deepEqual({ changed: [...got.changed].sort(), removed: got.removed }, { changed: ['k2', 'k3'], removed: ['k4'] });
  const walked = entryChanges(new Map(held), new Map(three));
  assert.deepEqual({ changed: [...got.changed].sort(), removed: got.removed }, { changed: [...walked.changed].sort(), removed: walked.removed }, 'what a walk of copies finds');
});
