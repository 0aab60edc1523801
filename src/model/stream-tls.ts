// Joins the TLSRoutes (model/gateway/tlsroute.ts) to the stream section: port 443's hostnames turn the SNI front of the
// HTTPS port on (with or without --enable-ssl-passthrough), other ports must be free of Portico's and the TCP services'.
import type { StreamModel } from './stream.js';
import type { ModelOptions } from './input.js';
import type { GatewayAttachments } from './gateway/claims.js';
import { buildTlsRoutes, type TlsRouteHost, type TlsRouteInput } from './gateway/tlsroute.js';

/** The stream section with the TLSRoutes in it, or `stream` unchanged when there are none (or no Gateway API). */
export function withTlsRoutes(
  stream: StreamModel | undefined,
  input: Omit<TlsRouteInput, 'ports' | 'routes'> & { readonly attached: GatewayAttachments | undefined },
  opts: Pick<ModelOptions, 'gateway' | 'stream'>,
): StreamModel | undefined {
  const { attached, ...rest } = input;
  const tls = opts.gateway && attached ? buildTlsRoutes({ ...rest, routes: attached.tlsRoutes, ...(opts.gateway.ports ? { ports: opts.gateway.ports } : {}) }) : undefined;
  if (!tls) return stream;
  const { problem } = input;
  const o = opts.stream;
  const ingressHosts = new Map((stream?.passthrough ?? []).map((p) => [p.host, p.ingress] as const));
  const front = tls.front.filter((h) => {
    const ing = ingressHosts.get(h.host);
    if (ing) problem(h.route, 'spec.hostnames', `${h.host} on port 443 is taken by the ssl-passthrough of Ingress ${ing.namespace}/${ing.name}`);
    return !ing;
  });
  // a Gateway TCP listener's server there (another local port mapping, docs/adr/0030) would be a second stream listen on it
  const tcp = [...(stream?.services ?? []), ...(stream?.gateway ?? [])].filter((s) => s.protocol === 'tcp').map((s) => s.port);
  const taken = new Set([...(o?.reservedPorts ?? []), ...tcp]);
  const ports = tls.ports.filter((p) => {
    if (!taken.has(p.port)) return true;
    const each = (h: TlsRouteHost): void => {
      problem(
        h.route,
        'spec.parentRefs',
        `port ${p.listenerPort} is served on local port ${p.port}, which Portico, a TCP service or a Gateway TCP listener already uses; its connections are not served`,
      );
    };
    p.hosts.forEach(each);
    return false;
  });
  if (front.length === 0 && ports.length === 0) return stream;
  const passthrough = stream?.passthrough ?? (front.length > 0 ? [] : undefined);
  // the Gateway TCP/UDP servers (model/gateway/l4-routes.ts) stay beside the TLSRoutes
  return { ...stream, services: stream?.services ?? [], passthrough, tlsRoutes: { front, ports } };
}
