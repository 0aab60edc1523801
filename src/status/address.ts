// The address written to status.loadBalancer.ingress, as ingress-nginx computes it. Pure: objects in, list out.
import type { Node, Pod, Service } from 'kubernetes-types/core/v1.js';
import { isIp } from '../model/backends.js';

/** One entry of status.loadBalancer.ingress: an IP or a hostname, never both. */
export type StatusAddress = { readonly ip: string } | { readonly hostname: string };

/** What the address is computed from: flags, and the objects the leader reads. */
export interface AddressSources {
  /** --publish-status-address, split on commas. */
  readonly publishStatusAddress: readonly string[];
  /** Whether --publish-service is set, and the Service it names when the API has it. */
  readonly publishServiceSet: boolean;
  readonly publishService: Service | undefined;
  /** The controller's pods (see controllerPods) and the nodes they run on. */
  readonly pods: readonly Pod[];
  readonly nodes: readonly Node[];
  /** --report-node-internal-ip-address. */
  readonly useInternalIp: boolean;
}

/** Labels that differ between revisions of one Deployment/DaemonSet: pods of a rolling update are all ours. */
const REVISION_LABELS = new Set(['pod-template-hash', 'controller-revision-hash', 'pod-template-generation']);

/** The pods in `pods` that carry every label of `self` (but the revision labels): the replicas of this controller. */
export function controllerPods(self: Pod, pods: readonly Pod[]): Pod[] {
  const want = Object.entries(self.metadata?.labels ?? {}).filter(([k]) => !REVISION_LABELS.has(k));
  return pods.filter((p) => p.metadata?.namespace === self.metadata?.namespace && want.every(([k, v]) => p.metadata?.labels?.[k] === v));
}

/** An IP literal becomes `ip`, anything else `hostname` (ingress-nginx's nameOrIPToLoadBalancerIngress). */
function toAddress(value: string): StatusAddress {
  return isIp(value) ? { ip: value } : { hostname: value };
}

function keyOf(a: StatusAddress): string {
  return 'ip' in a ? `ip:${a.ip}` : `hostname:${a.hostname}`;
}

/** Deduplicated and sorted (hostnames, then IPs, each in string order), so equal sets compare equal. */
export function normalize(list: readonly StatusAddress[]): StatusAddress[] {
  const unique = new Map(list.filter((a) => ('ip' in a ? a.ip : a.hostname) !== '').map((a) => [keyOf(a), a] as const));
  return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, a]) => a);
}

/** True when two address lists hold the same addresses. */
export function sameAddresses(a: readonly StatusAddress[], b: readonly StatusAddress[]): boolean {
  const x = normalize(a).map(keyOf);
  const y = normalize(b).map(keyOf);
  return x.length === y.length && x.every((k, i) => k === y[i]);
}

/** The addresses of the --publish-service Service, by its type, as ingress-nginx reads them. */
function fromService(svc: Service): StatusAddress[] {
  const spec = svc.spec ?? {};
  const clusterIp: StatusAddress[] = spec.clusterIP && spec.clusterIP !== 'None' ? [{ ip: spec.clusterIP }] : [];
  const external: StatusAddress[] = (spec.externalIPs ?? []).map((ip) => ({ ip }));
  switch (spec.type ?? 'ClusterIP') {
    case 'ExternalName':
      return spec.externalName ? [{ hostname: spec.externalName }] : [];
    case 'LoadBalancer': {
      const lb = (svc.status?.loadBalancer?.ingress ?? []).flatMap((i): StatusAddress[] => (i.ip ? [{ ip: i.ip }] : i.hostname ? [{ hostname: i.hostname }] : []));
      return [...lb, ...external];
    }
    case 'NodePort':
      return external.length > 0 ? external : clusterIp;
    default: // ClusterIP: ingress-nginx reports the cluster IP alone
      return clusterIp;
  }
}

/** ExternalIP, then InternalIP; only InternalIP with --report-node-internal-ip-address. */
function nodeAddress(node: Node, useInternalIp: boolean): string | undefined {
  const of = (type: string): string | undefined => (node.status?.addresses ?? []).find((a) => a.type === type && a.address !== '')?.address;
  return useInternalIp ? of('InternalIP') : (of('ExternalIP') ?? of('InternalIP'));
}

function isReady(pod: Pod): boolean {
  return pod.status?.phase === 'Running' && pod.metadata?.deletionTimestamp === undefined && (pod.status.conditions ?? []).some((c) => c.type === 'Ready' && c.status === 'True');
}

/**
 * The status addresses: --publish-status-address, else the --publish-service Service's, else the node addresses of
 * the ready controller pods. undefined when --publish-service names a Service the API does not have: the status
 * then stays as it is rather than flapping to nothing.
 */
export function statusAddresses(src: AddressSources): StatusAddress[] | undefined {
  if (src.publishStatusAddress.length > 0) return normalize(src.publishStatusAddress.map(toAddress));
  if (src.publishServiceSet) return src.publishService ? normalize(fromService(src.publishService)) : undefined;
  const nodes = new Map(src.nodes.map((n) => [n.metadata?.name ?? '', n] as const));
  const out: StatusAddress[] = [];
  for (const pod of src.pods) {
    if (!isReady(pod)) continue;
    const node = nodes.get(pod.spec?.nodeName ?? '');
    const address = node ? nodeAddress(node, src.useInternalIp) : undefined;
    if (address) out.push(toAddress(address));
  }
  return normalize(out);
}
