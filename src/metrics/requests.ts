// Per-request metrics: the Lua dump (lua/portico/metrics.lua) → series → ingress-nginx's exposition text. Pure.

/** ingress-nginx's default buckets, in the order of the Lua slots (metrics.lua). */
const TIME_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;
const SIZE_BUCKETS = [10, 100, 1000, 10000, 100000, 1000000, 10000000] as const;
const LENGTH_BUCKETS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100] as const;

/** The labels of one series: all from Portico's rendering or bounded by the Lua side (status, method). */
export interface RequestLabels {
  readonly namespace: string;
  readonly ingress: string;
  readonly service: string;
  readonly host: string;
  readonly canary: string;
  readonly status: string;
  readonly method: string;
}

interface Histogram {
  readonly count: number;
  readonly sum: number;
  readonly buckets: readonly number[];
}

/** One label set's figures; histogram buckets are per bucket (not cumulative), the last one +Inf. */
export interface RequestSeries {
  readonly labels: RequestLabels;
  readonly requests: number;
  readonly requestDuration: Histogram;
  readonly responseDuration: Histogram;
  readonly requestSize: Histogram;
  readonly responseSize: Histogram;
}

// 1-based slot numbers, as metrics.lua lays them out.
const RT = 3;
const UC = RT + TIME_BUCKETS.length + 1;
const UB = UC + 2;
const QS = UB + TIME_BUCKETS.length + 1;
const PS = QS + 1 + SIZE_BUCKETS.length + 1;
const SLOTS = PS + LENGTH_BUCKETS.length + 1;

const slice = (v: readonly number[], from: number, n: number): number[] => v.slice(from - 1, from - 1 + n);

/** Parses the dump's `labels\tslot\tvalue` lines into series; malformed lines are skipped. */
export function parseDump(text: string): RequestSeries[] {
  const raw = new Map<string, number[]>();
  for (const line of text.split('\n')) {
    const [key, slotText, valueText] = line.split('\t');
    const slot = Number(slotText);
    const value = Number(valueText);
    if (key === undefined || !Number.isInteger(slot) || slot < 1 || slot > SLOTS || !Number.isFinite(value)) continue;
    let v = raw.get(key);
    if (!v) {
      v = new Array<number>(SLOTS).fill(0);
      raw.set(key, v);
    }
    v[slot - 1] = value;
  }
  const out: RequestSeries[] = [];
  for (const [key, v] of raw) {
    const [namespace = '', ingress = '', service = '', host = '', , canary = '', status = '', method = ''] = key.split('|');
    out.push({
      labels: { namespace, ingress, service, host, canary, status, method },
      requests: v[0] ?? 0,
      requestDuration: { count: v[0] ?? 0, sum: v[1] ?? 0, buckets: slice(v, RT, TIME_BUCKETS.length + 1) },
      responseDuration: { count: v[UC - 1] ?? 0, sum: v[UC] ?? 0, buckets: slice(v, UB, TIME_BUCKETS.length + 1) },
      requestSize: { count: v[0] ?? 0, sum: v[QS - 1] ?? 0, buckets: slice(v, QS + 1, SIZE_BUCKETS.length + 1) },
      responseSize: { count: v[0] ?? 0, sum: v[PS - 1] ?? 0, buckets: slice(v, PS + 1, LENGTH_BUCKETS.length + 1) },
    });
  }
  return out.sort((a, b) => labelText(a.labels, {}).localeCompare(labelText(b.labels, {})));
}

const escapeValue = (v: string): string => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');

function labelText(l: RequestLabels, constant: Readonly<Record<string, string>>, le?: string): string {
  const all: [string, string][] = [
    ...Object.entries(constant),
    ['namespace', l.namespace],
    ['ingress', l.ingress],
    ['service', l.service],
    ['host', l.host],
    ['canary', l.canary],
    ['status', l.status],
    ['method', l.method],
    ...(le === undefined ? [] : [['le', le] as [string, string]]),
  ];
  return `{${all.map(([k, v]) => `${k}="${escapeValue(v)}"`).join(',')}}`;
}

const num = (n: number): string => (Number.isInteger(n) ? String(n) : String(Number(n.toPrecision(15))));

interface HistogramSpec {
  readonly name: string;
  readonly help: string;
  readonly bounds: readonly number[];
  readonly pick: (s: RequestSeries) => Histogram;
}

function histogram({ name, help, bounds, pick }: HistogramSpec, series: readonly RequestSeries[], constant: Readonly<Record<string, string>>): string[] {
  const lines = [`# HELP ${name} ${help}`, `# TYPE ${name} histogram`];
  for (const s of series) {
    const h = pick(s);
    if (h.count === 0) continue;
    let cumulative = 0;
    bounds.forEach((le, i) => {
      cumulative += h.buckets[i] ?? 0;
      lines.push(`${name}_bucket${labelText(s.labels, constant, String(le))} ${num(cumulative)}`);
    });
    lines.push(`${name}_bucket${labelText(s.labels, constant, '+Inf')} ${num(h.count)}`);
    lines.push(`${name}_sum${labelText(s.labels, constant)} ${num(h.sum)}`, `${name}_count${labelText(s.labels, constant)} ${num(h.count)}`);
  }
  return lines;
}

const P = 'nginx_ingress_controller_';
const HISTOGRAMS: readonly HistogramSpec[] = [
  { name: `${P}request_duration_seconds`, help: 'The request processing time in seconds (nginx $request_time)', bounds: TIME_BUCKETS, pick: (s) => s.requestDuration },
  { name: `${P}response_duration_seconds`, help: 'The time spent receiving the response from the upstream server in seconds', bounds: TIME_BUCKETS, pick: (s) => s.responseDuration },
  { name: `${P}request_size`, help: 'The request length (including request line, header, and request body)', bounds: SIZE_BUCKETS, pick: (s) => s.requestSize },
  { name: `${P}response_size`, help: 'The response length (bytes sent to the client, headers included)', bounds: LENGTH_BUCKETS, pick: (s) => s.responseSize },
];

/**
 * ingress-nginx's per-request metrics in the Prometheus text format; `constant` labels come first on each series.
 * `exclude` (--exclude-socket-metrics) names metrics left out, with or without the nginx_ingress_controller_ prefix,
 * as ingress-nginx reads them; a name that is none of them changes nothing.
 */
export function requestExposition(series: readonly RequestSeries[], constant: Readonly<Record<string, string>>, exclude: readonly string[] = []): string {
  const out = new Set(exclude.map((n) => (n.startsWith(P) ? n : `${P}${n}`)));
  const requests = out.has(`${P}requests`)
    ? []
    : [`# HELP ${P}requests The total number of client requests`, `# TYPE ${P}requests counter`, ...series.map((s) => `${P}requests${labelText(s.labels, constant)} ${num(s.requests)}`)];
  return [...requests, ...HISTOGRAMS.filter((h) => !out.has(h.name)).flatMap((h) => histogram(h, series, constant)), ''].join('\n');
}

/** Requests and 5xx answers per Ingress (the dashboard's rate and error ratio). */
export function trafficByIngress(series: readonly RequestSeries[]): { namespace: string; ingress: string; requests: number; errors: number }[] {
  const by = new Map<string, { namespace: string; ingress: string; requests: number; errors: number }>();
  for (const s of series) {
    const key = `${s.labels.namespace}/${s.labels.ingress}`;
    const t = by.get(key) ?? { namespace: s.labels.namespace, ingress: s.labels.ingress, requests: 0, errors: 0 };
    t.requests += s.requests;
    if (s.labels.status.startsWith('5')) t.errors += s.requests;
    by.set(key, t);
  }
  return [...by.values()].sort((a, b) => `${a.namespace}/${a.ingress}`.localeCompare(`${b.namespace}/${b.ingress}`));
}
