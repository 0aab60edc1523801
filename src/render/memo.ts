// Server blocks kept between renders: owned by the caller (the build worker's stage) and passed in through
// RenderOptions, so renderNginxConf stays a function of its input (the same model gives the same text with or
// without a memo). A block is reused only when everything it was rendered from is equal: the render context
// (options, TLS settings, stream, Gateway table, dynamic split), the server and its host's TLS entries (the key), and
// every upstream the block read, compared without endpoints (nginx.conf never holds HTTP endpoints).
import { sha256 } from '../hash.js';
import type { Upstream } from '../model/types.js';

interface Block {
  readonly text: string;
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
 * Route table entries kept between renders, as RenderMemo keeps server blocks: an entry is reused only when its key
 * (the server, its host's TLS entries, the upstreams its targets name without endpoints: render/dynamic-routes.ts) and
 * the render context are equal. Only the entries of the last render are kept.
 */
export class RouteMemo {
  private context: string | undefined;
  private entries = new Map<string, RouteEntry>();
  private next = new Map<string, RouteEntry>();
  stats = { reused: 0, made: 0 };

  begin(context: string): void {
    if (context !== this.context) this.entries = new Map();
    this.context = context;
    this.next = new Map();
    this.stats = { reused: 0, made: 0 };
  }

  entry(input: string, make: () => RouteEntry): RouteEntry {
    const key = sha256(input);
    let e = this.entries.get(key) ?? this.next.get(key);
    if (e) this.stats.reused += 1;
    else {
      e = make();
      this.stats.made += 1;
    }
    this.next.set(key, e);
    return e;
  }

  end(): void {
    this.entries = this.next;
    this.next = new Map();
  }
}

export class RenderMemo {
  /** The dynamic split's entries (--enable-dynamic-routes). */
  readonly routes = new RouteMemo();
  private context: string | undefined;
  private blocks = new Map<string, Block>();
  private next = new Map<string, Block>();
  /** Blocks reused and rendered by the last render (bench/scale-profile reports them). */
  stats = { reused: 0, rendered: 0 };

  /** Starts a render in `context`; a different context forgets every block. */
  begin(context: string): void {
    if (context !== this.context) this.blocks = new Map();
    this.context = context;
    this.next = new Map();
    this.stats = { reused: 0, rendered: 0 };
  }

  /**
   * The block of `input` (the server and its TLS entries, serialized), reused when the upstreams it read are equal,
   * else made by `render`, which reads upstreams only through the `get` it is given.
   */
  block(input: string, upstreams: ReadonlyMap<string, Upstream>, render: (get: (name: string) => Upstream | undefined) => string): string {
    const key = sha256(input);
    const old = this.blocks.get(key) ?? this.next.get(key);
    if (old && [...old.upstreams].every(([name, k]) => upstreamKey(upstreams.get(name)) === k)) {
      this.next.set(key, old);
      this.stats.reused += 1;
      return old.text;
    }
    const read = new Map<string, string>();
    const text = render((name) => {
      const u = upstreams.get(name);
      read.set(name, upstreamKey(u));
      return u;
    });
    this.next.set(key, { text, upstreams: read });
    this.stats.rendered += 1;
    return text;
  }

  /** Ends the render: only the blocks it used are kept (the memo holds one configuration's worth). */
  end(): void {
    this.blocks = this.next;
    this.next = new Map();
  }
}
