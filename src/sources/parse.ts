// Parses manifest text (YAML, multi-document, JSON, kind: List) into objects, with file and line in every error.
import { createRequire } from 'node:module';
import { KINDS, OTHER_API_VERSIONS, isKind, type Kind, type KubeObject } from '../store/kinds.js';
import { quickYamlDocuments } from './yaml-documents.js';

type Yaml = typeof import('yaml');
let yamlModule: Yaml | undefined;
/** The YAML parser (84 files, ~50 ms to load), loaded by the first file that is not JSON: a folder of JSON never loads it. */
function yaml(): Yaml {
  yamlModule ??= createRequire(import.meta.url)('yaml') as Yaml;
  return yamlModule;
}

export interface ParsedObject {
  readonly kind: Kind;
  readonly object: KubeObject;
  readonly where: string;
}

export interface ParseResult {
  readonly objects: ParsedObject[];
  readonly errors: string[];
  /** Objects of kinds Portico does not read: `file:line Kind/name`, logged at debug level. */
  readonly ignored: string[];
  /** True when the text itself is not valid YAML/JSON (as opposed to a valid document with a bad object). */
  syntaxError: boolean;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Checks the fields every object needs; returns the reason it is unusable, or undefined. */
function checkObject(kind: Kind, obj: Record<string, unknown>): string | undefined {
  const want = [KINDS[kind].apiVersion, ...(OTHER_API_VERSIONS[kind] ?? [])];
  if (!want.includes(obj['apiVersion'] as string)) {
    return `${kind} needs apiVersion ${want.join(' or ')}, got ${JSON.stringify(obj['apiVersion'])}`;
  }
  const meta = obj['metadata'];
  if (!isRecord(meta) || typeof meta['name'] !== 'string' || meta['name'] === '') {
    return `${kind} has no metadata.name`;
  }
  if (meta['namespace'] !== undefined && typeof meta['namespace'] !== 'string') return `${kind} metadata.namespace is not a string`;
  for (const f of ['labels', 'annotations'] as const) {
    const m = meta[f];
    if (m !== undefined && (!isRecord(m) || Object.values(m).some((v) => typeof v !== 'string'))) {
      return `${kind} ${meta['name']}: metadata.${f} must map strings to strings`;
    }
  }
  if ((kind === 'Ingress' || kind === 'Service') && obj['spec'] !== undefined && !isRecord(obj['spec'])) {
    return `${kind} ${meta['name']}: spec must be an object`;
  }
  if (kind === 'EndpointSlice' && !Array.isArray(obj['endpoints'])) return `EndpointSlice ${meta['name']}: endpoints must be a list`;
  return undefined;
}

function collect(value: unknown, where: string, out: ParseResult): void {
  if (value === null || value === undefined) return;
  if (!isRecord(value)) {
    out.errors.push(`${where}: a manifest must be an object, got ${Array.isArray(value) ? 'a list' : typeof value}`);
    return;
  }
  const kind = value['kind'];
  if (typeof kind === 'string' && kind.endsWith('List') && Array.isArray(value['items'])) {
    value['items'].forEach((item, i) => {
      collect(item, `${where} items[${i}]`, out);
    });
    return;
  }
  if (typeof kind !== 'string' || kind === '') {
    out.errors.push(`${where}: object has no kind`);
    return;
  }
  if (!isKind(kind)) {
    const meta = value['metadata'];
    out.ignored.push(`${where} ${kind}/${isRecord(meta) ? String(meta['name']) : '?'}`);
    return;
  }
  const bad = checkObject(kind, value);
  if (bad) {
    out.errors.push(`${where}: ${bad}`);
    return;
  }
  const meta = value['metadata'] as Record<string, unknown>;
  const namespaced = KINDS[kind].namespaced;
  const object = { ...value, metadata: { ...meta, namespace: namespaced ? (meta['namespace'] ?? 'default') : undefined } };
  out.objects.push({ kind, object: object as KubeObject, where });
}

/** Parses one file's text. `file` only names it in messages. */
export function parseManifests(file: string, text: string): ParseResult {
  const out: ParseResult = { objects: [], errors: [], ignored: [], syntaxError: false };
  // JSON is YAML, but the YAML parser takes seconds on a file of megabytes, on the thread that answers /healthz.
  // A .json file that JSON.parse reads is read that way; one it refuses goes to the YAML parser for line numbers.
  if (file.endsWith('.json')) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    if (value !== undefined) {
      collect(value, `${file}:1`, out);
      return out;
    }
  }
  // Most manifests read through js-yaml, several times faster than the yaml library's document model; text the two
  // would read apart, or that js-yaml refuses, is the yaml library's, with its errors and line numbers (yaml-documents.ts).
  const quick = quickYamlDocuments(text);
  if (quick !== undefined) {
    for (const d of quick) collect(d.value, `${file}:${d.line}`, out);
    return out;
  }
  const { LineCounter, parseAllDocuments } = yaml();
  const lineCounter = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter, uniqueKeys: true });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    const line = lineCounter.linePos(doc.contents?.range[0] ?? doc.range[0]).line;
    if (doc.errors.length > 0) {
      out.syntaxError = true;
      for (const e of doc.errors) {
        const pos = e.linePos?.[0];
        // yaml repeats the position at the end of its first line ("… at line 6, column 1:"): it is said once, in front.
        const first = (e.message.split('\n')[0] ?? '').replace(/ at line \d+, column \d+:?$/, '');
        out.errors.push(`${file}:${pos ? `${pos.line}:${pos.col}` : line}: ${e.code}: ${first}`);
      }
      continue;
    }
    collect(doc.toJS({ maxAliasCount: 100 }), `${file}:${line}`, out);
  }
  return out;
}
