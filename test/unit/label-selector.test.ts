// Local mode's --watch-namespace-selector: the string form of a Kubernetes label selector (src/sources/selector.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseLabelSelector } from '../../src/sources/selector.js';

const CASES: [string, Record<string, string>, boolean][] = [
  ['foo=bar', { foo: 'bar' }, true],
  ['foo=bar', { foo: 'baz' }, false],
  ['foo==bar', { foo: 'bar' }, true],
  ['foo!=bar', {}, true],
  ['foo!=bar', { foo: 'bar' }, false],
  ['foo', { foo: '' }, true],
  ['!foo', { foo: 'x' }, false],
  ['env in (a, b),tier', { env: 'b', tier: 'web' }, true],
  ['env in (a, b),tier', { env: 'b' }, false],
  ['env notin (a,b)', { env: 'c' }, true],
  ['env notin (a,b)', { env: 'a' }, false],
  ['example.com/team=x', { 'example.com/team': 'x' }, true],
];

void test('a label selector string selects as the API server does', () => {
  for (const [sel, labels, want] of CASES) assert.equal(parseLabelSelector(sel)(labels), want, `${sel} on ${JSON.stringify(labels)}`);
});

void test('a requirement it cannot read is an error naming the flag', () => {
  for (const bad of ['', 'foo=bar,', 'foo in a', 'a b', 'foo=b;r']) assert.throws(() => parseLabelSelector(bad), /--watch-namespace-selector: /, bad);
});
