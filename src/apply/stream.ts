// The stream section's part of applying a sync: what tells a stream-caused reload apart, and /debug/backends' stream rows.
import type { Model } from '../model/types.js';
import type { Counters } from './executor.js';
import { refKey } from '../model/keys.js';

/** The stream section as nginx holds it (ports, endpoints, passthrough hosts): a change of it needs a reload (docs/adr/0013). */
function streamDigest(model: Model | undefined): string {
  return JSON.stringify(model?.stream ?? null);
}

/** Whether a sync caused only by EndpointSlices may reuse nginx.conf: not with a stream section, whose upstreams are in it. */
export function endpointsOnly(causes: ReadonlyMap<string, number>, running: { readonly model: Model } | undefined): boolean {
  return running?.model.stream === undefined && [...causes.keys()].every((k) => k === 'EndpointSlice');
}

/** Counts a reload that happened (reloads moved past `before`) while the stream section changed. */
export function countStreamReload(counters: Counters, before: number, prev: { readonly model: Model } | undefined, next: Model): void {
  if (counters.reloads > before && streamDigest(prev?.model) !== streamDigest(next)) counters.streamReloads += 1;
}

/**
 * /debug/backends: the HTTP backends payload (what Lua holds), then one entry per stream port and passthrough host
 * (what nginx.conf holds), with the same `name` and `endpoints` fields.
 */
export function debugBackends(payload: string, model: Model | undefined): string {
  const s = model?.stream;
  if (!s) return payload;
  const svc = (r: { namespace: string; name: string }, port: number): string => `${r.namespace}/${r.name}:${port}`;
  const stream = [
    ...s.services.map((x) => ({
      name: `${x.protocol}-${x.port}`,
      kind: 'stream',
      protocol: x.protocol,
      port: x.port,
      service: svc(x.service, x.servicePort),
      source: `${x.source.configMap} ${x.source.key}`,
      proxyProtocol: { decode: x.decodeProxy, encode: x.encodeProxy },
      endpoints: x.endpoints,
    })),
    ...(s.gateway ?? []).map((g) => ({
      name: `gateway-${g.protocol}-${g.port}`,
      kind: 'stream',
      protocol: g.protocol,
      port: g.port,
      route: `${g.kind} ${g.route}`,
      listener: `${g.listener.gateway}/${g.listener.name}`,
      endpoints: g.backends.flatMap((b) => b.endpoints.map((e) => ({ ...e, weight: b.weight }))),
    })),
    ...(s.passthrough ?? []).map((p) => ({
      name: `passthrough-${p.host}`,
      kind: 'passthrough',
      host: p.host,
      ingress: refKey(p.ingress.namespace, p.ingress.name),
      service: svc(p.service, p.servicePort),
      endpoints: p.endpoints,
    })),
  ];
  return JSON.stringify([...(JSON.parse(payload) as unknown[]), ...stream]);
}
