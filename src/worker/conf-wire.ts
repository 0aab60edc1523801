// A build's rendered nginx.conf sent back to the main thread as changes: the text (and its server lines) only when
// its hash changed, the route table as the hosts whose entry changed. At 10,000 Ingresses the whole result was 4 MiB
// of conf text and route table for a sync that changed one host's entry (plus its clone, walk and garbage on both
// sides); the main thread builds the whole table's text only when a whole push or /debug asks for it.
import { withRoutes } from '../render/route-push.js';
import { entryChanges } from '../render/entry-changes.js';
import { OverlayMap } from '../render/overlay-map.js';
import type { RenderedConf, ServerLines } from '../render/nginx-conf.js';
import type { RouteGate } from '../render/route-push.js';

/** The route table's changes: entries set (new or changed) and hosts gone; absent from ConfDelta: no route table. */
interface RoutesDelta {
  readonly set: readonly (readonly [string, string])[];
  readonly removed: readonly string[];
}

/** What crosses back; `text` and `serverLines` only when `reset` or the hash changed. */
export interface ConfDelta {
  readonly reset: boolean;
  readonly hash: string;
  readonly shutdownTimeoutSeconds: number;
  readonly text?: string;
  readonly serverLines?: readonly ServerLines[];
  readonly routes?: RoutesDelta;
  /** With `text`: the conf's route gate (it changes only with the text). */
  readonly routeGate?: RouteGate;
}

/** The worker's side: remembers the hash and route entries the main thread holds (those of the last delta sent). */
export class ConfSender {
  private hash: string | undefined;
  private hosts: ReadonlyMap<string, string> | undefined;

  /** The receiver may have lost what was sent (a reply that did not go out): the next delta carries everything. */
  forget(): void {
    this.hash = undefined;
    this.hosts = undefined;
  }

  delta(conf: RenderedConf): ConfDelta {
    const reset = this.hash === undefined;
    const whole = reset || conf.hash !== this.hash;
    const held = reset ? undefined : this.hosts;
    let routes: RoutesDelta | undefined;
    const now = conf.routeHosts;
    if (now !== undefined) {
      // the held hosts are walked only when some are gone (render/entry-changes.ts)
      const { changed, removed } = entryChanges(held ?? new Map<string, string>(), now);
      routes = { set: changed.map((host) => [host, now.get(host) ?? ''] as const), removed };
    }
    this.hash = conf.hash;
    this.hosts = conf.routeHosts;
    return {
      reset,
      hash: conf.hash,
      shutdownTimeoutSeconds: conf.shutdownTimeoutSeconds,
      ...(whole ? { text: conf.text, serverLines: conf.serverLines, ...(conf.routeGate ? { routeGate: conf.routeGate } : {}) } : {}),
      ...(routes ? { routes } : {}),
    };
  }
}

/** The main thread's side: the RenderedConf of each delta, from what it carries and the last one. */
export class ConfReceiver {
  private last: RenderedConf | undefined;
  private tables = 0;

  apply(d: ConfDelta): RenderedConf {
    const last = d.reset ? undefined : this.last;
    const text = d.text ?? last?.text;
    const serverLines = d.serverLines ?? last?.serverLines;
    if (text === undefined || serverLines === undefined) throw new Error('conf delta: no nginx.conf text was ever sent');
    const base = { text, hash: d.hash, shutdownTimeoutSeconds: d.shutdownTimeoutSeconds, serverLines };
    let conf: RenderedConf = base;
    if (d.routes) {
      const held = last?.routeHosts;
      const unchanged = held !== undefined && d.routes.set.length === 0 && d.routes.removed.length === 0;
      // an unchanged table keeps its map and its id
      let hosts = held;
      let id = last?.routesId;
      if (!unchanged || id === undefined) {
        // made of the held map without a copy, and noted: the push to Lua then finds the changed hosts without a
        // pass over the 100,000 (render/overlay-map.ts, render/entry-changes.ts)
        hosts = held === undefined ? new Map(d.routes.set) : OverlayMap.from(held, d.routes.set, d.routes.removed);
        id = `routes-${String((this.tables += 1))}`;
      }
      conf = withRoutes({ ...base, routesId: id }, hosts ?? new Map<string, string>(), d.text !== undefined ? d.routeGate : last?.routeGate);
    }
    this.last = conf;
    return conf;
  }
}
