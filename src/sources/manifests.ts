// Local mode's source: a folder of manifests, read whole and watched; it feeds the store like the API would.
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { isKind, KINDS, keyOf, type Kind, type KubeObject } from '../store/kinds.js';
import { ManifestStamper } from './manifest-stamp.js';
import { byName, KEEP, ManifestFiles, type FirstRead, type FolderStat, type SourceAhead, type StampedFile } from './manifest-files.js';
import type { ParsedObject } from './parse.js';
import { parseLabelSelector, type LabelMatcher } from './selector.js';

/**
 * Above this many files, a poll between full ones stats only the folder (checkSignature). At 1,001 files a full poll
 * every 2.5 s was 400 stat calls a second at rest and their garbage, which kept V8 from seeing the sync thread as
 * quiet and shrinking its young generation (collect.ts settle): 24 MiB of RSS (docs/adr/0058).
 */
const LIGHT_POLLS_ABOVE = 100;
/** Every this-many-th poll stats every file (every 30 s at 5 s a poll). */
const FULL_POLL_EVERY = 6;

/** A stamped object's kind: parse.ts keeps only objects of a known kind, and the stamp and the store keep `kind`. */
function kindOf(o: KubeObject): Kind {
  if (!isKind(o.kind)) throw new Error(`a manifest object of no known kind (${String(o.kind)}) was kept`);
  return o.kind;
}

/** The size a stat signature (ManifestFiles.signatures: name:size:mtime:inode) gives, 1 when it has none. */
function sizeIn(sig: string): number {
  const parts = sig.split(':');
  return parts.length >= 4 ? Number(parts[parts.length - 3]) || 1 : 1;
}

const idOf = (o: KubeObject): string => {
  const kind = kindOf(o);
  return `${kind}/${keyOf(kind, o)}`;
};

/** Reads every manifest in a folder into the store, and again whenever the folder changes. */
export class ManifestSource {
  private watcher: FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private stopped = false;
  /** readOnce: no later read compares versions. */
  private once = false;
  private signature = '';
  /** The folder's own stat at the last read or full poll, the light polls since, and whether the watcher failed. */
  private folder: FolderStat | undefined;
  private lightPolls = 0;
  private watchFailed = false;
  private reading: Promise<void> = Promise.resolve();
  /**
   * Each file's objects as last read (stamped), and the stat signature they were read at: unchanged files are not read
   * again. Once the store holds an object of the same content (resourceVersion), the entry names the store's object,
   * not a copy of its own: at 10,000 Ingresses this source's copies were 63 MiB beside the store's 55 (docs/adr/0047).
   * The objects alone, their kind and key read from them when needed: a wrapper with both and the object's place in
   * its file was 5 MiB at 10,000 Ingresses (docs/adr/0060).
   */
  private readonly byFile = new Map<string, { sig: string; objects: readonly KubeObject[] }>();
  /**
   * The kind/keys that more than one file defines (assemble; usually none): the later file wins, and a change to one
   * assembles again. A count for every key was 26 MiB at 100,000 Ingresses; a key defined once is the store's.
   */
  private twice = new Set<string>();
  /** The store holds what the files gave (the first read assembles it; later ones change it). */
  private assembled = false;
  /** Files the watcher named since the last read: read again even when their stat signature looks the same. */
  private readonly named = new Set<string>();
  /** The folder's files: their names, stats and parses (and each file's parse errors: what local mode could not read). */
  private readonly files: ManifestFiles;
  /** Creation times and content versions (manifest-stamp.ts). */
  private readonly stamper = new ManifestStamper();

  /** --watch-namespace-selector: only the objects of namespaces whose Namespace object (in the folder) it selects. */
  private readonly selects: LabelMatcher | undefined;
  private selected = '';

  constructor(
    private readonly dir: string,
    private readonly store: Store,
    private readonly log: Logger,
    namespaceSelector?: string,
    /** The build worker's part in a first read (Controller): each file's objects as read, and files it reads itself. */
    private readonly ahead?: SourceAhead,
  ) {
    this.selects = namespaceSelector === undefined ? undefined : parseLabelSelector(namespaceSelector);
    this.files = new ManifestFiles(dir, log);
  }

  /** The files of the folder that did not parse, or held objects that were not usable, with the reasons (file:line). */
  unreadable(): { readonly file: string; readonly errors: readonly string[] }[] {
    const present = new Set(this.byFile.keys());
    return [...this.files.errors].filter(([file]) => present.has(file)).map(([file, errors]) => ({ file, errors }));
  }

  /**
   * Reads the folder once and stops there (`portico render`): nothing is watched, and no object gets a content
   * resourceVersion, which only tells a later read's unchanged objects from changed ones (its JSON and sha256 were
   * ~0.4 s of CPU at 10,000 Ingresses).
   */
  async readOnce(): Promise<void> {
    this.once = true;
    this.stopped = true;
    await this.read();
  }

  /** Reads the folder once (throws if it cannot be read), then watches it. */
  async start(): Promise<void> {
    await this.read();
    this.watcher = watch(this.dir, { persistent: false }, (_event, file) => {
      if (typeof file === 'string') this.named.add(file);
      this.schedule();
    });
    this.watcher.on('error', (err) => {
      this.watchFailed = true;
      this.log.warn({ err: err.message }, 'manifest folder watch failed; polling continues');
    });
    // inotify misses a folder replaced as a whole; a signature poll catches what it misses.
    this.nextPoll();
  }

  /**
   * The next signature poll: every 500 ms, or every 2.5 ms per file with many files (one stat each: at 1,000 files
   * a poll every 500 ms kept the thread that syncs busy often enough to delay endpoint changes), at most 5 s.
   */
  private nextPoll(): void {
    if (this.stopped) return;
    const every = Math.min(5000, Math.max(500, this.byFile.size * 2.5));
    this.poll = setTimeout(() => {
      void this.checkSignature().finally(() => {
        this.nextPoll();
      });
    }, every);
    this.poll.unref();
  }

  stop(): void {
    this.stopped = true;
    this.watcher?.close();
    if (this.poll) clearTimeout(this.poll);
    if (this.debounce) clearTimeout(this.debounce);
  }

  private schedule(): void {
    if (this.debounce) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.reading = this.reading
        .then(() => this.read())
        .catch((err: unknown) => {
          this.log.error({ err: String(err), dir: this.dir }, 'cannot read the manifest folder; keeping the last objects');
        });
    }, 20);
  }

  /**
   * One poll. With more than LIGHT_POLLS_ABOVE files and a working watcher, most polls stat only the folder (a folder
   * replaced, a file added or removed, changes it) and every FULL_POLL_EVERY-th stats every file: at 100,000 files a
   * full poll was 0.3 s of the sync thread's time and its garbage, every 5 s, and fell in the middle of syncs.
   */
  private async checkSignature(): Promise<void> {
    try {
      const folder = await this.files.folderStat();
      const same = folder.ino === this.folder?.ino && folder.mtimeMs === this.folder.mtimeMs;
      const light = !this.watchFailed && this.byFile.size > LIGHT_POLLS_ABOVE && same && this.lightPolls < FULL_POLL_EVERY - 1;
      if (light) {
        this.lightPolls += 1;
        return;
      }
      this.lightPolls = 0;
      this.folder = folder;
      if ((await this.files.signatures(await this.files.names())).join('|') !== this.signature) this.schedule();
    } catch {
      /* the folder is being replaced; the next tick sees it */
    }
  }

  /**
   * Reads the folder: only the files whose stat signature changed (or that the watcher named) are read and parsed
   * again, the others give the objects they gave before, so one changed file of a thousand costs one file's parse.
   * When the watcher named the files, only they (and new ones) are stat'ed; the 500 ms poll stats them all. The store
   * gets the changed files' objects one by one, unless one of their objects is (or was) defined in another file too:
   * then every kind is replaced from all files, which decides which definition wins (the later file).
   */
  private async read(): Promise<void> {
    // taken before the listing: a change after it changes the stamp, and the next poll is a full one
    const folder = await this.files.folderStat().catch(() => undefined);
    // a folder replaced as a whole: the watcher still watches the old one, so every poll is a full one from now on
    if (this.folder !== undefined && folder?.ino !== this.folder.ino) this.watchFailed = true;
    this.folder = folder;
    const names = await this.files.names();
    const named = new Set(this.named);
    this.named.clear();
    const toStat = named.size === 0 || !this.assembled ? names : names.filter((n) => named.has(n) || !this.byFile.has(n));
    const sigs = new Map((await this.files.signatures(toStat)).map((sig, i) => [toStat[i] ?? '', sig] as const));
    const changed: { before: readonly KubeObject[]; after: readonly KubeObject[] }[] = [];
    const seen = new Set(names);
    for (const gone of [...this.byFile.keys()].filter((n) => !seen.has(n))) {
      changed.push({ before: this.byFile.get(gone)?.objects ?? [], after: [] });
      this.byFile.delete(gone);
    }
    const sigOf = (name: string): string => sigs.get(name) ?? this.byFile.get(name)?.sig ?? name;
    const stale = names.filter((name) => this.byFile.get(name)?.sig !== sigOf(name) || named.has(name));
    const { parsed, rest } = await this.readFiles(stale, sigOf);
    const takeAll = (files: ReadonlyMap<string, ParsedObject[] | typeof KEEP>, stamped?: ReadonlyMap<string, StampedFile>): void => {
      for (const name of stale) {
        const cached = this.byFile.get(name);
        const f = stamped?.get(name);
        const read = files.get(name);
        const objects = f ? this.takeStamped(f, sigOf(name)) : read ? this.take(name, sigOf(name), cached, read) : undefined;
        if (objects) changed.push({ before: cached?.objects ?? [], after: objects });
      }
    };
    // what was read here is stamped (and sent ahead) while the build worker reads its part of a first read
    takeAll(parsed);
    const later = await rest?.();
    if (later) takeAll(later.parsed, later.stamped);
    this.signature = names.map((n) => this.byFile.get(n)?.sig ?? n).join('|');
    if (changed.length === 0) return;
    // With a namespace selector a Namespace's labels decide about other files' objects: the whole folder again.
    if (!this.assembled || this.selects !== undefined || !this.applyChanges(changed)) this.assemble(names);
    for (const name of stale) this.shareWithStore(name);
  }

  /**
   * The files of `stale`, parsed, by name; a first read (of a running controller) splits them with the build worker
   * (readFirstSplit), whose part comes later (`rest`), stamped.
   */
  private async readFiles(stale: readonly string[], sigOf: (name: string) => string): Promise<FirstRead> {
    const all = (read: (ParsedObject[] | typeof KEEP)[]): FirstRead => ({ parsed: byName(stale, read) });
    if (this.once) return all(this.files.readAllNow(stale));
    if (this.byFile.size > 0) return all(await this.files.readAll(stale, (name) => this.byFile.has(name)));
    return this.files.readFirstSplit(stale, (name) => sizeIn(sigOf(name)), this.ahead?.read);
  }

  /** A file read here: its objects stamped and kept (and sent ahead); none when it stopped parsing (KEEP). */
  private take(name: string, sig: string, cached: { readonly objects: readonly KubeObject[] } | undefined, read: ParsedObject[] | typeof KEEP): readonly KubeObject[] | undefined {
    if (read === KEEP) {
      // it stopped parsing: its objects stay what they were (ManifestFiles said so), and it is not read again until it changes
      if (cached) this.byFile.set(name, { sig, objects: cached.objects });
      return undefined;
    }
    const earlier = this.earlier(cached?.objects);
    const objects = read.map((p) => {
      const key = keyOf(p.kind, p.object);
      return this.stamper.stamp(p.kind, key, p.object, earlier(p.kind, key), this.once);
    });
    this.byFile.set(name, { sig, objects });
    this.ahead?.preload(objects);
    return objects;
  }

  /** A file the build worker read and stamped (StampedFile): what its parse said, the ages it gave, its objects. */
  private takeStamped(f: StampedFile, sig: string): readonly KubeObject[] {
    this.files.noteParsed(f.name, f);
    for (const o of f.aged) {
      const kind = kindOf(o);
      this.stamper.remember(kind, keyOf(kind, o), o.metadata?.creationTimestamp ?? '');
    }
    this.byFile.set(f.name, { sig, objects: f.objects });
    return f.objects;
  }

  /**
   * A file's entry naming the store's objects where the store holds the same content (the same resourceVersion under
   * the same key); an object the store does not hold so (defined again in a later file, out of the namespace
   * selector's scope) keeps this source's copy. readOnce gives no resourceVersion: nothing is shared, nothing kept long.
   */
  private shareWithStore(name: string): void {
    const entry = this.byFile.get(name);
    if (entry === undefined || this.once) return;
    const objects = entry.objects.map((o) => {
      const kind = kindOf(o);
      const stored = this.store.get(kind, keyOf(kind, o));
      const rv = o.metadata?.resourceVersion;
      return stored !== undefined && stored !== o && rv !== undefined && stored.metadata?.resourceVersion === rv ? stored : o;
    });
    this.byFile.set(name, { sig: entry.sig, objects });
  }

  /**
   * The creationTimestamp the last read gave an object of a kind whose first-seen time is not kept (manifest-stamp.ts):
   * the store's object of that key, else the file's own last one (an object the store does not hold: out of the
   * namespace selector's scope, or defined again in a later file).
   */
  private earlier(before: readonly KubeObject[] | undefined): (kind: Kind, key: string) => string | undefined {
    let mine: Map<string, string | undefined> | undefined;
    return (kind, key) => {
      if (this.once) return undefined;
      const stored = this.store.get(kind, key)?.metadata?.creationTimestamp;
      if (stored !== undefined || before === undefined) return stored;
      mine ??= new Map(before.map((o) => [idOf(o), o.metadata?.creationTimestamp]));
      return mine.get(`${kind}/${key}`);
    };
  }

  /** Every kind replaced from all files (the later file wins a key defined twice); notes the keys defined twice. */
  private assemble(names: readonly string[]): void {
    const byKind = new Map<Kind, Map<string, KubeObject>>();
    for (const kind of Object.keys(KINDS) as Kind[]) byKind.set(kind, new Map());
    const twice = new Set<string>();
    for (const name of names) {
      for (const o of this.byFile.get(name)?.objects ?? []) {
        const kind = kindOf(o);
        const key = keyOf(kind, o);
        const table = byKind.get(kind);
        if (table?.has(key)) {
          this.log.warn({ file: name }, `${kind} ${key} is defined twice; the later one wins`);
          twice.add(`${kind}/${key}`);
        }
        table?.set(key, o);
      }
    }
    this.twice = twice;
    const inScope = this.scope(byKind.get('Namespace'));
    for (const [kind, table] of byKind)
      this.store.replaceKind(
        kind,
        [...table.values()].filter((o) => !KINDS[kind].namespaced || inScope(o.metadata?.namespace ?? 'default')),
      );
    this.assembled = true;
  }

  /** Which namespaces' objects are kept: all, or those of the Namespaces the selector selects (logged when that changes). */
  private scope(namespaces: ReadonlyMap<string, KubeObject> | undefined): (ns: string) => boolean {
    const selects = this.selects;
    if (selects === undefined) return () => true;
    const allowed = new Set([...(namespaces?.values() ?? [])].filter((n) => selects(n.metadata?.labels ?? {})).map((n) => n.metadata?.name ?? ''));
    const list = [...allowed].sort().join(',');
    if (list !== this.selected) this.log.info({ namespaces: [...allowed].sort() }, 'namespaces matching --watch-namespace-selector changed');
    this.selected = list;
    return (ns) => allowed.has(ns);
  }

  /** The changed files' objects into the store one by one; false (nothing done) when a key is defined twice. */
  private applyChanges(changed: readonly { before: readonly KubeObject[]; after: readonly KubeObject[] }[]): boolean {
    const before = new Set<string>();
    for (const c of changed) for (const o of c.before) before.add(idOf(o));
    for (const id of before) if (this.twice.has(id)) return false;
    const after = new Set<string>();
    for (const c of changed) {
      for (const o of c.after) {
        const id = idOf(o);
        if (after.has(id) || this.twice.has(id)) return false;
        after.add(id);
        // a key no changed file had that the store holds: another file defines it too
        const kind = kindOf(o);
        if (!before.has(id) && this.store.get(kind, keyOf(kind, o)) !== undefined) return false;
      }
    }
    // removals first: a key that moved from one changed file to another stays
    for (const c of changed) for (const o of c.before) if (!after.has(idOf(o))) this.store.remove(kindOf(o), o);
    for (const c of changed) for (const o of c.after) this.store.upsert(kindOf(o), o);
    return true;
  }
}
