// Local mode's source: a folder of manifests, read whole and watched; it feeds the store like the API would.
import { randomBytes } from 'node:crypto';
import { sha256 } from '../hash.js';
import { watch, type FSWatcher } from 'node:fs';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { compactText, KINDS, keyOf, nothingToDrop, type Kind, type KubeObject } from '../store/kinds.js';
import type { ParsedObject } from './parse.js';
import { KEEP, ManifestFiles, type FolderStat } from './manifest-files.js';
import { parseLabelSelector, type LabelMatcher } from './selector.js';

/** The content version's placeholder while it is digested (stamp): a per-process nonce no manifest holds. */
const PLACEHOLDER = `\u0000portico-rv-${randomBytes(12).toString('hex')}`;
const PLACEHOLDER_JSON = JSON.stringify(PLACEHOLDER);

/**
 * Above this many files, a poll between full ones stats only the folder (checkSignature). At 1,001 files a full poll
 * every 2.5 s was 400 stat calls a second at rest and their garbage, which kept V8 from seeing the sync thread as
 * quiet and shrinking its young generation (collect.ts settle): 24 MiB of RSS (docs/adr/0058).
 */
const LIGHT_POLLS_ABOVE = 100;
/** Every this-many-th poll stats every file (every 30 s at 5 s a poll). */
const FULL_POLL_EVERY = 6;
/** A parsed object with its store key, stamped as the API server would (ManifestSource.stamp). */
type StampedObject = ParsedObject & { readonly key: string };

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
   */
  private readonly byFile = new Map<string, { sig: string; objects: StampedObject[] }>();
  /** How many files define each kind/key (assemble); more than one: the later file wins, and a change assembles again. */
  private definitions = new Map<string, number>();
  /** The store holds what the files gave (the first read assembles it; later ones change it). */
  private assembled = false;
  /** Files the watcher named since the last read: read again even when their stat signature looks the same. */
  private readonly named = new Set<string>();
  /** The folder's files: their names, stats and parses (and each file's parse errors: what local mode could not read). */
  private readonly files: ManifestFiles;
  /** First time each object was seen: its creationTimestamp when the manifest gives none. */
  private readonly firstSeen = new Map<string, string>();

  /** --watch-namespace-selector: only the objects of namespaces whose Namespace object (in the folder) it selects. */
  private readonly selects: LabelMatcher | undefined;
  private selected = '';

  constructor(
    private readonly dir: string,
    private readonly store: Store,
    private readonly log: Logger,
    namespaceSelector?: string,
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
    const changed: { before: readonly StampedObject[]; after: readonly StampedObject[] }[] = [];
    const seen = new Set(names);
    for (const gone of [...this.byFile.keys()].filter((n) => !seen.has(n))) {
      changed.push({ before: this.byFile.get(gone)?.objects ?? [], after: [] });
      this.byFile.delete(gone);
    }
    const sigOf = (name: string): string => sigs.get(name) ?? this.byFile.get(name)?.sig ?? name;
    const stale = names.filter((name) => this.byFile.get(name)?.sig !== sigOf(name) || named.has(name));
    const parsed = this.once ? this.files.readAllNow(stale) : this.byFile.size === 0 ? await this.files.readFirst(stale) : await this.files.readAll(stale, (name) => this.byFile.has(name));
    for (const [i, name] of stale.entries()) {
      const cached = this.byFile.get(name);
      const sig = sigOf(name);
      const read = parsed[i] ?? [];
      if (read === KEEP) {
        // it stopped parsing: its objects stay what they were (ManifestFiles said so), and it is not read again until it changes
        if (cached) this.byFile.set(name, { sig, objects: cached.objects });
        continue;
      }
      const objects = read.map((p) => {
        const key = keyOf(p.kind, p.object);
        // a literal of all four fields: a spread of p and two more made each entry an object with a hidden class of
        // its own and its fields in a second array (7 MiB at 10,000 Ingresses, kept as long as the folder is watched)
        return { kind: p.kind, object: this.stamp(p.kind, key, p.object), where: p.where, key };
      });
      this.byFile.set(name, { sig, objects });
      changed.push({ before: cached?.objects ?? [], after: objects });
    }
    this.signature = names.map((n) => this.byFile.get(n)?.sig ?? n).join('|');
    if (changed.length === 0) return;
    // With a namespace selector a Namespace's labels decide about other files' objects: the whole folder again.
    if (!this.assembled || this.selects !== undefined || !this.applyChanges(changed)) this.assemble(names);
    for (const name of stale) this.shareWithStore(name);
  }

  /**
   * A file's entry naming the store's objects where the store holds the same content (the same resourceVersion under
   * the same key); an object the store does not hold so (defined again in a later file, out of the namespace
   * selector's scope) keeps this source's copy. readOnce gives no resourceVersion: nothing is shared, nothing kept long.
   */
  private shareWithStore(name: string): void {
    const entry = this.byFile.get(name);
    if (entry === undefined || this.once) return;
    const objects = entry.objects.map((p) => {
      const stored = this.store.get(p.kind, p.key);
      const rv = p.object.metadata?.resourceVersion;
      return stored !== undefined && stored !== p.object && rv !== undefined && stored.metadata?.resourceVersion === rv ? { ...p, object: stored } : p;
    });
    this.byFile.set(name, { sig: entry.sig, objects });
  }

  /** Every kind replaced from all files (the later file wins a key defined twice); counts each key's definitions. */
  private assemble(names: readonly string[]): void {
    const byKind = new Map<Kind, Map<string, KubeObject>>();
    for (const kind of Object.keys(KINDS) as Kind[]) byKind.set(kind, new Map());
    this.definitions.clear();
    for (const name of names) {
      for (const p of this.byFile.get(name)?.objects ?? []) {
        const table = byKind.get(p.kind);
        if (table?.has(p.key)) this.log.warn({ where: p.where }, `${p.kind} ${p.key} is defined twice; the later one wins`);
        table?.set(p.key, p.object);
        const id = `${p.kind}/${p.key}`;
        this.definitions.set(id, (this.definitions.get(id) ?? 0) + 1);
      }
    }
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
  private applyChanges(changed: readonly { before: readonly StampedObject[]; after: readonly StampedObject[] }[]): boolean {
    const id = (p: StampedObject): string => `${p.kind}/${p.key}`;
    // the definition counts of the changed files' keys only (a copy of all 30,000 at 10,000 Ingresses is not needed)
    const counts = new Map<string, number>();
    for (const { before, after } of changed) for (const p of [...before, ...after]) counts.set(id(p), this.definitions.get(id(p)) ?? 0);
    if ([...counts.values()].some((n) => n > 1)) return false;
    for (const { before, after } of changed) {
      for (const p of before) counts.set(id(p), (counts.get(id(p)) ?? 1) - 1);
      for (const p of after) counts.set(id(p), (counts.get(id(p)) ?? 0) + 1);
    }
    if ([...counts.values()].some((n) => n > 1)) return false;
    for (const [key, n] of counts) {
      if (n <= 0) this.definitions.delete(key);
      else this.definitions.set(key, n);
    }
    // removals first: a key that moved from one changed file to another stays
    const kept = new Set(changed.flatMap(({ after }) => after.map(id)));
    for (const { before } of changed) for (const p of before) if (!kept.has(id(p))) this.store.remove(p.kind, p.object);
    for (const { after } of changed) for (const p of after) this.store.upsert(p.kind, p.object);
    return true;
  }

  /** Gives a manifest what the API server would: a creationTimestamp when missing, and a content resourceVersion. */
  private stamp(kind: Kind, key: string, obj: KubeObject): KubeObject {
    const id = `${kind}/${key}`;
    const meta = obj.metadata ?? {};
    let created = meta.creationTimestamp;
    if (created === undefined) {
      created = this.firstSeen.get(id) ?? new Date().toISOString();
      this.firstSeen.set(id, created);
    }
    if (this.once && obj.metadata !== undefined) {
      // read once: the object and its metadata are parse.ts's copies, this source's alone; set in place, not copied again
      if (meta.creationTimestamp === undefined) (meta as { creationTimestamp?: string }).creationTimestamp = created;
      return obj;
    }
    if (obj.metadata === undefined) return { ...obj, metadata: { creationTimestamp: created, resourceVersion: sha256(JSON.stringify(obj), 16) } };
    // The object and its metadata are parse.ts's copies, this source's alone: stamped in place. The content version is
    // the digest of the object's JSON with a placeholder for itself; that JSON, the placeholder replaced, is the
    // stored object's own (compactText), so each object is stringified once.
    const m = obj.metadata as { creationTimestamp?: string; resourceVersion?: string };
    m.creationTimestamp = created;
    m.resourceVersion = PLACEHOLDER;
    const text = JSON.stringify(obj);
    const rv = sha256(text, 16);
    m.resourceVersion = rv;
    if (!nothingToDrop(obj, kind)) return obj; // the store trims a copy
    const at = text.indexOf(PLACEHOLDER_JSON);
    if (at < 0) return obj;
    return compactText(`${text.slice(0, at)}${JSON.stringify(rv)}${text.slice(at + PLACEHOLDER_JSON.length)}`, kind);
  }
}
