// Resolves the names of ExternalName Services for the model (docs/adr/0019): every address of each name, again every
// refresh interval; a changed answer asks for a sync. The only DNS Portico does: nginx never resolves a backend.
import { lookup } from 'node:dns/promises';
import type { Logger } from '../log.js';
import type { ResolvedName } from '../model/input.js';

/** Every address of a name (IPv4 and IPv6, as the system resolver answers: the hosts file, then DNS). */
export type Lookup = (name: string) => Promise<string[]>;

const systemLookup: Lookup = async (name) => (await lookup(name, { all: true, verbatim: true })).map((a) => a.address);

/** Answers that say the name has no address (anything else, e.g. EAI_AGAIN, may pass: the last answer is kept). */
const NOT_FOUND = new Set(['ENOTFOUND', 'ENODATA', 'EAI_NONAME', 'EAI_NODATA']);

/** Lookups under way at once: getaddrinfo holds a libuv pool thread (4 by default, shared with file I/O) until it ends. */
const PARALLEL = 2;

export interface ResolverOptions {
  /** Every name is resolved again this often. */
  readonly refreshMs: number;
  readonly log: Logger;
  /** Called when an answer changed (`version` tells whether a sync already took it): mark a sync. */
  readonly changed: () => void;
  /** The system resolver unless given (tests of the bounds). */
  readonly lookup?: Lookup;
}

const codeOf = (err: unknown): string => {
  const e = err as { code?: unknown; message?: unknown } | null;
  return typeof e?.code === 'string' ? e.code : typeof e?.message === 'string' ? e.message : String(err);
};

const same = (a: ResolvedName | undefined, b: ResolvedName): boolean =>
  a !== undefined && a.error === b.error && a.addresses.length === b.addresses.length && a.addresses.every((x, i) => x === b.addresses[i]);

/** The names the model asks for, resolved in the background; `current()` is what a snapshot carries. */
export class ExternalNameResolver {
  private wanted = new Set<string>();
  private readonly answers = new Map<string, ResolvedName>();
  private list: readonly ResolvedName[] = Object.freeze([]);
  private readonly queue: string[] = [];
  private readonly running = new Map<string, Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** Moves whenever current() changes: a sync that took this version needs no other for it. */
  version = 0;

  constructor(private readonly opts: ResolverOptions) {}

  /** The names in use now: new ones are resolved at once, names no longer in use are forgotten. */
  want(names: readonly string[]): void {
    if (this.stopped) return;
    const next = new Set(names);
    let dropped = false;
    for (const name of [...this.answers.keys()]) {
      if (next.has(name)) continue;
      this.answers.delete(name);
      dropped = true;
    }
    this.wanted = next;
    if (dropped) this.publish();
    for (const name of next) if (!this.answers.has(name)) this.enqueue(name, true);
    if (next.size > 0 && this.timer === undefined) {
      this.timer = setInterval(() => {
        for (const name of this.wanted) this.enqueue(name);
      }, this.opts.refreshMs);
      this.timer.unref();
    } else if (next.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer);
      this.timer = undefined;
    }
  }

  /**
   * Waits until every name in use has an answer, at most `ms`: a new Service's name is in the sync that first sees it.
   * A sync never waits for the periodic lookups of names already answered.
   */
  async settled(ms: number): Promise<void> {
    const until = Date.now() + ms;
    const unanswered = (): boolean => [...this.wanted].some((n) => !this.answers.has(n));
    // Bounded: each round waits for one lookup to end, and the rounds end with the deadline.
    for (let i = 0; i < 1000 && this.running.size > 0 && unanswered() && Date.now() < until; i++) {
      let t: NodeJS.Timeout | undefined;
      await Promise.race([Promise.race(this.running.values()), new Promise<void>((r) => (t = setTimeout(r, until - Date.now())))]);
      clearTimeout(t);
    }
  }

  /** The answers, one per name in use; the same array until one changes. */
  current(): readonly ResolvedName[] {
    return this.list;
  }

  stop(): void {
    this.stopped = true;
    if (this.timer !== undefined) clearInterval(this.timer);
    this.queue.length = 0;
  }

  private publish(): void {
    this.list = Object.freeze([...this.answers.values()].sort((a, b) => a.name.localeCompare(b.name)));
    this.version += 1;
  }

  /** Queues a lookup of `name` unless one is queued or under way; `first`: a new name goes before the refreshes. */
  private enqueue(name: string, first = false): void {
    if (this.running.has(name)) return;
    const at = this.queue.indexOf(name);
    if (at !== -1 && !first) return;
    if (at !== -1) this.queue.splice(at, 1);
    if (first) this.queue.unshift(name);
    else this.queue.push(name);
    this.next();
  }

  private next(): void {
    while (!this.stopped && this.running.size < PARALLEL && this.queue.length > 0) {
      const name = this.queue.shift() ?? '';
      const done = this.resolve(name).finally(() => {
        this.running.delete(name);
        this.next();
      });
      this.running.set(name, done);
    }
  }

  /**
   * One name. A complete name (trailing dot) is looked up as written; when it is not found, without the dot, because
   * the hosts file lists names without one (the resolver's search list may then apply).
   */
  private async resolve(name: string): Promise<void> {
    const look = this.opts.lookup ?? systemLookup;
    let answer: ResolvedName;
    try {
      let addresses: string[];
      try {
        addresses = await look(name);
      } catch (err) {
        if (!(name.endsWith('.') && NOT_FOUND.has(codeOf(err)))) throw err;
        addresses = await look(name.slice(0, -1));
      }
      const unique = [...new Set(addresses)].sort();
      answer = unique.length > 0 ? { name, addresses: unique } : { name, addresses: [], error: 'ENODATA' };
    } catch (err) {
      const code = codeOf(err);
      const last = this.answers.get(name);
      // A failure that is not an answer (a timeout, no server) keeps the last addresses: they are still the best known.
      if (last !== undefined && last.error === undefined && !NOT_FOUND.has(code)) {
        this.opts.log.warn({ name, err: code }, 'ExternalName lookup failed; its last addresses are kept');
        return;
      }
      answer = { name, addresses: [], error: code };
    }
    if (this.stopped || !this.wanted.has(name) || same(this.answers.get(name), answer)) return;
    this.answers.set(name, Object.freeze({ ...answer, addresses: Object.freeze(answer.addresses) }));
    this.publish();
    this.opts.log.debug({ name, addresses: answer.addresses, err: answer.error }, 'ExternalName resolved');
    this.opts.changed();
  }
}
