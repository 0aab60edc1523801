// The JSON payloads POSTed to nginx's Lua configuration endpoint (docs/adr/0001).
import type { Model } from '../model/types.js';
import type { Affinity } from '../model/settings.js';
import type { CanaryPolicy } from '../model/settings-traffic.js';

export interface BackendPayload {
  readonly name: string;
  readonly endpoints: readonly { readonly address: string; readonly port: number }[];
  readonly loadBalance: string;
  readonly hashBy: string;
  readonly affinity: Affinity | null;
  readonly canary?: Readonly<Record<string, CanaryPolicy>>;
}

/** The backend list for `POST /configuration/backends`, in the model's (sorted) order. */
export function backendsPayload(model: Model): BackendPayload[] {
  return model.upstreams.map((u) => ({
    name: u.name,
    endpoints: u.endpoints.map((e) => ({ address: e.address, port: e.port })),
    loadBalance: u.loadBalance,
    hashBy: u.hashBy,
    affinity: u.affinity,
    ...(u.canary ? { canary: u.canary } : {}),
  }));
}

/**
 * The body of `POST /configuration/gateway` (lua/portico/gateway.lua): the model's route table, each mirror named by
 * its upstream's endpoints now (so endpoint changes of a mirror backend are a push, not a reload); '' without one.
 */
export function gatewayJson(model: Model): string {
  const t = model.gateway;
  if (!t) return '';
  const eps = new Map(model.upstreams.map((u) => [u.name, u.endpoints.map((e) => (e.address.includes(':') ? `[${e.address}]:${String(e.port)}` : `${e.address}:${String(e.port)}`))]));
  const services = new Map(model.upstreams.map((u) => [u.name, u.service.name]));
  // Each backend also names its Service: Lua relabels the request's metrics with the route and the backend it chose.
  const actions = t.actions.map(({ mirror, backends, ...a }) => ({
    ...a,
    backends: backends.map((b) => (b.upstream !== undefined ? { ...b, service: services.get(b.upstream) ?? '' } : b)),
    ...(mirror !== undefined ? { mirror: eps.get(mirror) ?? [] } : {}),
  }));
  return JSON.stringify({ actions, locations: t.locations });
}
