// The Ingress index of webhook/neighbours.ts kept from one list to the next by their changes (docs/adr/0051): after
// any sequence of lists (Ingresses replaced in place, added, removed, moved to the extra ones), what it answers by
// namespace and about Ingresses that reach everywhere is what a walk of the whole lists answers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import type { Ingress } from '../../src/model/input.js';
import { indexedIn, reachesAnywhere, reachesEverywhere } from '../../src/webhook/neighbours.js';
import { ingress } from '../support/objects.js';

const make = (n: number, ns: string, hostless: boolean): Ingress =>
  ingress(`i${n}`, { namespace: ns, ...(hostless ? {} : { host: `h${n}.test` }), paths: [{ path: '/', type: 'Prefix', service: 's' }] });

const step = fc.record({ op: fc.constantFrom('replace', 'add', 'remove', 'extra'), at: fc.nat(), ns: fc.constantFrom('a', 'b', 'c'), hostless: fc.integer({ min: 0, max: 9 }).map((x) => x === 0) });

test('the index answers as a walk of the lists after every change', () => {
  fc.assert(
    fc.property(fc.array(step, { minLength: 1, maxLength: 40 }), (steps) => {
      let n = 0;
      let list: Ingress[] = Array.from({ length: 12 }, () => make(n++, ['a', 'b', 'c'][n % 3] ?? 'a', false));
      let extra: Ingress[] = [];
      for (const s of steps) {
        const k = list.length === 0 ? 0 : s.at % list.length;
        if (s.op === 'replace' && list.length > 0) list = list.map((x, i) => (i === k ? make(n++, s.ns, s.hostless) : x));
        else if (s.op === 'add') list = [...list, make(n++, s.ns, s.hostless)];
        else if (s.op === 'remove') list = list.filter((_, i) => i !== k);
        else if (list.length > 0) {
          // an Ingress leaves the list but stays among the extra ones (a removed Ingress the last build served)
          extra = [list[k]!];
          list = list.filter((_, i) => i !== k);
        }
        if (s.op !== 'extra') extra = extra.filter(() => s.at % 2 === 0);
        const all = [...list, ...extra];
        for (const ns of [['a'], ['b', 'c'], []]) {
          assert.deepEqual(new Set(indexedIn(list, extra, ns)), new Set(all.filter((i) => ns.includes(i.metadata?.namespace ?? ''))), `namespaces ${ns.join(',')}`);
        }
        assert.equal(reachesAnywhere(list, extra), all.some(reachesEverywhere));
      }
    }),
    { numRuns: 150 },
  );
});
