// One row of an annotation table: parse the raw value, write it into the draft, or return the reason. table.ts and
// its part tables (auth, TLS, traffic) build their rows with it, each with its own setter.
import type { RiskLevel } from '../model/settings.js';
import type { AnnotationSpec, Draft, Scope } from './table.js';
import type * as v from './values.js';

export interface RowMeta {
  type: string;
  default: string;
  risk: RiskLevel;
  scope: Scope;
  doc: string;
  snippet?: boolean;
}

export function specRow<T>(key: string, meta: RowMeta, parse: v.Parser<T>, set: (d: Draft, value: T) => void): AnnotationSpec {
  return {
    key,
    ...meta,
    apply: (raw, draft) => {
      const r = parse(raw);
      if (!r.ok) return r.reason;
      set(draft, r.value);
      return undefined;
    },
  };
}
