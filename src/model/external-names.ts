// Services of type ExternalName as backends: the port a backend reference gives, and the endpoints of the addresses
// the controller resolved the name to (src/sources/external-names.ts; docs/adr/0019). Pure: resolution is an input.
import type { ResolvedName, Service } from './input.js';
import { clip } from './names.js';
import { parseIp, refuseAddress, type TargetPolicy } from './targets.js';
import type { Endpoint, Problem } from './types.js';

const DNS1123_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The port of an ExternalName backend when neither the reference nor the Service gives one (ingress-nginx: 80). */
const DEFAULT_EXTERNAL_PORT = 80;

/**
 * Why `spec.externalName` cannot be resolved, or undefined: an IP literal, or a DNS-1123 subdomain (a short name such
 * as `echo` is completed by the resolver's search list) with an optional trailing dot (a complete name).
 */
export function checkExternalName(value: string): string | undefined {
  if (value.includes(':') && parseIp(value) !== undefined) return undefined; // IPv6; IPv4 is a DNS-1123 subdomain too
  const name = value.endsWith('.') ? value.slice(0, -1) : value;
  const ok = name.length > 0 && name.length <= 253 && name.split('.').every((l) => l.length <= 63 && DNS1123_LABEL.test(l));
  return ok ? undefined : `${JSON.stringify(clip(value))} is not a DNS name (lowercase letters, digits, '-' and '.') or an IP address`;
}

/** The names the snapshot's ExternalName Services ask to resolve (valid ones only), sorted and unique. */
export function externalNamesOf(services: readonly Service[]): string[] {
  const names = new Set<string>();
  for (const s of services) {
    const name = s.spec?.type === 'ExternalName' ? s.spec.externalName : undefined;
    if (name !== undefined && checkExternalName(name) === undefined) names.add(name);
  }
  return [...names].sort();
}

/** A backend's port as an Ingress (or a tcp-services entry) writes it. */
export interface PortRef {
  readonly portNumber: number | undefined;
  readonly portName: string | undefined;
}

/**
 * The port to connect to, as ingress-nginx reads an ExternalName Service: the Service port the reference names (by
 * number or name) gives its targetPort when that is a number, else its port; a number the Service does not declare
 * is used as it is; a name it does not declare gives DEFAULT_EXTERNAL_PORT.
 */
export function externalPort(service: Service, ref: PortRef): number {
  const sp = (service.spec?.ports ?? []).find((p) => (ref.portName !== undefined ? p.name === ref.portName : p.port === ref.portNumber));
  if (sp) return typeof sp.targetPort === 'number' && sp.targetPort > 0 ? sp.targetPort : sp.port;
  return ref.portName === undefined && ref.portNumber !== undefined ? ref.portNumber : DEFAULT_EXTERNAL_PORT;
}

/** The resolutions a build reads, and the Problems of the ExternalName Services it met (one each, on the Service). */
export class ExternalNames {
  private readonly byName: ReadonlyMap<string, ResolvedName>;
  private readonly found = new Map<string, Problem>();

  constructor(
    resolved: readonly ResolvedName[],
    private readonly disabled: boolean,
    private readonly policy: TargetPolicy | undefined,
  ) {
    this.byName = new Map(resolved.map((r) => [r.name, r]));
  }

  /** The endpoints of ExternalName Service `service` at `port`: its resolved addresses the target policy allows. */
  endpoints(service: Service, port: number): Endpoint[] {
    const namespace = service.metadata?.namespace ?? 'default';
    const object = { kind: 'Service', namespace, name: service.metadata?.name ?? '' };
    const id = `${namespace}/${object.name}`;
    const name = service.spec?.externalName ?? '';
    const report = (field: string, reason: string): void => {
      this.found.set(`${id}|${field}|${reason}`, { object, field, reason, severity: 'degraded', ...(field === 'spec.externalName' ? { code: 'ExternalNameUnresolved' } : {}) });
    };
    if (this.disabled) {
      report('spec.type', `Service ${id} is of type ExternalName, which --disable-svc-external-name ignores; the paths to it answer 503`);
      return [];
    }
    const bad = checkExternalName(name);
    if (bad !== undefined) {
      report('spec.externalName', `${bad}; the paths to Service ${id} answer 503`);
      return [];
    }
    const r = this.byName.get(name);
    if (r === undefined) return []; // not resolved yet: the resolver asks for a sync when it is
    if (r.error !== undefined) {
      report('spec.externalName', `${JSON.stringify(name)} does not resolve (${clip(r.error)}); the paths to Service ${id} answer 503`);
      return [];
    }
    const out: Endpoint[] = [];
    for (const address of r.addresses) {
      const why = refuseAddress(address, port, this.policy);
      if (why === undefined) out.push({ address, port });
      else report('spec.externalName', `${JSON.stringify(name)} resolves to ${address} port ${port}, which is refused: ${why}; it is left out`);
    }
    return out.sort((a, b) => a.address.localeCompare(b.address));
  }

  /** The Problems met, in a stable order. */
  problems(): Problem[] {
    return [...this.found.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([, p]) => p);
  }
}
