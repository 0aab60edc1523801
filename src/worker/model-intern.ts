// The strings of a model the main thread received, made one string per distinct value. A structured clone gives every
// string of every object a copy of its own: the namespace, name and upstream of each of 46,000 locations, 'exact',
// 'upstream' and 'Ingress' each time. At 10,000 Ingresses the received model was 28.3 MiB of heap, 22.9 MiB once its
// strings were shared (22 ms), about 55 MiB less at 100,000 (docs/adr/0060). Only equal strings are swapped, in
// place: no object changes identity, and nothing that reads the model can tell.
import type { Location, ObjectRef, Server, Upstream } from '../model/types.js';

/** A received object's fields, written once more with an equal string (the clone's objects are this thread's own). */
type Writable<T> = { -readonly [K in keyof T]: T[K] };

class Strings {
  private readonly seen = new Map<string, string>();
  of(s: string): string {
    const held = this.seen.get(s);
    if (held !== undefined) return held;
    this.seen.set(s, s);
    return s;
  }
}

function internRef(r: ObjectRef, s: Strings): void {
  const w = r as Writable<ObjectRef>;
  w.kind = s.of(r.kind);
  w.namespace = s.of(r.namespace);
  w.name = s.of(r.name);
}

function internLocation(l: Location, s: Strings): void {
  const w = l as Writable<Location>;
  w.match = s.of(l.match) as Location['match'];
  w.path = s.of(l.path);
  const t = l.target as Writable<Location['target']>;
  t.kind = s.of(t.kind) as typeof t.kind;
  if (t.kind === 'upstream') {
    t.upstream = s.of(t.upstream);
    internRef(t.ingress, s);
    if (t.rule !== undefined) (t.rule as { path: string }).path = s.of(t.rule.path);
  }
}

/** Shares the strings of the servers, upstreams and Ingress references that crossed in one model delta. */
export function internReceived(servers: readonly Server[], upstreams: readonly Upstream[], ingresses: readonly ObjectRef[]): void {
  const s = new Strings();
  for (const server of servers) {
    (server as Writable<Server>).host = s.of(server.host);
    for (const l of server.locations) internLocation(l, s);
  }
  for (const u of upstreams) {
    const w = u as Writable<Upstream>;
    w.name = s.of(u.name);
    internRef(u.service, s);
    w.loadBalance = s.of(u.loadBalance) as Upstream['loadBalance'];
    w.hashBy = s.of(u.hashBy);
  }
  for (const r of ingresses) internRef(r, s);
}
