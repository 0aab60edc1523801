// model/list-fold.ts: the map gathered from a list's items, kept across lists by their shared ends, is the map a walk
// of the whole list gives (fast-check, fixed seed): items kept, added, removed and replaced anywhere, keys given by
// several items (with the same value, as ListFold asks), the same list asked twice.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { commonEnds, ListFold } from '../../src/model/list-fold.js';

interface Item {
  readonly keys: readonly string[];
  readonly value: number;
}

/** A key's value is the key's own (ListFold: items that give a key give the same value); `value` tells items apart only. */
const entriesOf = (item: Item): (readonly [string, number])[] => item.keys.map((k) => [k, k.charCodeAt(0) * 1000 + k.length] as const);

/** What a walk of the whole list gives: each key's latest value and how many items give it. */
function walked(list: readonly Item[]): { values: Map<string, number>; counts: Map<string, number> } {
  const values = new Map<string, number>();
  const counts = new Map<string, number>();
  for (const item of list) {
    for (const [k, v] of entriesOf(item)) {
      values.set(k, v);
      counts.set(k, (counts.get(k) ?? 0) + 1);
    }
  }
  return { values, counts };
}

const arbItem = fc.record({ keys: fc.uniqueArray(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), { maxLength: 3 }), value: fc.constant(0) });
/** An edit of a list: keep it, insert, remove or replace items at a place (by fraction of its length). */
const arbEdit = fc.record({ op: fc.constantFrom('same', 'insert', 'remove', 'replace', 'new'), at: fc.double({ min: 0, max: 1, noNaN: true }), items: fc.array(arbItem, { maxLength: 4 }) });

void describe('ListFold', () => {
  it('gives what a walk of the whole list gives, after every edit (fast-check, seed 50, 300 sequences)', () => {
    fc.assert(
      fc.property(fc.array(arbItem, { maxLength: 12 }), fc.array(arbEdit, { minLength: 1, maxLength: 8 }), (start, edits) => {
        let n = 0;
        // every item its own object
        const fresh = (i: Item): Item => ({ keys: i.keys, value: (n += 1) });
        const fold = new ListFold(entriesOf);
        let list = start.map(fresh);
        for (const e of [{ op: 'same', at: 0, items: [] } as const, ...edits]) {
          const at = Math.floor(e.at * list.length);
          if (e.op === 'insert') list = [...list.slice(0, at), ...e.items.map(fresh), ...list.slice(at)];
          else if (e.op === 'remove') list = [...list.slice(0, at), ...list.slice(at + e.items.length)];
          else if (e.op === 'replace') list = [...list.slice(0, at), ...e.items.map(fresh), ...list.slice(at + e.items.length)];
          else if (e.op === 'new') list = [...list];
          const got = fold.of(list);
          const want = walked(list);
          assert.deepEqual(new Map([...got].sort()), new Map([...want.values].sort()));
          for (const k of ['a', 'b', 'c', 'd', 'e', 'f']) assert.equal(fold.count(k), want.counts.get(k) ?? 0, `count of ${k}`);
        }
      }),
      { seed: 50, numRuns: 300 },
    );
  });

  it('walks only what changed between the shared ends', () => {
    let calls = 0;
    const fold = new ListFold((item: Item) => {
      calls += 1;
      return entriesOf(item);
    });
    const list = Array.from({ length: 1000 }, (_, i) => ({ keys: [`k${i}`], value: i }));
    fold.of(list);
    assert.equal(calls, 1000);
    calls = 0;
    const next = [...list.slice(0, 500), { keys: ['x500'], value: 500 }, ...list.slice(501)];
    const got = fold.of(next);
    assert.ok(got.has('x500') && !got.has('k500') && got.size === 1000);
    assert.equal(calls, 2, 'the one item left and the one that came');
    assert.deepEqual(commonEnds(list, next), { head: 500, tail: 499 });
  });
});
