// ssl-dh-param: the Diffie-Hellman parameters of a Secret (`dhparam.pem`), checked as nginx will read them, so a bad
// Secret is a Warning and never a configuration nginx -t refuses for everyone.
import { sha256 } from '../hash.js';
import type { Secret } from './input.js';
import type { ObjectRef } from './types.js';
import { findSecret, secretText, type Read } from './tls-secrets.js';

/** A DER length at `i`: [length, index after it], or undefined (at most 4 length bytes). */
function derLength(b: Uint8Array, i: number): [number, number] | undefined {
  const first = b[i];
  if (first === undefined) return undefined;
  if (first < 0x80) return [first, i + 1];
  const n = first & 0x7f;
  if (n === 0 || n > 4 || i + 1 + n > b.length) return undefined;
  let len = 0;
  for (let k = 0; k < n; k += 1) len = len * 256 + (b[i + 1 + k] ?? 0);
  return [len, i + 1 + n];
}

/** A positive DER INTEGER at `i`: its bit length and value bytes, and the index after it. */
function derInteger(b: Uint8Array, i: number): { bits: number; bytes: Uint8Array; next: number } | undefined {
  if (b[i] !== 0x02) return undefined;
  const l = derLength(b, i + 1);
  if (!l || l[0] === 0 || l[1] + l[0] > b.length) return undefined;
  let bytes = b.subarray(l[1], l[1] + l[0]);
  if ((bytes[0] ?? 0) & 0x80) return undefined;
  while (bytes.length > 1 && bytes[0] === 0) bytes = bytes.subarray(1);
  const top = bytes[0] ?? 0;
  return { bits: (bytes.length - 1) * 8 + (top === 0 ? 0 : Math.floor(Math.log2(top)) + 1), bytes, next: l[1] + l[0] };
}

/**
 * Reads `dhparam.pem` of the Secret: exactly one `DH PARAMETERS` block whose DER is SEQUENCE { INTEGER p, INTEGER g
 * [, INTEGER length] } and nothing more, p of 2048 to 8192 bits (OpenSSL 3 refuses smaller ones at its default level),
 * g from 2 to 255.
 */
export function readDhParam(secrets: readonly Secret[], ref: ObjectRef): Read<{ readonly pem: string; readonly digest: string; readonly bits: number }> {
  const secret = findSecret(secrets, ref);
  if (!secret) return { ok: false, reason: `Secret ${ref.namespace}/${ref.name} not found` };
  const text = secretText(secret, 'dhparam.pem');
  if (text === undefined) return { ok: false, reason: `Secret ${ref.namespace}/${ref.name} has no dhparam.pem` };
  const m = /^\s*-----BEGIN DH PARAMETERS-----\n([A-Za-z0-9+/=\n]{1,4096})-----END DH PARAMETERS-----\s*$/.exec(text);
  if (!m?.[1]) return { ok: false, reason: 'dhparam.pem is not one PEM block of DH PARAMETERS (openssl dhparam 2048)' };
  const der = Buffer.from(m[1].replace(/\n/g, ''), 'base64');
  const seq = der[0] === 0x30 ? derLength(der, 1) : undefined;
  const p = seq && seq[1] + seq[0] === der.length ? derInteger(der, seq[1]) : undefined;
  const g = p ? derInteger(der, p.next) : undefined;
  const extra = g && g.next < der.length ? derInteger(der, g.next) : undefined;
  const end = extra?.next ?? g?.next;
  if (!p || !g || end !== der.length) return { ok: false, reason: 'dhparam.pem does not hold DH parameters (SEQUENCE of p and g)' };
  if (p.bits < 2048 || p.bits > 8192) return { ok: false, reason: `the prime has ${p.bits} bits; 2048 to 8192 are taken` };
  if (g.bytes.length !== 1 || (g.bytes[0] ?? 0) < 2) return { ok: false, reason: 'the generator is not from 2 to 255' };
  const pem = `-----BEGIN DH PARAMETERS-----\n${m[1]}-----END DH PARAMETERS-----\n`;
  return { ok: true, value: { pem, digest: sha256(pem), bits: p.bits } };
}
