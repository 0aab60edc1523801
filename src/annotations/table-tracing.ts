// The OpenTelemetry rows of the annotation table: per-Ingress switch, trust and span name (docs/adr/0018).
import type { LocationTracing } from '../model/settings-tracing.js';
import { operationName } from './configmap-tracing.js';
import type { AnnotationSpec } from './table.js';
import { specRow } from './row.js';
import * as v from './values.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };

interface Meta {
  readonly risk: 'Low' | 'Medium';
  readonly type: string;
  readonly doc: string;
}

function row<T>(key: string, { risk, type, doc }: Meta, parse: v.Parser<T>, set: (t: Mutable<LocationTracing>, value: T) => void): AnnotationSpec {
  return specRow(key, { type, default: '', risk, scope: 'location', doc }, parse, (draft, value) => {
    const t: Mutable<LocationTracing> = { ...draft.location.tracing };
    set(t, value);
    draft.location.tracing = t;
  });
}

/** Spliced into ANNOTATIONS. As in ingress-nginx, trust and name are only read when enable-opentelemetry is "true" here. */
export const TRACING_ANNOTATIONS: readonly AnnotationSpec[] = [
  row('enable-opentelemetry', { risk: 'Low', type: 'bool', doc: "Traces this Ingress's requests (true) or not (false), whatever the ConfigMap's enable-opentelemetry says." }, v.bool, (t, x) => {
    t.enabled = x;
  }),
  row('opentelemetry-trust-incoming-span', { risk: 'Low', type: 'bool', doc: "Continues the client's traceparent (default: the ConfigMap's key, true)." }, v.bool, (t, x) => {
    t.trustIncomingSpan = x;
  }),
  row('opentelemetry-operation-name', { risk: 'Medium', type: 'string', doc: 'Name of the server span (letters, digits, `_` and `-`).' }, operationName, (t, x) => {
    t.operationName = x;
  }),
];
