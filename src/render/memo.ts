// Server blocks kept between renders: owned by the caller (the build worker's stage) and passed in through
// RenderOptions, so renderNginxConf stays a function of its input (the same model gives the same text with or
// without a memo). A block is reused only when everything it was rendered from is equal: the render context
// (options, TLS settings, stream, Gateway table, dynamic split), the server and its host's TLS entries (the key), and
// every upstream the block read, compared without endpoints (nginx.conf never holds HTTP endpoints).
import { sha256 } from '../hash.js';
import type { Server, Upstream } from '../model/types.js';
import { IdentityMemo } from './identity-memo.js';
import type { ServerFacts } from './server-facts.js';
import type { SplitState } from './split-delta.js';

/** A rendered server block: its text and where each of its locations is in it (0-based lines, first and last). */
export interface BlockText {
  readonly text: string;
  readonly marks: readonly (readonly [number, number])[];
}

export interface Block extends BlockText {
  /** The upstreams the block read, by name, each as upstreamKey gave it. */
  readonly upstreams: ReadonlyMap<string, string>;
}

/** An upstream as a server block depends on it. */
export function upstreamKey(u: Upstream | undefined): string {
  return u === undefined ? '-' : JSON.stringify({ ...u, endpoints: [] });
}

/** One host's part of the dynamic split (render/dynamic-routes.ts): whether its server may be dynamic, its entry. */
export interface RouteEntry {
  /** The server's own eligibility (model/dynamic.ts dynamicHosts' first two rules). */
  readonly eligible: boolean;
  /** The host's route table entry as JSON ('' when not eligible). */
  readonly json: string;
  /** The profiles (block → named location) its targets run in. */
  readonly profiles: readonly (readonly [string, string])[];
}

/**
 * What both memos share: values by key for one render, kept for the next only when that render used them, and
 * forgotten whole when the render context changes.
 */
class Generations<V> {
  private context: string | undefined;
  private kept = new Map<string, V>();
  private next = new Map<string, V>();
  /** Values kept under a key made later (keepLater), each with the map it belongs to. */
  private later: { readonly map: Map<string, V>; readonly key: () => string; readonly value: V }[] = [];
  /** This render has nothing to find by content (the first, or the first in a new context): keepLater may be used. */
  blank = true;
  /** Values reused and made by the last render (bench/scale-profile reports them). */
  stats = { reused: 0, made: 0 };

  /** Starts a render in `context`; a different context forgets every value. */
  begin(context: string): void {
    if (context === this.context) this.settle();
    else {
      this.kept = new Map();
      this.later = [];
    }
    this.context = context;
    this.next = new Map();
    this.blank = this.kept.size === 0;
    this.stats = { reused: 0, made: 0 };
  }

  /**
   * Starts a render that keeps every value of the last one as well (a render that takes most of its values from
   * elsewhere: render/split-delta.ts); a different context forgets every value, as begin() does.
   */
  extend(context: string): void {
    this.begin(context);
    this.next = this.kept;
  }

  /** The value kept for `key` by the last render or this one. */
  find(key: string): V | undefined {
    this.settle();
    return this.kept.get(key) ?? this.next.get(key);
  }

  /**
   * `value` is this render's, under the key `key` gives, made when a later render begins or a key is looked up: a
   * render with nothing to find (blank) keys its values for the next one only. At 10,000 Ingresses the first build's
   * route entry keys (each host's entry input, serialized and hashed) were 0.15-0.2 s of the build worker's first sync,
   * on the way to every route being served; made later, they fall in the worker's warm-up (docs/adr/0065).
   */
  keepLater(key: () => string, value: V): V {
    this.later.push({ map: this.next, key, value });
    this.stats.made += 1;
    return value;
  }

  /** The keys keepLater put off, made and filed. */
  private settle(): void {
    if (this.later.length === 0) return;
    const later = this.later;
    this.later = [];
    for (const { map, key, value } of later) map.set(key(), value);
  }

  /** `value` is this render's for `key`; `reused` when it came from find(). */
  keep(key: string, value: V, reused: boolean): V {
    this.next.set(key, value);
    if (reused) this.stats.reused += 1;
    else this.stats.made += 1;
    return value;
  }

  /** Ends the render: only the values it used are kept (one configuration's worth). */
  end(): void {
    this.kept = this.next;
    this.next = new Map();
  }
}

/**
 * Route table entries kept between renders, as RenderMemo keeps server blocks: an entry is reused only when its key
 * (the server, its host's TLS entries, the upstreams its targets name without endpoints: render/route-entries.ts entryInput) and
 * the render context are equal. Only the entries of the last whole split are kept, with those made by the splits made
 * from it since (render/split-delta.ts), until the next whole one.
 */
export class RouteMemo extends Generations<RouteEntry> {
  /** The last split, for the next to start from (render/split-delta.ts); undefined: the next one is whole. */
  split: SplitState | undefined;

  /** Entries by server object, with their content key (docs/adr/0043): a kept server is neither serialized nor hashed. */
  readonly byServer = new IdentityMemo<Server, { readonly key: string; readonly entry: RouteEntry }>();

  entry(input: string, make: () => RouteEntry): RouteEntry {
    return this.keyed(input, make).entry;
  }

  /** The entry of `input` with its key. */
  keyed(input: string, make: () => RouteEntry): { readonly key: string; readonly entry: RouteEntry } {
    const key = sha256(input);
    const old = this.find(key);
    return { key, entry: this.keep(key, old ?? make(), old !== undefined) };
  }

  /**
   * keyed(), but in a blank render (nothing to find by content) without a key yet: the entry is made now, its key
   * (`input`, hashed) when first asked for, at the latest when the next render begins. `input` is let go once read.
   */
  keyedLater(input: () => string, make: () => RouteEntry): { readonly key: string; readonly entry: RouteEntry } {
    if (!this.blank) return this.keyed(input(), make);
    let from: (() => string) | undefined = input;
    let key: string | undefined;
    const keyOf = (): string => {
      if (key === undefined) {
        key = sha256(from?.() ?? '');
        from = undefined;
      }
      return key;
    };
    const entry = this.keepLater(keyOf, make());
    return {
      get key(): string {
        return keyOf();
      },
      entry,
    };
  }

  /** An entry found by identity is this render's too, so a later render of equal new objects finds it by content. */
  carry(key: string, entry: RouteEntry): RouteEntry {
    return this.keep(key, entry, true);
  }
}

export class RenderMemo extends Generations<Block> {
  /** The dynamic split's entries (--enable-dynamic-routes). */
  readonly routes = new RouteMemo();
  /** Blocks by server object, with their content key (docs/adr/0043). */
  readonly byServer = new IdentityMemo<Server, { readonly key: string; readonly block: Block }>();
  /** What the http-level scans read of each server (render/server-facts.ts), by server object. */
  readonly facts = new IdentityMemo<Server, ServerFacts>();

  /**
   * The block of `input` (the server and its TLS entries, serialized), reused when the upstreams it read are equal,
   * else made by `render`, which reads upstreams only through the `get` it is given.
   */
  block(input: string, upstreams: ReadonlyMap<string, Upstream>, render: (get: (name: string) => Upstream | undefined) => BlockText): BlockText {
    return this.keyed(input, upstreams, render).block;
  }

  /** The block of `input` with its key (block()). */
  keyed(input: string, upstreams: ReadonlyMap<string, Upstream>, render: (get: (name: string) => Upstream | undefined) => BlockText): { readonly key: string; readonly block: Block } {
    const key = sha256(input);
    return { key, block: this.made(key, upstreams, render) };
  }

  /** A block found by identity is this render's too (RouteMemo.carry). */
  carry(key: string, block: Block): Block {
    return this.keep(key, block, true);
  }

  private made(key: string, upstreams: ReadonlyMap<string, Upstream>, render: (get: (name: string) => Upstream | undefined) => BlockText): Block {
    const old = this.find(key);
    if (old && [...old.upstreams].every(([name, k]) => upstreamKey(upstreams.get(name)) === k)) return this.keep(key, old, true);
    const read = new Map<string, string>();
    const made = render((name) => {
      const u = upstreams.get(name);
      read.set(name, upstreamKey(u));
      return u;
    });
    return this.keep(key, { ...made, upstreams: read }, false);
  }
}
