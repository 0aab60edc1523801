// The fast path for endpoint churn: new endpoints for a model's upstreams, without translating anything else.
import type { Snapshot } from './input.js';
import { BackendIndex } from './backends.js';
import type { TargetPolicy } from './targets.js';
import type { ModelMemo } from './memo.js';
import type { Model, Problem } from './types.js';

/** A Problem of an endpoint the target policy left out (BackendIndex): replaced on every refresh. */
const isEndpointProblem = (p: Problem): boolean => p.object.kind === 'EndpointSlice' && p.field.startsWith('endpoints[');

/**
 * The model with each upstream's endpoints read again from the snapshot's EndpointSlices. Valid only when nothing
 * but EndpointSlices changed since `model` was built: nginx.conf never depends on endpoints, so the result is what a
 * full build would give (with the same `targets` policy), at the cost of one index over Services and EndpointSlices
 * (and, with a `memo` kept between refreshes, of reading only the EndpointSlices that changed).
 */
export function refreshEndpoints(model: Model, snap: Snapshot, targets?: TargetPolicy, memo?: ModelMemo): Model {
  const index = new BackendIndex(snap.services, snap.endpointSlices, 'round_robin', targets, memo);
  const upstreams = model.upstreams.map((u) => {
    if (u.servicePort === 0) return u;
    const r = index.resolve(u.service.namespace, { serviceName: u.service.name, portNumber: u.servicePort, portName: undefined }, 'refresh');
    // service-upstream keeps its cluster IP; its pods are still read, so their refusals are reported as a build does.
    return r.ok && u.serviceUpstream !== true ? { ...u, endpoints: r.upstream.endpoints } : u;
  });
  return { ...model, upstreams, problems: [...model.problems.filter((p) => !isEndpointProblem(p)), ...index.refusedEndpoints()] };
}
