// sortByAge (src/model/age-sort.ts) parses each creationTimestamp once; its order must be the comparators' own:
// byAge for Ingresses and byClaimAge across kinds, with equal timestamps, unparseable ones and missing ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sortByAge } from '../../src/model/age-sort.js';
import { byAge, ingressAgeKey } from '../../src/model/builder.js';
import { byClaimAge, claimAgeKey } from '../../src/model/hosts.js';
import type { ObjectRef } from '../../src/model/types.js';
import { ingress } from '../support/objects.js';

/** A small deterministic PRNG, so a failure names the same input every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a * 1664525 + 1013904223) >>> 0;
    return a / 4294967296;
  };
}

/** Timestamps that collide, parse to the same instant from different texts, do not parse, or are absent. */
const STAMPS = ['2026-01-01T00:00:00Z', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:01Z', '2025-12-31T23:59:59Z', 'not a time', 'also bad', undefined];
const NAMES = ['a', 'B', 'b', 'é', 'a-1', 'a10', 'a9', 'Z'];
const KINDS: ObjectRef['kind'][] = ['Ingress', 'HTTPRoute', 'GRPCRoute'];

test('sortByAge orders Ingresses as sorting with byAge does', () => {
  const r = rng(7);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  for (let round = 0; round < 50; round += 1) {
    const ings = Array.from({ length: 40 }, (_, i) => {
      const created = pick(STAMPS);
      return ingress(`${pick(NAMES)}-${i % 3}`, { namespace: pick(NAMES).toLowerCase(), host: 'h.test', ...(created === undefined ? {} : { created }) });
    });
    if (round % 2 === 1) for (const ing of ings) delete (ing.metadata as { creationTimestamp?: string }).creationTimestamp;
    const want = [...ings].sort(byAge);
    assert.deepEqual(sortByAge(ings, ingressAgeKey), want, `round ${round}`);
  }
});

test('sortByAge orders claims of several kinds as sorting with byClaimAge does, and leaves its input as it was', () => {
  const r = rng(11);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)] as T;
  for (let round = 0; round < 50; round += 1) {
    const claims = Array.from({ length: 40 }, () => ({ ref: { kind: pick(KINDS), namespace: pick(NAMES), name: pick(NAMES) }, created: pick(STAMPS), hosts: [] }));
    const before = [...claims];
    const want = [...claims].sort(byClaimAge);
    assert.deepEqual(sortByAge(claims, claimAgeKey), want, `round ${round}`);
    assert.deepEqual(claims, before);
  }
});
