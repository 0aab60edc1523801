// One ConfigMap key row: a name, the GlobalSettings field it sets, its default, doc and value parser.
import type { GlobalSettings } from '../model/settings.js';
import type { KeySpec } from './configmap.js';
import type { Parser } from './values.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** A row whose parsed value is written to `field`; a refused value returns the parser's reason. */
export function key<F extends keyof GlobalSettings>(name: string, field: F, def: string, doc: string, parse: Parser<GlobalSettings[F]>): KeySpec {
  return {
    key: name,
    field,
    default: def,
    doc,
    apply: (raw: string, g: Mutable<GlobalSettings>) => {
      const r = parse(raw);
      if (!r.ok) return r.reason;
      g[field] = r.value;
      return undefined;
    },
  };
}
