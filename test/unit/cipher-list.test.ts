// cipher-list.ts against OpenSSL itself (`openssl ciphers`, the library nginx links): a list the model accepts is
// one OpenSSL accepts, over ingress-nginx's lists, hostile ones and generated ones.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cipherList } from '../../src/annotations/cipher-list.js';

/** True when OpenSSL makes a list with at least one TLS 1.2-or-older cipher of `s`. */
function openssl(s: string): boolean {
  try {
    const out = execFileSync('openssl', ['ciphers', '--', s], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'], timeout: 10_000 });
    return out
      .trim()
      .split(':')
      .some((n) => !n.startsWith('TLS_'));
  } catch {
    return false;
  }
}

const WORDS = ['ALL', 'HIGH', 'AES', 'aNULL', 'eNULL', 'DEFAULT', 'RSA', 'ECDHE', 'CHACHA20', 'ECDHE-ECDSA-AES128-SHA', 'FOO', '404', 'EXPORT56', 'SSLv2'];
const MORE = ['TLSv1.2', 'COMPLEMENTOFDEFAULT', 'MEDIUM', 'RC4', 'SHA1', 'AESGCM', 'kRSA', 'PSK', 'CAMELLIA', 'AES_X', 'TLS_AES_128_GCM_SHA256', 'X=1', 'a.b'];
const OPS = ['', '', '!', '-', '+'];

/** Lists of 1-4 items, each an operator and a word or two joined by +, from a fixed seed. */
function generated(count: number): string[] {
  const words = [...WORDS, ...MORE];
  let seed = 7;
  const rnd = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const out: string[] = [];
  for (let i = 0; i < count; i += 1) {
    const items: string[] = [];
    for (let k = 0, n = 1 + rnd(4); k < n; k += 1) {
      const w = `${words[rnd(words.length)] ?? ''}${rnd(5) === 0 ? `+${words[rnd(words.length)] ?? ''}` : ''}`;
      items.push(`${OPS[rnd(OPS.length)] ?? ''}${w}`);
    }
    out.push(items.join(':'));
  }
  return out;
}

void test("ingress-nginx's lists are taken, and lists OpenSSL refuses are refused", () => {
  for (const ok of ['ALL:!aNULL:!EXPORT56:RC4+RSA:+HIGH:+MEDIUM:+LOW:+SSLv2:+EXP', 'ALL:!aNULL:!EXPORT56:RC4+RSA@STRENGTH:+HIGH@SECLEVEL=0:+MEDIUM:+LOW:+SSLv2:+EXP', 'HIGH:!AES', 'DEFAULT']) {
    assert.equal(cipherList(ok).ok, true, ok);
  }
  for (const no of ['-404', 'ALL:!ALL', '!HIGH:HIGH', 'RC4', 'AES_X', 'CHACHA20+DEFAULT', '@STRENGTH', 'HIGH::AES', 'HIGH;AES', 'a b']) {
    assert.equal(cipherList(no).ok, false, no);
  }
});

void test('every list the model accepts, OpenSSL accepts', () => {
  const wrong: string[] = [];
  let taken = 0;
  for (const s of generated(300)) {
    if (!cipherList(s).ok) continue;
    taken += 1;
    if (!openssl(s)) wrong.push(s);
  }
  assert.deepEqual(wrong, []);
  assert.ok(taken >= 50, `the corpus holds lists that are taken (${taken})`);
});
