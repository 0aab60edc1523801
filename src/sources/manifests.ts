// Local mode's source: a folder of manifests, read whole and watched; it feeds the store like the API would.
import { sha256 } from '../hash.js';
import { readdir, readFile, stat } from 'node:fs/promises';
import { watch, type FSWatcher } from 'node:fs';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { Store } from '../store/store.js';
import { KINDS, keyOf, type Kind, type KubeObject } from '../store/kinds.js';
import { parseManifests, type ParsedObject } from './parse.js';

const EXTENSIONS = /\.(ya?ml|json)$/i;

/** Reads every manifest in a folder into the store, and again whenever the folder changes. */
export class ManifestSource {
  private watcher: FSWatcher | undefined;
  private poll: NodeJS.Timeout | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private signature = '';
  private reading: Promise<void> = Promise.resolve();
  /** Last good objects of each file, kept while the file does not parse. */
  private readonly lastGood = new Map<string, ParsedObject[]>();
  /** First time each object was seen: its creationTimestamp when the manifest gives none. */
  private readonly firstSeen = new Map<string, string>();

  constructor(
    private readonly dir: string,
    private readonly store: Store,
    private readonly log: Logger,
  ) {}

  /** Reads the folder once (throws if it cannot be read), then watches it. */
  async start(): Promise<void> {
    await this.read();
    this.watcher = watch(this.dir, { persistent: false }, () => {
      this.schedule();
    });
    this.watcher.on('error', (err) => {
      this.log.warn({ err: err.message }, 'manifest folder watch failed; polling continues');
    });
    // inotify misses a folder replaced as a whole; a cheap signature poll catches what it misses.
    this.poll = setInterval(() => {
      void this.checkSignature();
    }, 500);
    this.poll.unref();
  }

  stop(): void {
    this.watcher?.close();
    if (this.poll) clearInterval(this.poll);
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
    }, 50);
  }

  private async files(): Promise<string[]> {
    const entries = await readdir(this.dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && EXTENSIONS.test(e.name) && !e.name.startsWith('.'))
      .map((e) => e.name)
      .sort();
  }

  private async currentSignature(names: readonly string[]): Promise<string> {
    const parts = await Promise.all(
      names.map(async (n) => {
        const s = await stat(join(this.dir, n)).catch(() => undefined);
        return s ? `${n}:${s.size}:${s.mtimeMs}:${s.ino}` : n;
      }),
    );
    return parts.join('|');
  }

  private async checkSignature(): Promise<void> {
    try {
      if ((await this.currentSignature(await this.files())) !== this.signature) this.schedule();
    } catch {
      /* the folder is being replaced; the next tick sees it */
    }
  }

  private async read(): Promise<void> {
    const names = await this.files();
    this.signature = await this.currentSignature(names);
    const byKind = new Map<Kind, Map<string, KubeObject>>();
    for (const kind of Object.keys(KINDS) as Kind[]) byKind.set(kind, new Map());
    for (const name of names) {
      for (const p of await this.readFile(name)) {
        const key = keyOf(p.kind, p.object);
        const table = byKind.get(p.kind);
        if (table?.has(key)) this.log.warn({ where: p.where }, `${p.kind} ${key} is defined twice; the later one wins`);
        table?.set(key, this.stamp(p.kind, key, p.object));
      }
    }
    for (const [kind, table] of byKind) this.store.replaceKind(kind, [...table.values()]);
  }

  private async readFile(name: string): Promise<ParsedObject[]> {
    let text: string;
    try {
      text = await readFile(join(this.dir, name), 'utf8');
    } catch {
      return []; // removed between readdir and read: the next event reads the folder again
    }
    const result = parseManifests(name, text);
    for (const line of result.ignored) this.log.debug(`ignoring ${line}: not a kind Portico reads`);
    for (const e of result.errors) this.log.error({ file: join(this.dir, name) }, `bad manifest: ${e}`);
    if (result.syntaxError && this.lastGood.has(name)) {
      this.log.warn({ file: name }, 'keeping the objects this file had before it stopped parsing');
      return this.lastGood.get(name) ?? [];
    }
    this.lastGood.set(name, result.objects);
    return result.objects;
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
    const rv = sha256(JSON.stringify(obj), 16);
    return { ...obj, metadata: { ...meta, creationTimestamp: created, resourceVersion: rv } };
  }
}
