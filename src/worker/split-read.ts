// A folder's first read split between the two threads (docs/adr/0066): the build worker reads, parses and stamps the
// second half of the files as the main thread does the first, keeps its own copy of each object under an id of its
// own, and sends the main thread each object's stamped text, which the main thread only parses. At 10,000 Ingresses
// the main thread's read (parse, stringify and digest, parse again) was the first second of the first sync, while
// the worker waited for the objects. Both sides' parts are here: the worker's (readForMain) and the main thread's
// (receiveBatch).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseManifests } from '../sources/parse.js';
import type { StampedFile } from '../sources/manifest-files.js';
import { AGED, stampInPlace, withoutMetadata } from '../sources/manifest-stamp.js';
import { compactReceived, parseStored, type KubeObject } from '../store/kinds.js';
import { joinTexts, splitTexts, WORKER_IDS_FROM } from './snapshot-wire.js';

/** What the main thread asks: these files of the folder, stamped with its placeholder (manifest-stamp.ts). */
export interface ReadRequest {
  readonly dir: string;
  readonly names: readonly string[];
  readonly placeholder: string;
}

/** One file as the worker read it: how many of the batch's objects are its own, and what its parse said. */
export interface ReadFile {
  readonly name: string;
  readonly count: number;
  readonly errors: readonly string[];
  readonly ignored: readonly string[];
}

/**
 * Whole files' objects: their ids (0: not held by the worker, the store trims a copy of it), their stamped JSON texts
 * joined by line breaks (which JSON.stringify never writes), and the indices of those whose age the stamp gave.
 */
export interface ReadBatch {
  readonly files: readonly ReadFile[];
  readonly ids: readonly number[];
  readonly texts: string;
  readonly aged: readonly number[];
}

/** Objects a batch gathers before it is posted (at a file's end). */
const BATCH_OBJECTS = 512;
/** The next id the worker gives an object it holds: never one it gave before, whatever read asked for it. */
let nextId = WORKER_IDS_FROM;

/**
 * The worker's part: each file of `req` read, parsed and stamped as ManifestSource's first read would, each object
 * the store keeps as it is held (`hold`, parsed from its own text, as the main thread will parse it), batches posted.
 */
export function readForMain(req: ReadRequest, hold: (id: number, o: unknown) => void, post: (b: ReadBatch) => void): void {
  let files: ReadFile[] = [];
  let ids: number[] = [];
  let texts: string[] = [];
  let aged: number[] = [];
  const flush = (): void => {
    if (files.length > 0) post({ files, ids, texts: joinTexts(texts), aged });
    files = [];
    ids = [];
    texts = [];
    aged = [];
  };
  for (const name of req.names) {
    let text = '';
    try {
      text = readFileSync(join(req.dir, name), 'utf8');
    } catch {
      files.push({ name, count: 0, errors: [], ignored: [] }); // removed since it was listed: no objects
      continue;
    }
    const parsed = parseManifests(name, text);
    for (const { kind, object } of parsed.objects) {
      const given = object.metadata?.creationTimestamp === undefined;
      const created = object.metadata?.creationTimestamp ?? new Date().toISOString();
      if (given && AGED.has(kind)) aged.push(ids.length);
      const stamped = object.metadata === undefined ? undefined : stampInPlace(kind, object, created, req.placeholder);
      if (stamped === undefined) {
        ids.push(0);
        texts.push(JSON.stringify(object.metadata === undefined ? withoutMetadata(object, created) : object));
        continue;
      }
      const id = nextId++;
      hold(id, parseStored(stamped, kind));
      ids.push(id);
      texts.push(stamped);
    }
    files.push({ name, count: parsed.objects.length, errors: parsed.errors, ignored: parsed.ignored });
    if (ids.length >= BATCH_OBJECTS) flush();
  }
  flush();
}

/**
 * The main thread's part: a batch's objects parsed, each one the worker holds adopted under its id (`adopt`:
 * SnapshotSender.adopt). Throws on a batch whose texts do not match its ids (never, from the worker).
 */
export function receiveBatch(b: ReadBatch, adopt: (o: object, id: number) => void): StampedFile[] {
  const texts = splitTexts(b.texts, b.ids.length);
  if (texts === undefined) throw new Error(`a read batch of ${String(b.ids.length)} objects came with other texts`);
  const aged = new Set(b.aged);
  const out: StampedFile[] = [];
  let at = 0;
  for (const f of b.files) {
    const objects: KubeObject[] = [];
    const old: KubeObject[] = [];
    for (let i = at; i < at + f.count; i += 1) {
      const id = b.ids[i] ?? 0;
      const text = texts[i] ?? '';
      const o = id === 0 ? (JSON.parse(text) as KubeObject) : compactReceived(text);
      if (id !== 0) adopt(o, id);
      objects.push(o);
      if (aged.has(i)) old.push(o);
    }
    at += f.count;
    out.push({ name: f.name, objects, aged: old, errors: f.errors, ignored: f.ignored });
  }
  return out;
}
