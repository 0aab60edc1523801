// What Lua holds, kind by kind (apply/lua-store.ts), and the pushes a plan makes of it: the ones before a reload
// (what the new workers need from their first request), the ones after, and the backends a startup whole pushes ahead
// of its sync. The executor (apply/executor.ts) decides when; this knows how.
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import type { Model } from '../model/types.js';
import type { RenderedConf } from '../render/nginx-conf.js';
import { entryProfiles } from '../render/route-push.js';
import { backendsText } from '../render/lua-payload.js';
import type { Nginx, Rejected } from '../nginx/process.js';
import type { CertificatesState } from '../tls/sync.js';
import { BACKENDS, CERTIFICATES, LuaStore, ROUTES, wholeOnly, type StoreKind } from './lua-store.js';

/** A built and rendered configuration with the payloads Lua gets, ready to apply. */
export interface Candidate {
  readonly model: Model;
  readonly conf: RenderedConf;
  readonly backends: string;
  /** The same backends one JSON text per name (controller/backend-ids.ts): lets a push send only the changed ones. */
  readonly entries?: ReadonlyMap<string, string>;
  readonly certs: CertificatesState;
}

/** The configuration nginx served before a plan: its model, and its conf when known. */
export type Previous = { readonly model: Model; readonly conf?: RenderedConf } | undefined;

/** What Lua dropped from the last push of each payload (reported as Problems; empty while TS and Lua agree). */
export interface Dropped {
  backends: Rejected[];
  certificates: Rejected[];
}

export class LuaPushes {
  private readonly backends: LuaStore;
  private readonly routes: LuaStore;
  private readonly certificates: LuaStore;
  private readonly gateway: LuaStore;

  constructor(
    nginx: Pick<Nginx, 'pushRaw'>,
    private readonly log: Logger,
  ) {
    const store = (kind: StoreKind): LuaStore => new LuaStore(nginx, kind, log);
    [this.backends, this.routes, this.certificates, this.gateway] = [store(BACKENDS), store(ROUTES), store(CERTIFICATES), store(wholeOnly('gateway'))];
  }

  get dropped(): Dropped {
    return { backends: this.backends.dropped, certificates: this.certificates.dropped };
  }

  /** nginx restarted or a push failed: what Lua holds is unknown, and every next push is whole. */
  forget(): void {
    for (const store of [this.backends, this.routes, this.certificates, this.gateway]) store.forget();
  }

  /** `entries` added to the backends Lua holds as one whole payload, none removed (Executor.backendsAhead). */
  backendsAhead(entries: ReadonlyMap<string, string>): Promise<void> {
    return this.backends.addWhole(entries, backendsText);
  }

  /**
   * Before a reload, the backends the new configuration adds or changes go to Lua, none removed, and a changed
   * certificate set goes (the hosts that changed, when Lua's set is known): the new workers answer from their first
   * request, instead of 503 (or the default certificate) for a new server block until the pushes that follow the
   * reload. The shared dicts outlive a reload; the old workers never name the new backends, and a changed one only gets
   * its new endpoints sooner. Best effort: any failure leaves it to the pushes after the reload. True when the
   * certificates went (none follows then). `running`: the digest of the certificate set nginx serves, when known;
   * nothing goes while nginx does not run.
   */
  async comingIn(c: Candidate, nginxRunning: boolean, running: string | undefined): Promise<boolean> {
    if (!nginxRunning) return false;
    if (c.entries !== undefined) await this.backends.add(c.entries);
    if (running === undefined || running === c.certs.digest) return false;
    try {
      await this.certificates.push(c.certs.whole, c.certs.entries);
      return true;
    } catch (err) {
      this.log.debug({ err: errorMessage(err) }, 'the certificates push before the reload failed; the push after the reload follows');
      return false;
    }
  }

  /**
   * Before a reload (after the backends and certificates it brings), hosts new to the route table are added to the table
   * Lua holds, so the new workers route them from their first request instead of answering 404 until the push after
   * the reload, which waits for the old workers to stop accepting. A host that moves in from a server block: always
   * (the old workers still pick that block and never read its entry). A host new to both: only after the startup
   * head (`fromHead`, the whole cluster's first sync: 0.4-0.5 s sooner at 10,000 Ingresses), and only when the old
   * workers, which route it too, would route it as the new ones will: the same router, and every named location it
   * names in their conf (render/route-push.ts RouteGate). Any other change keeps one sync's changes visible together:
   * a new host is not served before the reload that brings the rest of its sync (docs/adr/0057). Every other host
   * keeps its old entry until then. Best effort: any failure leaves it to the push after the reload.
   */
  async routesComingIn(prev: Previous, conf: RenderedConf, fromHead: boolean): Promise<void> {
    const held = this.routes.entries;
    const hosts = conf.routeHosts;
    if (held === undefined || hosts === undefined || prev === undefined) return;
    const rendered = new Set(prev.model.servers.map((s) => s.host));
    const was = fromHead ? prev.conf?.routeGate : undefined;
    const sameRouter = was !== undefined && conf.routeGate?.router === was.router;
    const known = new Set(was?.profiles);
    const coming = new Map<string, string>();
    for (const [host, entry] of hosts) {
      if (host === '_' || held.has(host)) continue;
      if (rendered.has(host) || (sameRouter && entryProfiles(entry).every((p) => known.has(p)))) coming.set(host, entry);
    }
    if (coming.size > 0) await this.routes.add(coming);
  }

  /** The backends Lua does not hold yet (all of them after a restart or a failure). */
  pushBackends(c: Candidate): Promise<void> {
    return this.backends.push(() => c.backends, c.entries);
  }

  /** The certificate set (the hosts that changed, when Lua's set is known). */
  pushCertificates(c: Candidate): Promise<void> {
    return this.certificates.push(c.certs.whole, c.certs.entries);
  }

  /**
   * The route table to Lua: the whole table after an nginx restart, a failure or the bounds on deltas; else only the
   * entries of the hosts that changed (null for a host removed), so a new Ingress costs nginx one host's decode and
   * compile per worker instead of the whole table's. After a reload (`reloaded`), a host that moved from the table to a
   * server block keeps its entry until the next push: the old workers, still answering requests on their open
   * connections, have no server block for it; the new ones pick the server block and never read it.
   */
  async pushRoutes(reloaded: boolean, routes: () => string, now: ReadonlyMap<string, string> | undefined, model: Model): Promise<void> {
    const held = this.routes.entries;
    const via = reloaded && held && now ? withLeaving(held, now, model) : now;
    await this.routes.push(routes, now, { via });
  }

  /** The Gateway API route table (docs/adr/0011): weights, conditions and mirror endpoints change without a reload. */
  async pushGateway(gateway: string): Promise<void> {
    await this.gateway.push(() => gateway, undefined);
    const dropped = this.gateway.dropped;
    if (dropped.length > 0) this.log.warn({ dropped }, 'nginx dropped Gateway API route entries it cannot run; the others are served');
  }
}

/** `now` plus the entries in `held` of hosts `model` serves from server blocks (they just left the table). */
function withLeaving(held: ReadonlyMap<string, string>, now: ReadonlyMap<string, string>, model: Model): ReadonlyMap<string, string> {
  const servers = new Set(model.servers.map((s) => s.host));
  let out: Map<string, string> | undefined;
  for (const [host, entry] of held) {
    if (host === '_' || now.has(host) || !servers.has(host)) continue;
    out ??= new Map(now);
    out.set(host, entry);
  }
  return out ?? now;
}
