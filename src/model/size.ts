// Bytes of an nginx size, for the checks that compare sizes (buffer and cache bounds, the route table's body limits).
import type { Size } from './settings.js';

const UNIT: Readonly<Record<string, number>> = { '': 1, k: 1024, m: 1024 ** 2, g: 1024 ** 3 };

/** Bytes of an nginx size (`8k`, `1m`, `0`; the unit in lower case); undefined for anything else. */
export function sizeBytes(value: Size): number | undefined {
  const m = /^(\d{1,9})([kmg]?)$/.exec(value);
  if (m === null) return undefined;
  return Number(m[1]) * (UNIT[m[2] ?? ''] ?? 1);
}
