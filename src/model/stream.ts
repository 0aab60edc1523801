// TCP and UDP services (--tcp/udp-services-configmap) and ssl-passthrough hosts: the model's stream section.
import type { Ingress, Snapshot } from './input.js';
import type { BackendIndex, BackendRef } from './backends.js';
import { checkHost, clip } from './names.js';
import { HOST_CONFLICT, type HostOwners } from './hosts.js';
import type { Endpoint, ObjectRef } from './types.js';
import { refKey } from './keys.js';
import type { AddProblem, Reason } from './types.js';
import { coded } from './problems.js';
import type { TlsRoutes } from './gateway/tlsroute.js';
import type { GatewayStreamServer } from './gateway/l4-routes.js';

/** One external port of the stream section, served from one Service port. */
export interface StreamService {
  readonly protocol: 'tcp' | 'udp';
  readonly port: number;
  readonly service: ObjectRef;
  readonly servicePort: number;
  readonly endpoints: readonly Endpoint[];
  /** `:PROXY`: the client sends a PROXY protocol header (TCP only). */
  readonly decodeProxy: boolean;
  /** second `:PROXY`: nginx sends PROXY protocol v1 to the backend (TCP only). */
  readonly encodeProxy: boolean;
  /** The ConfigMap and key the entry came from (logs, /debug/backends). */
  readonly source: { readonly configMap: string; readonly key: string };
}

/** A host whose TLS connections go to its backend unterminated (ssl-passthrough). */
export interface PassthroughHost {
  readonly host: string;
  readonly ingress: ObjectRef;
  readonly service: ObjectRef;
  readonly servicePort: number;
  readonly endpoints: readonly Endpoint[];
}

export interface StreamModel {
  readonly services: readonly StreamService[];
  /** With --enable-ssl-passthrough: ssl_preread fronts the HTTPS port (also with no host yet); else undefined. */
  readonly passthrough: readonly PassthroughHost[] | undefined;
  /** Gateway API TLSRoutes on TLS Passthrough listeners (model/gateway/tlsroute.ts); absent: none. */
  readonly tlsRoutes?: TlsRoutes;
  /** TCP and UDP listeners of Gateways with the route serving each (model/gateway/l4-routes.ts, docs/adr/0023). */
  readonly gateway?: readonly GatewayStreamServer[];
}

/** What the operator configured: the ConfigMaps, the flag, the ports stream entries may not take. */
export interface StreamOptions {
  readonly tcp: { readonly namespace: string; readonly name: string } | undefined;
  readonly udp: { readonly namespace: string; readonly name: string } | undefined;
  readonly passthrough: boolean;
  /** Portico's own ports (http, https, healthz, status, default server, webhook). */
  readonly reservedPorts: readonly number[];
  readonly annotationsPrefix: string;
}

/** `namespace/service:port[:[PROXY][:PROXY]]`, ingress-nginx's syntax; nothing else passes (values reach nginx.conf). */
const VALUE = /^([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?)\/([a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?):([0-9]{1,5}|[a-z0-9]([-a-z0-9]{0,13}[a-z0-9])?)(:(PROXY)?)?(:(PROXY)?)?$/i;
const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);

/** One ConfigMap's entries; a bad entry is a Problem naming the ConfigMap and key, the others are kept. */
interface Ctx {
  readonly snap: Snapshot;
  readonly o: StreamOptions;
  readonly index: BackendIndex;
  readonly problem: AddProblem;
}

function entries(ctx: Ctx, ref: { namespace: string; name: string }, protocol: 'tcp' | 'udp'): StreamService[] {
  const { snap, o, index, problem } = ctx;
  const cmRef: ObjectRef = { kind: 'ConfigMap', namespace: ref.namespace, name: ref.name };
  const cm = snap.configMaps.find((c) => c.metadata?.namespace === ref.namespace && c.metadata.name === ref.name);
  const out: StreamService[] = [];
  for (const [key, raw] of Object.entries(cm?.data ?? {}).sort(([a], [b]) => a.localeCompare(b))) {
    const field = `data.${clip(key, 40)}`;
    const skip = (why: string): void => {
      problem(cmRef, field, `${protocol.toUpperCase()} port ${JSON.stringify(clip(key, 40))} skipped: ${why}`);
    };
    const port = Number(key);
    if (!/^[0-9]{1,5}$/.test(key) || port < 1 || port > 65535) {
      skip('the key must be a port number 1-65535');
      continue;
    }
    if (o.reservedPorts.includes(port)) {
      skip(`port ${port} is one of Portico's own ports`);
      continue;
    }
    const m = VALUE.exec(typeof raw === 'string' ? raw.trim() : '');
    if (!m?.[1] || !m[3] || !m[5]) {
      skip(`${JSON.stringify(clip(raw, 80))} is not namespace/service:port[:PROXY[:PROXY]]`);
      continue;
    }
    const [namespace, name, portText] = [m[1], m[3], m[5]];
    const service: ObjectRef = { kind: 'Service', namespace, name };
    const svc = snap.services.find((s) => s.metadata?.namespace === namespace && s.metadata.name === name);
    if (!svc) {
      skip(`Service ${namespace}/${name} not found`);
      continue;
    }
    const byNumber = /^[0-9]+$/.test(portText);
    const sp = (svc.spec?.ports ?? []).find((p) => (byNumber ? p.port === Number(portText) : p.name === portText) && (p.protocol ?? 'TCP').toLowerCase() === protocol);
    if (!sp) {
      skip(`Service ${namespace}/${name} has no ${protocol.toUpperCase()} port ${portText}`);
      continue;
    }
    const ref: BackendRef = { serviceName: name, portNumber: sp.port, portName: undefined };
    const r = index.resolve(namespace, ref, field);
    if (!r.ok) {
      skip(r.reason);
      continue;
    }
    if (r.upstream.endpoints.length === 0) problem(cmRef, field, `${protocol.toUpperCase()} port ${port}: Service ${namespace}/${name} has no ready endpoint; connections are closed`, 'degraded');
    const tcp = protocol === 'tcp';
    out.push({
      protocol,
      port,
      service,
      servicePort: sp.port,
      endpoints: r.upstream.endpoints,
      decodeProxy: tcp && m[8] !== undefined,
      encodeProxy: tcp && m[10] !== undefined,
      source: { configMap: refKey(cmRef.namespace, cmRef.name), key },
    });
  }
  return out;
}

/** Passthrough takes every TLS connection of a host, so only the host's oldest Ingress may ask for it. */
function refusal(owners: HostOwners, ref: ObjectRef, host: string): Reason | undefined {
  const first = owners.definedBy(host);
  if (first && (first.namespace !== ref.namespace || first.name !== ref.name)) {
    return coded('HostConflict', `${HOST_CONFLICT}: ssl-passthrough takes every TLS connection for ${host}, and its oldest Ingress is ${first.namespace}/${first.name}`);
  }
  return owners.refusal(ref, host);
}

function passthroughHosts(ingresses: readonly Ingress[], o: StreamOptions, index: BackendIndex, problem: AddProblem, owners: HostOwners): PassthroughHost[] | undefined {
  const key = `${o.annotationsPrefix}/ssl-passthrough`;
  const hosts = new Map<string, PassthroughHost>();
  for (const ing of ingresses) {
    const raw = ing.metadata?.annotations?.[key];
    if (raw === undefined || !TRUE.has(raw.trim())) continue;
    const ingress: ObjectRef = { kind: 'Ingress', namespace: ing.metadata?.namespace ?? 'default', name: ing.metadata?.name ?? '' };
    if (!o.passthrough) {
      problem(ingress, 'metadata.annotations.ssl-passthrough', 'ignored: Portico runs without --enable-ssl-passthrough, so its hosts are terminated by Portico', 'degraded');
      continue;
    }
    (ing.spec?.rules ?? []).forEach((rule, i) => {
      const host = (rule.host ?? '').toLowerCase();
      const field = `spec.rules[${i}]`;
      if (host === '' || checkHost(host) !== undefined) {
        problem(ingress, `${field}.host`, 'ssl-passthrough needs a host name (TLS connections are picked by SNI)');
        return;
      }
      const refused = refusal(owners, ingress, host);
      if (refused) {
        problem(ingress, `${field}.host`, refused);
        return;
      }
      const holder = hosts.get(host);
      if (holder) {
        problem(ingress, `${field}.host`, `ssl-passthrough for ${host} is already taken by the older Ingress ${holder.ingress.namespace}/${holder.ingress.name}`);
        return;
      }
      // ingress-nginx passes the connection to the backend of the rule's path (the first; TLS hides paths).
      const b = rule.http?.paths[0]?.backend.service ?? ing.spec?.defaultBackend?.service;
      if (!b) {
        problem(ingress, `${field}.http.paths`, 'ssl-passthrough needs a Service backend');
        return;
      }
      const r = index.resolve(ingress.namespace, { serviceName: b.name, portNumber: b.port?.number, portName: b.port?.name }, `${field}.http.paths[0].backend`);
      if (!r.ok) {
        problem(ingress, r.field, r.reason);
        return;
      }
      if (r.problem) problem(ingress, r.problem.field, coded(r.problem.code, r.problem.reason.replace('the path answers 503', 'TLS connections for the host are closed')), 'degraded');
      hosts.set(host, { host, ingress, service: r.upstream.service, servicePort: r.upstream.servicePort, endpoints: r.upstream.endpoints });
    });
  }
  return o.passthrough ? [...hosts.values()].sort((a, b) => a.host.localeCompare(b.host)) : undefined;
}

/** The stream section, or undefined when no stream ConfigMap and no passthrough are configured (nginx.conf stays as before). */
export function buildStream(ctx: Omit<Ctx, 'o'> & { readonly o: StreamOptions | undefined }, servedOldestFirst: readonly Ingress[], owners: HostOwners): StreamModel | undefined {
  const { o, index, problem } = ctx;
  if (!o) return undefined;
  const tcp = o.tcp ? entries({ ...ctx, o }, o.tcp, 'tcp') : [];
  const udp = o.udp ? entries({ ...ctx, o }, o.udp, 'udp') : [];
  const passthrough = passthroughHosts(servedOldestFirst, o, index, problem, owners);
  const services = [...tcp, ...udp];
  if (services.length === 0 && passthrough === undefined) return undefined;
  return { services, passthrough };
}
