// The one sha256 helper: hex digests of text (configuration hashes, certificate digests, short stable names).
import { createHash } from 'node:crypto';

/** The sha256 of `text` in hex, cut to its first `length` characters (all 64 by default). */
export function sha256(text: string, length = 64): string {
  return createHash('sha256').update(text).digest('hex').slice(0, length);
}
