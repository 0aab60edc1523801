// What a tls.crt/tls.key pair says, kept by content: parsing a private key costs about half a millisecond under
// OpenSSL 3 whatever its size, and a cluster often holds one certificate in many Secrets (a wildcard copied to each
// namespace), or sees the same Secret again as a new object after a relist or a label change.
import { sha256 } from '../hash.js';
import type { CertificateInfo } from './tls-types.js';

/** A pair's verdict without the Secret's name: the certificate's public facts, or which check refused it. */
export type PairVerdict = { readonly ok: true; readonly info: CertificateInfo } | { readonly ok: false; readonly refusal: PairRefusal };

export type PairRefusal = 'crt-not-pem' | 'key-not-pem' | 'crt-unparsed' | 'key-mismatch' | 'key-unparsed';

/** Enough for every TLS Secret of a large cluster; past it the oldest verdict is forgotten and made again if asked. */
const LIMIT = 20_000;

const verdicts = new Map<string, PairVerdict>();

/**
 * The verdict on `crt` and `key`, made by `judge` only when this exact pair was not judged before. The key of the
 * cache is a digest of both texts, so nothing secret is held in it beyond what the Secret objects already hold.
 */
export function pairVerdict(crt: string, key: string, judge: () => PairVerdict): PairVerdict {
  const id = sha256(`${crt}\u0000${key}`);
  const known = verdicts.get(id);
  if (known !== undefined) return known;
  const made = judge();
  if (verdicts.size >= LIMIT) {
    const oldest = verdicts.keys().next();
    if (oldest.done !== true) verdicts.delete(oldest.value);
  }
  verdicts.set(id, made);
  return made;
}
