// Each listener of a Gateway judged as the specification's listener conditions read it: conflicts, protocol and port,
// allowedRoutes (namespaces Same/All/Selector over Namespace labels, kinds), and its certificate references.
import type { ConfigMap, Namespace, Secret } from '../input.js';
import { byName } from '../lookup.js';
import { checkHost } from '../names.js';
import { readTlsSecret } from '../tls-secrets.js';
import type { ObjectRef } from '../types.js';
import { GATEWAY_GROUP, type Gateway, type LabelSelector, type Listener, type ReferenceGrant, type RouteGroupKind } from './api.js';
import { granted } from './grants.js';
import { terminates, tlsAcceptance } from './tls-listener.js';
import { l4KindOf } from './l4-api.js';
import { l4Acceptance, type L4Context } from './l4.js';
import { portClaimed, portJudge, portUnavailable, type PortJudge } from './listener-ports.js';
import { socketClash } from './socket-clash.js';
import { GRPC_ON_HTTP, h2cListener } from './h2c.js';
import type { ListenerSetRef } from './listenerset.js';

/** A condition outcome: status, the specification's reason, a message for people. */
export type Outcome = readonly [ok: boolean, reason: string, message: string];

/** One listener with what status and attachment need. `selected`: the namespaces allowedRoutes Selector admits. */
export interface JudgedListener {
  readonly gateway: ObjectRef;
  /** The ListenerSet that added the listener to its Gateway (model/gateway/listenerset.ts); absent: the Gateway's own. */
  readonly set?: ListenerSetRef;
  readonly listener: Listener;
  /** `spec.listeners[i]` of the Gateway, for Problems. */
  readonly field: string;
  readonly selected?: ReadonlySet<string>;
  /** allowedRoutes.kinds admits HTTPRoute. */
  readonly routeKinds: boolean;
  /** allowedRoutes.kinds admits GRPCRoute (HTTPS listeners, and HTTP ones on an h2c port: docs/adr/0029). */
  readonly grpcKinds: boolean;
  /** allowedRoutes.kinds admits TLSRoute (TLS listeners only: model/gateway/tlsroute.ts). */
  readonly tlsKinds: boolean;
  readonly supportedKinds: readonly RouteGroupKind[];
  /** Accepted (PortUnavailable, UnsupportedProtocol, UnsupportedValue) and Conflicted (HostnameConflict, ProtocolConflict). */
  readonly accepted: Outcome;
  readonly conflicted: Outcome;
  /** ResolvedRefs: InvalidRouteKinds, InvalidCertificateRef, RefNotPermitted. */
  readonly resolvedRefs: Outcome;
  /** Why the listener is not served at all (its Problem), or undefined. */
  readonly refusal?: string;
  /** The field the refusal is about (`spec.listeners[i].port`, `.protocol`, ...), for its Problem. */
  readonly refusalField?: string;
  /** Parts refused while the listener is served (unsupported kinds), as [field, reason]. */
  readonly warnings: readonly (readonly [string, string])[];
}

const HTTPROUTE: RouteGroupKind = { group: GATEWAY_GROUP, kind: 'HTTPRoute' };
const GRPCROUTE: RouteGroupKind = { group: GATEWAY_GROUP, kind: 'GRPCRoute' };
const TLSROUTE: RouteGroupKind = { group: GATEWAY_GROUP, kind: 'TLSRoute' };

/**
 * The route kinds a listener of this protocol serves: HTTPRoute, and on HTTPS GRPCRoute too. GRPCRoute on an HTTP
 * listener needs h2c with prior knowledge, which Debian's nginx 1.22 cannot serve beside HTTP/1.1 on one port
 * (docs/adr/0020): only on a local port the operator made h2c (`h2c`, model/gateway/h2c.ts, docs/adr/0029).
 */
function kindsOf(protocol: string, h2c: boolean): readonly RouteGroupKind[] {
  if (protocol === 'TLS') return [TLSROUTE];
  const l4 = l4KindOf(protocol); // TCPRoute on TCP, UDPRoute on UDP (model/gateway/l4.ts)
  if (l4) return [{ group: GATEWAY_GROUP, kind: l4 }];
  // none for a protocol Portico does not serve: the conformance suite expects none listed there
  if (protocol !== 'HTTP' && protocol !== 'HTTPS') return [];
  return protocol === 'HTTPS' || h2c ? [HTTPROUTE, GRPCROUTE] : [HTTPROUTE];
}

/** Does a Kubernetes label selector (matchLabels and matchExpressions, ANDed) select these labels? Throws on an unknown operator. */
export function selects(sel: LabelSelector, labels: Readonly<Record<string, string>>): boolean {
  for (const [k, v] of Object.entries(sel.matchLabels ?? {})) if (labels[k] !== v) return false;
  for (const e of sel.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, e.key);
    const inValues = has && (e.values ?? []).includes(labels[e.key] ?? '');
    switch (e.operator) {
      case 'In':
        if (!inValues) return false;
        break;
      case 'NotIn':
        if (inValues) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        throw new Error(`unknown operator ${JSON.stringify(e.operator)} (In, NotIn, Exists, DoesNotExist)`);
    }
  }
  return true;
}

/** The labels of a Namespace, with the `kubernetes.io/metadata.name` the API server sets on every Namespace. */
function labelsOf(ns: Namespace): Record<string, string> {
  return { ...(ns.metadata?.labels ?? {}), 'kubernetes.io/metadata.name': ns.metadata?.name ?? '' };
}

/** The namespaces a Selector listener admits, or the reason its selector is unusable. */
function selectedNamespaces(l: Listener, namespaces: readonly Namespace[]): ReadonlySet<string> | string {
  const sel = l.allowedRoutes?.namespaces?.selector;
  if (!sel) return 'allowedRoutes.namespaces.selector is required with from Selector';
  try {
    return new Set(namespaces.filter((n) => selects(sel, labelsOf(n))).map((n) => n.metadata?.name ?? ''));
  } catch (err) {
    return `allowedRoutes.namespaces.selector: ${err instanceof Error ? err.message : String(err)}`;
  }
}

/** Accepted of one listener on its own: protocol, port (model/gateway/listener-ports.ts), TLS mode, hostname. */
function acceptance(l: Listener, gateway: ObjectRef, ports: PortJudge, snap: { readonly configMaps?: readonly ConfigMap[] }): Outcome {
  if (l.protocol === 'TLS') return tlsAcceptance(l, ports.policy.ports, `${gateway.namespace}/${gateway.name}`);
  if (l.protocol !== 'HTTP' && l.protocol !== 'HTTPS') return [false, 'UnsupportedProtocol', `protocol ${JSON.stringify(l.protocol)} is not supported (HTTP, HTTPS, TLS; TCP and UDP: docs/adr/0023)`];
  const gw = `${gateway.namespace}/${gateway.name}`;
  const port = portUnavailable(l, gw, ports.policy, { configMaps: snap.configMaps ?? [] }) ?? portClaimed(l, gw, ports);
  if (port !== undefined) return [false, 'PortUnavailable', `${port}: the listener is not served`];
  if (l.protocol === 'HTTPS' && (l.tls?.mode ?? 'Terminate') !== 'Terminate') return [false, 'UnsupportedValue', 'tls.mode Passthrough is not supported on an HTTPS listener'];
  const bad = l.hostname !== undefined ? checkHost(l.hostname.toLowerCase()) : undefined;
  if (bad) return [false, 'UnsupportedValue', `hostname: ${bad}`];
  return [true, 'Accepted', 'the listener is served'];
}

/** Conflicted: listeners of one Gateway on one port with different protocols, or the same protocol and hostname. */
function conflicts(listeners: readonly Listener[]): Outcome[] {
  return listeners.map((l, i) => {
    const peers = listeners.filter((o, j) => j !== i && o.port === l.port);
    if (peers.some((o) => o.protocol !== l.protocol)) return [true, 'ProtocolConflict', `another listener on port ${String(l.port)} has another protocol`];
    if (peers.some((o) => (o.hostname ?? '').toLowerCase() === (l.hostname ?? '').toLowerCase())) {
      return [true, 'HostnameConflict', `another listener on port ${String(l.port)} has the same hostname ${l.hostname ?? '(none)'}`];
    }
    return [false, 'NoConflicts', 'no conflict'];
  });
}

/** ResolvedRefs of the certificateRefs of an HTTPS listener or a TLS one in Terminate mode: Secrets of type kubernetes.io/tls, granted when in another namespace. */
function certificates(l: Listener, owner: ObjectRef, secrets: readonly Secret[], grants: readonly ReferenceGrant[]): Outcome {
  if (!terminates(l)) return [true, 'ResolvedRefs', 'every reference resolved'];
  const refs = l.tls?.certificateRefs ?? [];
  if (refs.length === 0) return [false, 'InvalidCertificateRef', `${l.protocol === 'TLS' ? 'a TLS' : 'an HTTPS'} listener needs tls.certificateRefs`];
  for (const [j, ref] of refs.entries()) {
    const where = `tls.certificateRefs[${j}]`;
    const group = ref.group ?? '';
    if ((group !== '' && group !== 'core') || (ref.kind ?? 'Secret') !== 'Secret')
      return [false, 'InvalidCertificateRef', `${where}: ${group !== '' ? `${group}/` : ''}${ref.kind ?? 'Secret'} is not a Secret`];
    const ns = ref.namespace ?? owner.namespace;
    if (ns !== owner.namespace && !granted(grants, { namespace: owner.namespace, kind: owner.kind }, ns, 'Secret', ref.name)) {
      return [false, 'RefNotPermitted', `${where}: no ReferenceGrant in namespace ${ns} lets ${owner.kind}s of ${owner.namespace} refer to Secret ${ref.name}`];
    }
    const secret = byName(secrets, ns, ref.name);
    if (!secret) return [false, 'InvalidCertificateRef', `${where}: Secret ${ns}/${ref.name} not found`];
    if (secret.type !== 'kubernetes.io/tls') return [false, 'InvalidCertificateRef', `${where}: Secret ${ns}/${ref.name} is not of type kubernetes.io/tls`];
    // The specification: a Secret whose tls.crt/tls.key are not a valid PEM pair is InvalidCertificateRef too.
    const read = readTlsSecret(secret, { kind: 'Secret', namespace: ns, name: ref.name });
    if (!read.ok) return [false, 'InvalidCertificateRef', `${where}: ${read.reason}`];
  }
  return [true, 'ResolvedRefs', 'every reference resolved'];
}

/** The part of a listener its refusal names: `.port`, `.protocol`, `.tls.mode`, `.hostname`, the selector, the certificateRefs; '' for a conflict. */
function refusedPart(accepted: Outcome, conflicted: Outcome): string {
  if (!accepted[0]) {
    if (accepted[1] === 'UnsupportedProtocol') return '.protocol';
    if (accepted[1] === 'PortUnavailable') return '.port';
    if (accepted[2].startsWith('tls.mode')) return '.tls.mode';
    if (accepted[2].startsWith('hostname')) return '.hostname';
    if (accepted[2].startsWith('allowedRoutes')) return '.allowedRoutes.namespaces.selector';
    return '';
  }
  return conflicted[0] ? '' : '.tls.certificateRefs';
}

/** The first `spec.addresses` entry of a type Portico cannot honour (IPAddress and Hostname only), with its index. */
export function unsupportedAddress(g: Gateway): { readonly index: number; readonly type: string } | undefined {
  const i = (g.spec?.addresses ?? []).findIndex((a) => (a.type ?? 'IPAddress') !== 'IPAddress' && a.type !== 'Hostname');
  return i < 0 ? undefined : { index: i, type: g.spec?.addresses?.[i]?.type ?? '' };
}

/** Why GRPCRoute is not an HTTP listener's kind, when that is what was asked. */
function grpcNote(protocol: string, k: RouteGroupKind): string {
  return protocol === 'HTTP' && k.kind === 'GRPCRoute' ? `: ${GRPC_ON_HTTP}` : '';
}

/**
 * The route kinds a listener admits (allowedRoutes.kinds, or its protocol's when unset or empty, as the specification
 * says), those it names that Portico does not serve there (each a Warning pushed to `warnings`), and the served list
 * for messages.
 */
function routeKinds(l: Listener, field: string, warnings: [string, string][], h2c: boolean): { supported: readonly RouteGroupKind[]; invalid: readonly RouteGroupKind[]; only: string } {
  const kinds = l.allowedRoutes?.kinds?.length ? l.allowedRoutes.kinds : undefined;
  const served = kindsOf(l.protocol, h2c);
  const known = (k: RouteGroupKind): RouteGroupKind | undefined => served.find((x) => (k.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && k.kind === x.kind);
  const supported = kinds === undefined ? served : served.filter((x) => kinds.some((k) => known(k) === x));
  const names = served.map((x) => x.kind).join(', ');
  const only = served.length === 0 ? `no route kind on ${l.protocol} listeners` : served.length === 1 ? `${names} only` : names;
  const invalid = (kinds ?? []).map((k, j) => [k, j] as const).filter(([k]) => known(k) === undefined);
  for (const [k, j] of invalid)
    warnings.push([
      `${field}.allowedRoutes.kinds[${j}]`,
      `InvalidRouteKinds: ${k.group ?? GATEWAY_GROUP}/${k.kind} is not supported (${only}${grpcNote(l.protocol, k)}); no route of that kind attaches`,
    ]);
  return { supported, invalid: invalid.map(([k]) => k), only };
}

/** Every listener of one Gateway, judged. */
export function judgeListeners(
  g: Gateway,
  gateway: ObjectRef,
  snap: { readonly namespaces?: readonly Namespace[]; readonly secrets: readonly Secret[]; readonly referenceGrants?: readonly ReferenceGrant[]; readonly configMaps?: readonly ConfigMap[] },
  how: { readonly l4?: L4Context; readonly ports?: PortJudge; readonly set?: ListenerSetRef } = {},
): JudgedListener[] {
  const ports = how.ports ?? portJudge([g]);
  const listeners = g.spec?.listeners ?? [];
  const conflicted = conflicts(listeners);
  // a ListenerSet's listeners (model/gateway/listenerset.ts) read Secrets of its namespace and carry it
  const owner = how.set ?? gateway;
  const setPart = how.set ? { set: how.set } : {};
  return listeners.map((l, i): JudgedListener => {
    const field = `spec.listeners[${i}]`;
    const warnings: [string, string][] = [];
    const { supported, invalid, only } = routeKinds(l, field, warnings, h2cListener(ports.policy.ports, l.protocol, l.port, `${gateway.namespace}/${gateway.name}`));
    let accepted = l4KindOf(l.protocol) && how.l4 ? l4Acceptance(l, gateway, how.l4, how.set) : acceptance(l, gateway, ports, snap);
    // an HTTP(S) and a TCP or TLS listener on one local port: the one whose nginx section came second is not served
    const clash = accepted[0] && how.l4?.sockets ? socketClash(l, gateway, how.l4.sockets, how.l4.ports) : undefined;
    if (clash !== undefined) accepted = [false, 'PortUnavailable', clash];
    let selected: ReadonlySet<string> | undefined;
    if (accepted[0] && (l.allowedRoutes?.namespaces?.from ?? 'Same') === 'Selector') {
      const s = selectedNamespaces(l, snap.namespaces ?? []);
      if (typeof s === 'string') accepted = [false, 'UnsupportedValue', s];
      else selected = s;
    }
    const certs = certificates(l, owner, snap.secrets, snap.referenceGrants ?? []);
    const resolvedRefs: Outcome = invalid.length > 0 ? [false, 'InvalidRouteKinds', `allowedRoutes.kinds: ${invalid.map((k) => k.kind).join(', ')} not supported (${only})`] : certs;
    const c = conflicted[i] as Outcome;
    // A listener without certificateRefs has nothing to serve; other certificate failures are served with the default certificate.
    const refusal = !accepted[0]
      ? accepted[2]
      : c[0]
        ? `Conflicted: ${c[2]}; neither listener is served`
        : terminates(l) && !l.tls?.certificateRefs?.length
          ? `${l.protocol === 'TLS' ? 'a TLS listener of tls.mode Terminate' : 'an HTTPS listener'} needs tls.certificateRefs`
          : undefined;
    return {
      gateway,
      ...setPart,
      listener: l,
      field,
      ...(selected ? { selected } : {}),
      routeKinds: supported.includes(HTTPROUTE),
      grpcKinds: supported.includes(GRPCROUTE),
      tlsKinds: supported.includes(TLSROUTE),
      supportedKinds: supported,
      accepted,
      conflicted: c,
      resolvedRefs,
      ...(refusal !== undefined ? { refusal, refusalField: `${field}${refusedPart(accepted, c)}` } : {}),
      warnings,
    };
  });
}
