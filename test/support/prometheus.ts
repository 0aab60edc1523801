// Reads Portico's /metrics as Prometheus would: the whole text through a Prometheus text-format parser
// (parse-prometheus-text-format, which throws on an invalid line), and each sample line read with its labels.
import assert from 'node:assert/strict';
import parse from 'parse-prometheus-text-format';
import type { Running } from './portico.js';

/** One sample line: `name{labels} value`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  /** Families as the parser read them (name, help, type). */
  readonly families: ReturnType<typeof parse>;
  readonly samples: readonly Sample[];
}

/** A sample line of the text format (label values quoted, escapes allowed; NaN and Inf in any case, as Go parses them). */
const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{((?:[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*",?)*)\})? ([-+]?(?:[0-9.]+(?:e[-+]?[0-9]+)?|inf|nan))$/i;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\n]|\\.)*)"/g;

function sampleOf(line: string): Sample {
  const m = LINE.exec(line);
  assert.ok(m, `not a sample line of the Prometheus text format: ${line}`);
  const labels: Record<string, string> = {};
  for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1] ?? ''] = (l[2] ?? '').replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
  return { name: m[1] ?? '', labels, value: Number(m[3]) };
}

/** Scrapes /metrics; asserts the content type, that the parser takes it whole, and that every family has HELP and TYPE. */
export async function scrape(p: Pick<Running, 'healthz'>): Promise<Scrape> {
  const res = await fetch(`http://127.0.0.1:${p.healthz}/metrics`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = parse(text);
  for (const f of families) assert.notEqual(f.type, 'UNTYPED', `${f.name} has no # TYPE`);
  const samples = text
    .split('\n')
    .filter((l) => l !== '' && !l.startsWith('#'))
    .map(sampleOf);
  return { families, samples };
}

/** The samples named `name` whose labels include `labels`. */
export function samples(s: Scrape, name: string, labels: Readonly<Record<string, string>> = {}): Sample[] {
  return s.samples.filter((x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v));
}

/** The sum of the matching samples' values; 0 when none. */
export function total(s: Scrape, name: string, labels: Readonly<Record<string, string>> = {}): number {
  return samples(s, name, labels).reduce((n, x) => n + x.value, 0);
}
