// Tracing counters in the Lua dump (lua/portico/tracing_export.lua: `tracing\t<what>\t<n>` lines) → exposition text. Pure.

const DROPPED: Readonly<Record<string, string>> = { dropped: 'queue_full', failed: 'export_failed' };

/** The counters, always all three once tracing has counted anything; '' when the dump holds none. */
export function tracingExposition(dump: string): string {
  const n: Record<string, number> = { dropped: 0, failed: 0, exported: 0 };
  let any = false;
  for (const line of dump.split('\n')) {
    const [series, what, value] = line.split('\t');
    if (series !== 'tracing' || what === undefined || !(what in n) || !Number.isFinite(Number(value))) continue;
    n[what] = Number(value);
    any = true;
  }
  if (!any) return '';
  return [
    '# HELP portico_tracing_spans_exported_total Spans the OTLP collector accepted',
    '# TYPE portico_tracing_spans_exported_total counter',
    `portico_tracing_spans_exported_total ${n['exported'] ?? 0}`,
    '# HELP portico_tracing_spans_dropped_total Spans dropped: the worker queue was full (or no collector is named), or their export failed',
    '# TYPE portico_tracing_spans_dropped_total counter',
    ...Object.entries(DROPPED).map(([what, reason]) => `portico_tracing_spans_dropped_total{reason="${reason}"} ${n[what] ?? 0}`),
    '',
  ].join('\n');
}
