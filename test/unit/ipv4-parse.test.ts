// The endpoint address reader takes IPv4 exactly as the rule it states: four parts of 1-3 ASCII digits, each at most
// 255. Checked against that rule, written the plain way, on every short string of a small alphabet and on random ones.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseIp } from '../../src/model/targets.js';

/** The rule, as a reference: split on '.', four parts, each /^\d{1,3}$/ and <= 255; as 16 bytes, IPv4-mapped. */
function reference(s: string): number[] | undefined {
  const parts = s.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...parts.map(Number)];
}

/** parseIp of a string without ':' is the IPv4 reader alone (IPv6 needs a colon). */
const v4 = (s: string): readonly number[] | undefined => (s.includes(':') ? undefined : parseIp(s));

describe('IPv4 addresses', () => {
  it('agrees with the rule on named cases', () => {
    for (const s of ['10.0.0.1', '255.255.255.255', '256.1.1.1', '01.002.3.4', '1.2.3', '1.2.3.4.', '.1.2.3', '1..2.3', '1.2.3.4.5', '', '1.2.3.0004', '1.2.3.+4', '1.2.3.4 ', '١.2.3.4', '0.0.0.0']) {
      assert.deepEqual(v4(s), reference(s), JSON.stringify(s));
    }
  });

  it('agrees with the rule on 200,000 random strings of digits, dots and a few others', () => {
    const alphabet = '0123456789.........25 x-';
    let seed = 7;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed >>> 8;
    };
    let valid = 0;
    for (let n = 0; n < 200_000; n++) {
      let s = '';
      const length = next() % 18;
      for (let i = 0; i < length; i++) s += alphabet[next() % alphabet.length] ?? '';
      const want = reference(s);
      if (want !== undefined) valid += 1;
      assert.deepEqual(v4(s), want, JSON.stringify(s));
    }
    assert.ok(valid > 100, `the random strings held ${valid} valid addresses: too few to compare`);
  });
});
