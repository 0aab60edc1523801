// What the http-level scans of renderNginxConf read of each server: the targets with CORS or request limits (their
// maps and zones, render/traffic.ts), external auth and its cache (render/auth.ts), tracing (render/tracing.ts) and
// the ingress variables (render/ingress-vars.ts). Each server's facts are kept by server object between renders
// (render/identity-memo.ts), so a render after an incremental sync reads a kept server's facts without walking its
// locations again (docs/adr/0043). Folded in server order, which is what the scans did, so the lines are the same.
import type { GlobalSettings } from '../model/settings.js';
import type { Server } from '../model/types.js';
import { serverAuth } from './auth.js';
import type { IdentityMemo } from './identity-memo.js';
import { serverReadsIngressVars } from './ingress-vars.js';
import { serverTraced } from './tracing.js';
import { trafficTargets, type UpstreamTarget } from './traffic.js';

/** One server's facts, or the folded facts of every server. */
export interface ServerFacts {
  /** Targets whose CORS or request limits render http-level lines, in location order. */
  readonly traffic: readonly UpstreamTarget[];
  /** Some location uses external auth; `authCache`: some caches its answers. */
  readonly authExternal: boolean;
  readonly authCache: boolean;
  /** Some location traces (with the global settings of the render). */
  readonly traced: boolean;
  /** A server snippet or configuration snippet reads an ingress variable. */
  readonly readsVars: boolean;
}

const NONE: ServerFacts = { traffic: [], authExternal: false, authCache: false, traced: false, readsVars: false };

function factsOf(s: Server, g: GlobalSettings): ServerFacts {
  const traffic = trafficTargets(s);
  const auth = serverAuth(s);
  const traced = serverTraced(g, s);
  const readsVars = serverReadsIngressVars(s);
  if (traffic.length === 0 && !auth.external && !auth.cache && !traced && !readsVars) return NONE;
  return { traffic, authExternal: auth.external, authCache: auth.cache, traced, readsVars };
}

const NO_DEPS: readonly unknown[] = [];

/** The facts of `servers` folded in their order; with `memo`, each server's from the last render when it is the same object. */
export function scanServers(servers: readonly Server[], g: GlobalSettings, memo?: IdentityMemo<Server, ServerFacts>): ServerFacts {
  memo?.begin(JSON.stringify(g));
  const traffic: UpstreamTarget[] = [];
  let authExternal = false;
  let authCache = false;
  let traced = false;
  let readsVars = false;
  for (const s of servers) {
    const f = memo
      ? memo.get(
          s,
          () => NO_DEPS,
          () => factsOf(s, g),
        )
      : factsOf(s, g);
    if (f === NONE) continue;
    for (const t of f.traffic) traffic.push(t);
    authExternal ||= f.authExternal;
    authCache ||= f.authCache;
    traced ||= f.traced;
    readsVars ||= f.readsVars;
  }
  return { traffic, authExternal, authCache, traced, readsVars };
}
