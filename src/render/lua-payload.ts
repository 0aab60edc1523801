// The JSON payloads POSTed to nginx's Lua configuration endpoint (docs/adr/0001).
import type { Model, Upstream } from '../model/types.js';
import type { Affinity } from '../model/settings.js';
import type { CanaryPolicy } from '../model/settings-traffic.js';
import { entryChanges } from './entry-changes.js';

export interface BackendPayload {
  readonly name: string;
  readonly endpoints: readonly { readonly address: string; readonly port: number }[];
  readonly loadBalance: string;
  readonly hashBy: string;
  readonly hashSubset?: number;
  readonly affinity: Affinity | null;
  readonly canary?: Readonly<Record<string, CanaryPolicy>>;
}

/** A canary policy as Lua reads it: the fields it uses, in one order (the Ingress it came from stays in the model). */
function luaPolicies(canary: Readonly<Record<string, CanaryPolicy>>): Record<string, CanaryPolicy> {
  return Object.fromEntries(
    Object.entries(canary).map(([k, p]) => [
      k,
      { backend: p.backend, header: p.header, headerValue: p.headerValue, headerPattern: p.headerPattern, cookie: p.cookie, weight: p.weight, weightTotal: p.weightTotal },
    ]),
  );
}

function backendOf(u: Upstream): BackendPayload {
  return {
    name: u.name,
    endpoints: u.endpoints.map((e) => ({ address: e.address, port: e.port })),
    loadBalance: u.loadBalance,
    hashBy: u.hashBy,
    ...(u.hashSubset !== undefined ? { hashSubset: u.hashSubset } : {}),
    affinity: u.affinity,
    ...(u.canary ? { canary: luaPolicies(u.canary) } : {}),
  };
}

/** The backend list for `POST /configuration/backends`, in the model's (sorted) order. */
export function backendsPayload(model: Model): BackendPayload[] {
  return model.upstreams.map(backendOf);
}

/**
 * One upstream's backend as JSON (backendsPayload's entry), the pushes' entry by name (controller/backend-ids.ts).
 * `memo` (kept between syncs) answers for an upstream object seen before: an endpoint refresh keeps every upstream
 * whose endpoints did not change (model/refresh.ts), so only the changed ones are serialized again.
 */
export function backendText(u: Upstream, memo?: WeakMap<Upstream, string>): string {
  let text = memo?.get(u);
  if (text === undefined) {
    text = JSON.stringify(backendOf(u));
    memo?.set(u, text);
  }
  return text;
}

/** True when `a` and `b` (backend entries by name) hold the same names with the same JSON, in the same order. */
export function sameEntries(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  const other = b.entries();
  for (const [name, text] of a) {
    const next = other.next();
    if (next.done === true || next.value[0] !== name || next.value[1] !== text) return false;
  }
  return true;
}

/** The body of `POST /configuration/backends` made of the backend entries: JSON.stringify(backendsPayload(model)). */
export function backendsText(entries: ReadonlyMap<string, string>): string {
  return `[${[...entries.values()].join(',')}]`;
}

/**
 * The body of a backends delta (`POST /configuration/backends?from=OLD&id=NEW`, lua/portico/configuration.lua)
 * that takes Lua from `running` to `next` (both backend entries by name): the backends whose JSON changed or are new,
 * and the names gone; undefined when nothing differs.
 */
export function backendsDelta(running: ReadonlyMap<string, string>, next: ReadonlyMap<string, string>): { body: string; set: string[]; remove: string[] } | undefined {
  const { changed: set, removed: remove } = entryChanges(running, next);
  if (set.length === 0 && remove.length === 0) return undefined;
  const texts = set.map((name) => next.get(name) ?? '');
  return { body: `{"set":[${texts.join(',')}],"remove":${JSON.stringify(remove)}}`, set, remove };
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
  const actions = t.actions.map(({ mirror, moreMirrors, backends, ...a }) => ({
    ...a,
    ...(moreMirrors !== undefined ? { moreMirrors: moreMirrors.map((m) => ({ endpoints: eps.get(m.upstream) ?? [], ...(m.percent !== undefined ? { percent: m.percent } : {}) })) } : {}),
    backends: backends.map((b) => (b.upstream !== undefined ? { ...b, service: services.get(b.upstream) ?? '' } : b)),
    ...(mirror !== undefined ? { mirror: eps.get(mirror) ?? [] } : {}),
  }));
  return JSON.stringify({ actions, locations: t.locations, ...(t.listenerPorts ? { listenerPorts: t.listenerPorts } : {}) });
}
