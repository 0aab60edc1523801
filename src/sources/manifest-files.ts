// The manifest folder's files for local mode's source (manifests.ts): which files count, their stat signatures, the
// folder's own stat, and reading and parsing them (the parse errors kept per file, as the source reports them).
import { readFileSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { setImmediate as setImmediatePromise } from 'node:timers/promises';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import { parseManifests, type ParsedObject } from './parse.js';
import type { KubeObject } from '../store/kinds.js';

const EXTENSIONS = /\.(ya?ml|json)$/i;
/**
 * Files read at once: one by one, a first read of 1,000 files waited for each file's open, read and close in turn on
 * the thread pool, and the thread that parses them idled a third of the time (docs/adr/0047).
 */
const READ_LANES = 8;
/** Files a first read reads between two turns of the event loop (readFirst). */
const FIRST_READ_BATCH = 32;
/**
 * The share of a first read's bytes this thread reads when the build worker reads the rest (readFirstSplit): this
 * thread also parses the worker's objects again, sends its own ahead and assembles the store, so it takes less.
 */
const SPLIT_SHARE = 0.4;
/** Below this many files a first read is not split: the worker's request and replies would cost more than it saves. */
const SPLIT_MIN_FILES = 8;

/** What a poll compares of the folder itself. */
export interface FolderStat {
  readonly ino: number;
  readonly mtimeMs: number;
}

/**
 * A file of a first read that the build worker read, parsed and stamped (worker/split-read.ts): its objects as the store
 * keeps them, those whose age the stamp gave (an AGED kind without a creationTimestamp), and what its parse said.
 */
export interface StampedFile {
  readonly name: string;
  readonly objects: readonly KubeObject[];
  readonly aged: readonly KubeObject[];
  readonly errors: readonly string[];
  readonly ignored: readonly string[];
}

/** A first read's files by name: those parsed here, and (`rest`) the build worker's part once it is done. */
export interface FirstRead {
  /** KEEP: a file read before that stopped parsing (a later read's, readAll). */
  readonly parsed: ReadonlyMap<string, ParsedObject[] | typeof KEEP>;
  readonly rest?: () => Promise<{ readonly parsed: ReadonlyMap<string, ParsedObject[]>; readonly stamped: ReadonlyMap<string, StampedFile> }>;
}

/** Each file's read of `names` (in their order) by name; none for a file `read` has no entry for. */
export function byName<T>(names: readonly string[], read: readonly (T | ParsedObject[])[]): Map<string, T | ParsedObject[]> {
  return new Map(names.map((name, i) => [name, read[i] ?? []]));
}

/** Reads some files of a folder's first read elsewhere (Offload.readAhead), or undefined when it cannot. */
export type ReadAhead = (dir: string, names: readonly string[]) => Promise<StampedFile[]> | undefined;

/** The build worker's part in a folder's first read (Controller): the objects read here, and files it reads itself. */
export interface SourceAhead {
  /** Told of each file's objects as they are read here, before they reach the store (Controller.preload). */
  readonly preload: (objects: readonly KubeObject[]) => void;
  readonly read: ReadAhead;
}

/** read()'s answer for a file that stopped parsing and had been read before: what it gave then stays. */
export const KEEP = Symbol('keep');

export class ManifestFiles {
  /** Each file's parse errors as last read (none: not listed). */
  readonly errors = new Map<string, readonly string[]>();

  constructor(
    private readonly dir: string,
    private readonly log: Logger,
  ) {}

  /** The manifest files of the folder (YAML or JSON, not hidden), sorted. */
  async names(): Promise<string[]> {
    const entries = await readdir(this.dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && EXTENSIONS.test(e.name) && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  }

  /** Each file's stat signature (name, size, mtime, inode; the name alone when it is gone). */
  async signatures(names: readonly string[]): Promise<string[]> {
    return Promise.all(
      names.map(async (n) => {
        const s = await stat(join(this.dir, n)).catch(() => undefined);
        return s ? `${n}:${s.size}:${s.mtimeMs}:${s.ino}` : n;
      }),
    );
  }

  /** What a file's parse said (here or in the build worker, StampedFile): its errors kept and logged, what it ignored logged. */
  noteParsed(name: string, result: { readonly errors: readonly string[]; readonly ignored: readonly string[] }): void {
    if (result.errors.length > 0) this.errors.set(name, result.errors);
    else this.errors.delete(name);
    for (const line of result.ignored) this.log.debug(`ignoring ${line}: not a kind Portico reads`);
    for (const e of result.errors) this.log.error({ file: join(this.dir, name) }, `bad manifest: ${e}`);
  }

  /** The folder's inode and mtime (a file added, removed or renamed changes the mtime; a folder replaced, the inode). */
  async folderStat(): Promise<FolderStat> {
    const { ino, mtimeMs } = await stat(this.dir);
    return { ino, mtimeMs };
  }

  /** read() of each of `names`, READ_LANES at a time; the results in the order of `names`. */
  async readAll(names: readonly string[], readBefore: (name: string) => boolean): Promise<(ParsedObject[] | typeof KEEP)[]> {
    const out: (ParsedObject[] | typeof KEEP)[] = [];
    let next = 0;
    const lane = async (): Promise<void> => {
      // each lane takes the next name until none is left: the lanes end within names.length reads in all
      for (let i = next++; i < names.length; i = next++) {
        const name = names[i] ?? '';
        out[i] = await this.read(name, readBefore(name));
      }
    };
    await Promise.all(Array.from({ length: Math.min(READ_LANES, names.length) }, lane));
    return out;
  }

  /**
   * read() of each of `names` on this thread, each file's read blocking it (`portico render`, which has nothing else to
   * do): at 1,000 files the file handles' open, fstat, read and close on the thread pool were 65 ms of a render.
   */
  readAllNow(names: readonly string[]): ParsedObject[][] {
    return names.map((name) => {
      let text: string;
      try {
        text = readFileSync(join(this.dir, name), 'utf8');
      } catch {
        return []; // removed between readdir and read
      }
      const objects = this.parse(name, text, false);
      return objects === KEEP ? [] : objects;
    });
  }

  /**
   * A first read (nothing read before, so nothing to KEEP): readAllNow's, a batch of files at a time with a turn of the
   * event loop between batches, so /healthz still answers while 10,000 files are read. The lanes of readAll() cost
   * their file handles' open, fstat, read and close on the thread pool: 0.1 s of a 1,000-file first sync.
   */
  async readFirst(names: readonly string[]): Promise<ParsedObject[][]> {
    const out: ParsedObject[][] = [];
    for (let i = 0; i < names.length; i += FIRST_READ_BATCH) {
      if (i > 0) await setImmediatePromise();
      for (const objects of this.readAllNow(names.slice(i, i + FIRST_READ_BATCH))) out.push(objects);
    }
    return out;
  }

  /**
   * A first read with the build worker's help (`ahead`, Offload.readAhead): the files past the first SPLIT_SHARE of
   * the bytes are read, parsed and stamped there while this thread reads the others (readFirst), their objects coming
   * back stamped (docs/adr/0066). Without a worker, with few files, or when the worker fails, all are read here.
   * `parsed`: the files read here so far, by name (to be stamped); `rest`: the worker's part when it is done, by name:
   * stamped, or parsed here after all when the worker failed.
   */
  async readFirstSplit(names: readonly string[], sizeOf: (name: string) => number, ahead: ReadAhead | undefined): Promise<FirstRead> {
    const total = names.reduce((n, name) => n + sizeOf(name), 0);
    let k = 0;
    for (let bytes = 0; k < names.length && bytes < total * SPLIT_SHARE; k += 1) bytes += sizeOf(names[k] ?? '');
    const theirs = names.length >= SPLIT_MIN_FILES ? names.slice(k) : [];
    const asked = theirs.length > 0 ? ahead?.(this.dir, theirs) : undefined;
    const mine = asked ? names.slice(0, k) : names;
    const parsed = byName(mine, await this.readFirst(mine));
    if (asked === undefined) return { parsed };
    const rest = async (): Promise<{ parsed: Map<string, ParsedObject[]>; stamped: Map<string, StampedFile> }> => {
      try {
        return { parsed: new Map(), stamped: new Map((await asked).map((f) => [f.name, f])) };
      } catch (err) {
        this.log.debug({ err: err instanceof Error ? err.message : String(err), files: theirs.length }, 'the build worker did not read its part of the folder; reading it here');
        return { parsed: byName(theirs, await this.readFirst(theirs)), stamped: new Map() };
      }
    };
    return { parsed, rest };
  }

  /** A file's objects, or KEEP when it stopped parsing and `readBefore` (its objects as last read stay). */
  private async read(name: string, readBefore: boolean): Promise<ParsedObject[] | typeof KEEP> {
    let text: string;
    try {
      text = await readFile(join(this.dir, name), 'utf8');
    } catch {
      return []; // removed between readdir and read: the next event reads the folder again
    }
    return this.parse(name, text, readBefore);
  }

  /** `text`'s objects, its errors kept and logged; KEEP when it stopped parsing and `readBefore`. */
  private parse(name: string, text: string, readBefore: boolean): ParsedObject[] | typeof KEEP {
    const result = parseManifests(name, text);
    this.noteParsed(name, result);
    if (result.syntaxError && readBefore) {
      this.log.warn({ file: name }, 'keeping the objects this file had before it stopped parsing');
      return KEEP;
    }
    return result.objects;
  }
}
