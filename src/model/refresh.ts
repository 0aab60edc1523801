// The fast path for endpoint churn: new endpoints for a model's upstreams, without translating anything else.
import type { Snapshot } from './input.js';
import { BackendIndex } from './backends.js';
import type { Model } from './types.js';

/**
 * The model with each upstream's endpoints read again from the snapshot's EndpointSlices. Valid only when nothing
 * but EndpointSlices changed since `model` was built: nginx.conf never depends on endpoints, so the result is what a
 * full build would give, at the cost of one index over Services and EndpointSlices.
 */
export function refreshEndpoints(model: Model, snap: Snapshot): Model {
  const index = new BackendIndex(snap.services, snap.endpointSlices, 'round_robin');
  const upstreams = model.upstreams.map((u) => {
    if (u.servicePort === 0 || u.serviceUpstream === true) return u;
    const r = index.resolve(u.service.namespace, { serviceName: u.service.name, portNumber: u.servicePort, portName: undefined }, 'refresh');
    return r.ok ? { ...u, endpoints: r.upstream.endpoints } : u;
  });
  return { ...model, upstreams };
}
