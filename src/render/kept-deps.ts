// The objects a server's rendered parts are made of besides the server and the render context (render/memo.ts keys
// the same things by content): its host's TLS entry, the TLS policy of the Ingresses its paths belong to, and the
// upstreams it reads. A part kept by server object is reused only while these are the same objects (docs/adr/0043).
import { refKey } from '../model/keys.js';
import type { TlsModel } from '../model/tls-types.js';
import type { Server, Upstream } from '../model/types.js';
import { tlsServerOf } from './tls.js';

interface Refs {
  /** The Ingresses its paths belong to (`namespace/name`), each once. */
  readonly owners: readonly string[];
  /** The upstreams its paths proxy to, each once, in location order. */
  readonly targets: readonly string[];
}

/** Per server object: model objects are never changed once built (model/content-key.ts), so neither are these. */
const refsOf = new WeakMap<Server, Refs>();

/** The Ingresses and upstreams `s`'s paths name (render/memo.ts's content keys read the same). */
export function serverRefs(s: Server): Refs {
  let r = refsOf.get(s);
  if (r === undefined) {
    const owners = new Set<string>();
    const targets = new Set<string>();
    for (const l of s.locations) {
      if (l.target.kind !== 'upstream') continue;
      owners.add(refKey(l.target.ingress.namespace, l.target.ingress.name));
      targets.add(l.target.upstream);
    }
    r = { owners: [...owners], targets: [...targets] };
    refsOf.set(s, r);
  }
  return r;
}

/**
 * Gives `visit` each object `s`'s block or route entry depends on, in a stable order, until it answers false (then
 * false); `names`: the upstreams it reads (default: its targets').
 */
function eachDep(s: Server, tls: TlsModel, upstreams: ReadonlyMap<string, Upstream>, names: Iterable<string> | undefined, visit: (dep: unknown) => boolean): boolean {
  const r = serverRefs(s);
  if (!visit(tlsServerOf(tls, s.host) ?? null)) return false;
  for (const k of r.owners) if (!visit(tls.ingresses[k] ?? null)) return false;
  for (const n of names ?? r.targets) if (!visit(n) || !visit(upstreams.get(n) ?? null)) return false;
  return true;
}

/** The objects `s`'s block or route entry depends on, in a stable order; `names`: the upstreams it reads (default: its targets'). */
export function keptDeps(s: Server, tls: TlsModel, upstreams: ReadonlyMap<string, Upstream>, names?: Iterable<string>): unknown[] {
  const deps: unknown[] = [];
  eachDep(s, tls, upstreams, names, (d) => {
    deps.push(d);
    return true;
  });
  return deps;
}

/**
 * Whether keptDeps(s, tls, upstreams) would be the same objects as `old`, in order, without making that array: at
 * 100,000 Ingresses an incremental build asks it of every kept dynamic host (0.1 s of arrays and their garbage).
 */
export function sameDeps(old: readonly unknown[], s: Server, tls: TlsModel, upstreams: ReadonlyMap<string, Upstream>): boolean {
  let i = 0;
  return eachDep(s, tls, upstreams, undefined, (d) => old[i++] === d) && i === old.length;
}
