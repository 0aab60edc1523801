// Service backends: a Service port resolved through EndpointSlices to pod IP:port endpoints.
import type { EndpointSlice, Service } from './input.js';
import { endpointList } from './packed-endpoints.js';
import { checkLabel, checkPortName, checkPortNumber, checkServiceName } from './names.js';
import { DEFAULT_TARGET_POLICY, refuseAddress, type TargetPolicy } from './targets.js';
import type { Endpoint, Problem, Upstream } from './types.js';
import type { ModelMemo, SliceEndpoints } from './memo.js';
import { nsKey, refKey } from './keys.js';
import { externalPort, type ExternalNames } from './external-names.js';

const SERVICE_NAME_LABEL = 'kubernetes.io/service-name';

/** namespace/name of a Service or an EndpointSlice. */
export const objectKey = (o: Service | EndpointSlice): string => nsKey(o);

/** namespace/name of the Service an EndpointSlice belongs to (its service-name label); undefined without one. */
export function sliceServiceKey(slice: EndpointSlice): string | undefined {
  const svc = slice.metadata?.labels?.[SERVICE_NAME_LABEL];
  return svc ? refKey(slice.metadata?.namespace, svc) : undefined;
}

/** The order of a chosen list: by address, then port. */
const byAddress = (a: Endpoint, b: Endpoint): number => a.address.localeCompare(b.address) || a.port - b.port;

/** Ready endpoints, else serving-but-terminating ones (each deduplicated by address and port), sorted. */
function chosen(ready: ReadonlyMap<string, Endpoint>, terminating: ReadonlyMap<string, Endpoint>): Endpoint[] {
  return [...(ready.size > 0 ? ready : terminating).values()].sort(byAddress);
}

const NONE: readonly never[] = Object.freeze([]);

/** True when `list` is in chosen()'s order without a repeat: chosen() would give the same endpoints in the same order. */
function inOrder(list: readonly Endpoint[]): boolean {
  for (let i = 1; i < list.length; i += 1) if (byAddress(list[i - 1] as Endpoint, list[i] as Endpoint) >= 0) return false;
  return true;
}

/**
 * One slice's part as the memo keeps it (frozen: the chosen list is each model's upstream list itself), with lists
 * shared where they can be: the empty ones, and the chosen list when it is the ready (else terminating) one already
 * in order, as an EndpointSlice usually lists them. At 100,000 slices each list of its own was about 10 MiB of the
 * build worker's heap (docs/adr/0060).
 */
function sliceResult(ready: Endpoint[], terminating: Endpoint[], refused: [string, Problem][]): SliceEndpoints {
  const key = (e: Endpoint): [string, Endpoint] => [`${e.address}|${e.port}`, e];
  const from = ready.length > 0 ? ready : terminating;
  const picked = inOrder(from) ? from : chosen(new Map(ready.map(key)), new Map(terminating.map(key)));
  const kept = (l: Endpoint[]): readonly Endpoint[] => (l.length === 0 ? NONE : Object.freeze(l));
  return { ready: kept(ready), terminating: kept(terminating), refused: refused.length === 0 ? NONE : refused, chosen: kept(picked) };
}

/** A backend reference as an Ingress writes it. */
export interface BackendRef {
  readonly serviceName: string;
  readonly portNumber: number | undefined;
  readonly portName: string | undefined;
}

export type Resolved =
  | { readonly ok: true; readonly upstream: Upstream; readonly problem?: { field: string; reason: string; code: 'ServiceNotFound' | 'ServicePortNotFound' } }
  | { readonly ok: false; readonly field: string; readonly reason: string };

/** Lookups over the snapshot, built once per model. */
export class BackendIndex {
  private readonly services = new Map<string, Service>();
  /** Each Service port's resolution in this model (namespace/service|port): the same answer for every path naming it. */
  private readonly resolved = new Map<string, Resolved>();
  private readonly slices = new Map<string, EndpointSlice[]>();
  /** Endpoints left out by the target policy, by slice and position (one Problem each, however often resolved). */
  private readonly refused = new Map<string, Problem>();
  /** The policy as a memo key: a memo shared by builds under another policy never answers for this one. */
  private readonly policyKey: string;
  /** ExternalName Services' resolved addresses (set by the build); absent: such Services have no endpoints. */
  private external: ExternalNames | undefined;

  constructor(
    services: readonly Service[],
    slices: readonly EndpointSlice[],
    private readonly loadBalance: Upstream['loadBalance'],
    private readonly policy: TargetPolicy = DEFAULT_TARGET_POLICY,
    private readonly memo?: ModelMemo,
  ) {
    this.policyKey = JSON.stringify(policy);
    for (const s of services) this.services.set(objectKey(s), s);
    for (const slice of slices) {
      const key = sliceServiceKey(slice);
      if (key === undefined) continue;
      const list = this.slices.get(key) ?? [];
      list.push(slice);
      this.slices.set(key, list);
    }
  }

  /** Reads ExternalName Services through `names` from now on. */
  useExternalNames(names: ExternalNames): this {
    this.external = names;
    return this;
  }

  /** Resolves a backend of an Ingress in `namespace`; a missing Service or port gives an upstream with no endpoint. */
  resolve(namespace: string, ref: BackendRef, field: string): Resolved {
    const checks: [string, string | undefined][] = [
      ['metadata.namespace', checkLabel(namespace)],
      [`${field}.service.name`, checkServiceName(ref.serviceName)],
      ref.portName !== undefined ? [`${field}.service.port.name`, checkPortName(ref.portName)] : [`${field}.service.port.number`, checkPortNumber(ref.portNumber)],
    ];
    const bad = checks.find(([, reason]) => reason !== undefined);
    if (bad?.[1]) return { ok: false, field: bad[0], reason: bad[1] };
    // The paths of an Ingress mostly name one Service port: it is resolved (its slices read) once per model.
    const key = `${namespace}/${ref.serviceName}|${ref.portName === undefined ? `#${String(ref.portNumber)}` : ref.portName}`;
    let done = this.resolved.get(key);
    if (done === undefined) {
      done = this.resolveNew(namespace, ref, field);
      this.resolved.set(key, done);
    }
    // a missing Service or port is a problem of each path that names it, at that path's field
    return done.ok && done.problem !== undefined && done.problem.field !== field ? { ...done, problem: { ...done.problem, field } } : done;
  }

  private resolveNew(namespace: string, ref: BackendRef, field: string): Resolved {
    const portLabel = ref.portName ?? String(ref.portNumber);
    const service = this.services.get(`${namespace}/${ref.serviceName}`);
    const empty = (reason: string, code: 'ServiceNotFound' | 'ServicePortNotFound'): Resolved => ({
      ok: true,
      upstream: this.upstream(namespace, ref.serviceName, portLabel, 0, []),
      problem: { field, reason, code },
    });
    if (!service) return empty(`Service ${namespace}/${ref.serviceName} not found; the path answers 503`, 'ServiceNotFound');
    if (service.spec?.type === 'ExternalName') {
      // No EndpointSlices: the name's addresses at the port the reference gives (problems go on the Service).
      const port = externalPort(service, ref);
      const up = this.upstream(namespace, ref.serviceName, portLabel, port, this.external?.endpoints(service, port) ?? []);
      return { ok: true, upstream: { ...up, externalName: service.spec.externalName ?? '' } };
    }
    const port = (service.spec?.ports ?? []).find((p) => (ref.portName !== undefined ? p.name === ref.portName : p.port === ref.portNumber));
    if (!port) {
      return empty(`Service ${namespace}/${ref.serviceName} has no port ${portLabel}; the path answers 503`, 'ServicePortNotFound');
    }
    const endpoints = this.endpointsFor(namespace, ref.serviceName, port.name ?? '');
    return { ok: true, upstream: this.upstream(namespace, ref.serviceName, String(port.port), port.port, endpoints) };
  }

  /**
   * `service-upstream`: the Service's cluster IP and port as the only endpoint (kube-proxy balances), or why it
   * cannot be (a headless Service); undefined when the Service or port is missing (already a Problem).
   */
  clusterEndpoint(u: Upstream): Endpoint | string | undefined {
    const id = refKey(u.service.namespace, u.service.name);
    const ip = this.services.get(id)?.spec?.clusterIP;
    if (u.servicePort === 0 || !this.services.has(id) || u.externalName !== undefined) return undefined;
    if (ip === undefined || ip === '' || ip === 'None') return `Service ${id} has no cluster IP (headless); service-upstream is ignored and the pod endpoints are used`;
    if (!isIp(ip)) return `Service ${id} has cluster IP ${JSON.stringify(ip.slice(0, 64))}, not an IP address; service-upstream is ignored and the pod endpoints are used`;
    const refused = refuseAddress(ip, u.servicePort, this.policy);
    if (refused) return `Service ${id} cluster IP refused: ${refused}; service-upstream is ignored and the pod endpoints are used`;
    return { address: ip, port: u.servicePort };
  }

  private upstream(namespace: string, service: string, portLabel: string, port: number, endpoints: readonly Endpoint[]): Upstream {
    return {
      name: `${namespace}_${service}_${portLabel}`,
      service: { kind: 'Service', namespace, name: service },
      servicePort: port,
      endpoints,
      loadBalance: this.loadBalance,
      hashBy: '',
      affinity: null,
      tuned: false,
    };
  }

  /** Ready endpoints; serving-but-terminating ones only when none is ready (as kube-proxy does). */
  private endpointsFor(namespace: string, service: string, portName: string): readonly Endpoint[] {
    const slices = this.slices.get(`${namespace}/${service}`) ?? [];
    if (slices.length === 1 && slices[0]) {
      // One slice (up to 100 endpoints, the common case): its endpoints as the memo keeps them, already chosen and
      // sorted; the very (frozen) list, not a copy per model
      const e = this.sliceEndpoints(slices[0], service, portName);
      for (const [key, problem] of e.refused) this.refused.set(key, problem);
      return e.chosen;
    }
    const ready = new Map<string, Endpoint>();
    const terminating = new Map<string, Endpoint>();
    for (const slice of slices) {
      const e = this.sliceEndpoints(slice, service, portName);
      for (const ep of e.ready) ready.set(`${ep.address}|${ep.port}`, ep);
      for (const ep of e.terminating) terminating.set(`${ep.address}|${ep.port}`, ep);
      for (const [key, problem] of e.refused) this.refused.set(key, problem);
    }
    return chosen(ready, terminating);
  }

  /** One slice's part, from the memo when this slice object was read before (at 10,000 Services, most of them). */
  private sliceEndpoints(slice: EndpointSlice, service: string, portName: string): SliceEndpoints {
    const memo = this.memo;
    if (memo === undefined) return this.readSlice(slice, service, portName);
    if (memo.policy !== this.policyKey) {
      memo.slices = new WeakMap();
      memo.policy = this.policyKey;
    }
    const key = `${service}|${portName}`;
    const held = memo.slices.get(slice);
    const cached = held === undefined ? undefined : held instanceof Map ? held.get(key) : held.key === key ? held.value : undefined;
    if (cached) return cached;
    const read = this.readSlice(slice, service, portName);
    if (held === undefined) memo.slices.set(slice, { key, value: read });
    else if (held instanceof Map) held.set(key, read);
    else
      memo.slices.set(
        slice,
        new Map([
          [held.key, held.value],
          [key, read],
        ]),
      );
    return read;
  }

  private readSlice(slice: EndpointSlice, service: string, portName: string): SliceEndpoints {
    const ready: Endpoint[] = [];
    const terminating: Endpoint[] = [];
    const refused: [string, Problem][] = [];
    const none = { ready: NONE, terminating: NONE, refused: NONE, chosen: NONE };
    if (slice.addressType === 'FQDN') return none;
    const port = (slice.ports ?? []).find((p) => (p.name ?? '') === portName)?.port;
    if (port === undefined || checkPortNumber(port)) return none;
    // by index, not entries(): an array made per endpoint was a third of this loop at 10,000 Services
    const list = endpointList(slice);
    for (let i = 0; i < list.length; i += 1) {
      const ep = list[i];
      if (ep === undefined) continue;
      const address = ep.addresses[0];
      if (address === undefined || !isIp(address)) continue;
      const no = this.refusal(slice, i, service, { address, port });
      if (no) {
        refused.push(no);
        continue;
      }
      const c = ep.conditions ?? {};
      const isReady = c.ready ?? true;
      const isServing = c.serving ?? isReady;
      if (isReady && c.terminating !== true) ready.push({ address, port });
      else if (isServing) terminating.push({ address, port });
    }
    return sliceResult(ready, terminating, refused);
  }

  /** The Problem (and its dedupe key) when the target policy refuses an endpoint: the rest of the upstream stays. */
  private refusal(slice: EndpointSlice, i: number, service: string, ep: Endpoint): [string, Problem] | undefined {
    const why = refuseAddress(ep.address, ep.port, this.policy);
    if (why === undefined) return undefined;
    const object = { kind: 'EndpointSlice', namespace: slice.metadata?.namespace ?? 'default', name: slice.metadata?.name ?? '' };
    const field = `endpoints[${i}].addresses[0]`;
    const reason = `endpoint ${ep.address} port ${ep.port} of Service ${object.namespace}/${service} is refused: ${why}; it is left out`;
    return [`${object.namespace}/${object.name}|${field}|${ep.port}`, { object, field, reason, severity: 'degraded', code: 'EndpointRefused' }];
  }

  /** The Problems of endpoints the target policy left out, in a stable order. */
  refusedEndpoints(): Problem[] {
    return [...this.refused.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, p]) => p);
  }
}

const V4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;
const GROUP = /^[0-9a-fA-F]{1,4}$/;

/** Colon-separated hex groups ('' is none), or -1 when one is not 1-4 hex digits. */
function groups(part: string): number {
  if (part === '') return 0;
  const gs = part.split(':');
  return gs.every((g) => GROUP.test(g)) ? gs.length : -1;
}

/**
 * An IPv6 literal without brackets or zone: eight groups, or fewer around one `::`, the last two optionally a dotted
 * IPv4 address. The same algorithm as valid_ipv6 in lua/portico/configuration.lua (test/lua/validity.test.ts).
 */
function isIpv6(value: string): boolean {
  if (value.length < 2 || value.length > 45 || !/^[0-9a-fA-F:.]+$/.test(value)) return false;
  let head = value;
  let max = 8;
  const tail = /:((\d+\.){3}\d+)$/.exec(value);
  if (tail?.[1] !== undefined) {
    if (!V4.test(tail[1])) return false;
    head = value.slice(0, value.length - tail[1].length);
    if (!head.endsWith('::')) head = head.slice(0, -1);
    max = 6;
  } else if (value.includes('.')) {
    return false;
  }
  const at = head.indexOf('::');
  if (at === -1) return groups(head) === max;
  if (head.indexOf('::', at + 1) !== -1) return false;
  const left = groups(head.slice(0, at));
  const right = groups(head.slice(at + 2));
  return left >= 0 && right >= 0 && left + right <= max - 1;
}

/** An IPv4 or IPv6 literal (nothing else may become an nginx peer). */
export function isIp(value: string): boolean {
  return V4.test(value) || isIpv6(value);
}
