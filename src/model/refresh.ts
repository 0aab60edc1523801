// The fast path for endpoint churn: new endpoints for a model's upstreams, without translating anything else.
import type { Snapshot } from './input.js';
import { BackendIndex, objectKey, sliceServiceKey } from './backends.js';
import type { TargetPolicy } from './targets.js';
import type { ModelMemo } from './memo.js';
import type { Endpoint, Model, Problem, Upstream } from './types.js';
import { refKey } from './keys.js';

/** A Problem of an endpoint the target policy left out (BackendIndex): replaced on every refresh. */
const isEndpointProblem = (p: Problem): boolean => p.object.kind === 'EndpointSlice' && p.field.startsWith('endpoints[');

const sameEndpoints = (a: readonly Endpoint[], b: readonly Endpoint[]): boolean => a.length === b.length && a.every((e, i) => e.address === b[i]?.address && e.port === b[i]?.port);

/** The objects of `next` not in `prev` and of `prev` not in `next` (by identity: the store keeps unchanged objects). */
function changedObjects<T extends object>(prev: readonly T[], next: readonly T[]): T[] {
  const before = new Set(prev);
  const after = new Set(next);
  return [...next.filter((o) => !before.has(o)), ...prev.filter((o) => !after.has(o))];
}

/**
 * The model with each upstream's endpoints read again from the snapshot's EndpointSlices. Valid only when nothing
 * but EndpointSlices changed since `model` was built: nginx.conf never depends on endpoints, so the result is what a
 * full build would give (with the same `targets` policy), at the cost of one index over Services and EndpointSlices
 * (and, with a `memo` kept between refreshes, of reading only the EndpointSlices that changed).
 *
 * `since`: the snapshot `model`'s endpoints were read from. Then only the upstreams of Services whose Service or
 * EndpointSlices changed since (object identity) are resolved again: at 10,000 Services an endpoint change reads one.
 * Every upstream whose endpoints are unchanged is the same object as in `model` (render/lua-payload.ts keeps its JSON).
 */
export function refreshEndpoints(model: Model, snap: Snapshot, targets?: TargetPolicy, memo?: ModelMemo, since?: Snapshot): Model {
  let services = snap.services;
  let slices = snap.endpointSlices;
  let changedSlices: Set<string> | undefined;
  let changedServices: Set<string> | undefined;
  if (since) {
    const moved = changedObjects(since.endpointSlices, snap.endpointSlices);
    changedServices = new Set([...moved.flatMap((s) => sliceServiceKey(s) ?? []), ...changedObjects(since.services, snap.services).map(objectKey)]);
    changedSlices = new Set(moved.map(objectKey));
    if (changedServices.size === 0 && changedSlices.size === 0) return model;
    const touched = changedServices;
    services = services.filter((s) => touched.has(objectKey(s)));
    slices = slices.filter((s) => touched.has(sliceServiceKey(s) ?? ''));
    for (const s of slices) changedSlices.add(objectKey(s));
  }
  const index = new BackendIndex(services, slices, 'round_robin', targets, memo);
  const upstreams = model.upstreams.map((u): Upstream => {
    if (u.servicePort === 0 || u.externalName !== undefined) return u; // no EndpointSlices: a Service change rebuilds
    if (changedServices && !changedServices.has(refKey(u.service.namespace, u.service.name))) return u;
    const r = index.resolve(u.service.namespace, { serviceName: u.service.name, portNumber: u.servicePort, portName: undefined }, 'refresh');
    // service-upstream keeps its cluster IP; its pods are still read, so their refusals are reported as a build does.
    if (!r.ok || u.serviceUpstream === true || sameEndpoints(u.endpoints, r.upstream.endpoints)) return u;
    return { ...u, endpoints: r.upstream.endpoints };
  });
  // Endpoint problems of the slices not read again stay (only with `since`); the order is a full build's.
  const kept = model.problems.filter((p) => isEndpointProblem(p) && changedSlices !== undefined && !changedSlices.has(refKey(p.object.namespace, p.object.name)));
  const endpointProblems = kept.length === 0 ? index.refusedEndpoints() : [...kept, ...index.refusedEndpoints()].sort(byRefusalKey);
  return { ...model, upstreams, problems: [...model.problems.filter((p) => !isEndpointProblem(p)), ...endpointProblems] };
}

/** BackendIndex's order of refusal Problems: namespace/name|field|port (the port as its reason names it). */
function refusalKey(p: Problem): string {
  return `${p.object.namespace}/${p.object.name}|${p.field}|${/ port (\d+) of /.exec(p.reason)?.[1] ?? ''}`;
}

function byRefusalKey(a: Problem, b: Problem): number {
  return refusalKey(a).localeCompare(refusalKey(b));
}
