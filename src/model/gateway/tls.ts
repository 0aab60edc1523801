// HTTPS listeners → TLS hosts: which Secret (tls.certificateRefs) serves which hostname, checked for kind and ReferenceGrant.
import { checkHost } from '../names.js';
import type { ObjectRef } from '../types.js';
import type { ReferenceGrant } from './api.js';
import type { Attachment, ServedListener } from './attach.js';
import { granted } from './grants.js';

/** One hostname of an HTTPS listener and the Secret that should serve it (model/tls.ts reads it like an Ingress's spec.tls). */
export interface GatewayTlsHost {
  readonly host: string;
  readonly gateway: ObjectRef;
  /** `spec.listeners[i].tls.certificateRefs[0]`, for Problems. */
  readonly field: string;
  /** The Secret, or undefined with `refused` saying why (the host is then served with the default certificate). */
  readonly secret: ObjectRef | undefined;
  readonly refused?: string;
  /** For a listener without hostname: the routes whose hostnames gave it this host (they claim it too, model/hosts.ts). */
  readonly routes?: readonly ObjectRef[];
}

/** An HTTPS listener without hostname: its certificate serves any SNI name nobody else owns (model/tls.ts). */
export interface GatewayDefaultTls {
  readonly gateway: ObjectRef;
  readonly field: string;
  readonly secret: ObjectRef | undefined;
  readonly refused?: string;
}

/** The Secret of an HTTPS listener's first certificateRef, or why it may not be used. */
export function secretOf(s: ServedListener, grants: readonly ReferenceGrant[]): { secret: ObjectRef } | { refused: string } {
  const ref = s.listener.tls?.certificateRefs?.[0];
  if (!ref) return { refused: 'no tls.certificateRefs' };
  const group = ref.group ?? '';
  if ((group !== '' && group !== 'core') || (ref.kind ?? 'Secret') !== 'Secret') {
    return { refused: `InvalidCertificateRef: ${group}/${ref.kind ?? ''} is not a Secret` };
  }
  const owner = s.set ?? s.gateway; // a ListenerSet's listener reads Secrets of the ListenerSet's namespace
  const namespace = ref.namespace ?? owner.namespace;
  if (namespace !== owner.namespace && !granted(grants, { namespace: owner.namespace, kind: owner.kind }, namespace, 'Secret', ref.name)) {
    return { refused: `RefNotPermitted: no ReferenceGrant in namespace ${namespace} lets ${owner.kind}s of ${owner.namespace} refer to Secret ${ref.name}` };
  }
  return { secret: { kind: 'Secret', namespace, name: ref.name } };
}

/**
 * The TLS hosts of every served HTTPS listener: its `hostname` when set, else the hostnames of the routes attached
 * to it (a listener without hostname and a route without hostnames: the default certificate). Sorted by host.
 */
export function gatewayTlsHosts(served: readonly ServedListener[], attachments: readonly Attachment[], grants: readonly ReferenceGrant[]): GatewayTlsHost[] {
  const out = new Map<string, GatewayTlsHost>();
  for (const s of served) {
    if (s.listener.protocol !== 'HTTPS') continue;
    const hosts =
      s.listener.hostname !== undefined
        ? [s.listener.hostname.toLowerCase()]
        : attachments
            .filter((a) => a.listener === s)
            .flatMap((a) => a.hosts)
            .filter((h) => h !== '');
    const field = `${s.field}.tls.certificateRefs[0]`;
    const which = secretOf(s, grants);
    for (const host of hosts) {
      const key = `${host} ${s.gateway.namespace}/${s.gateway.name}`;
      if (out.has(key) || checkHost(host)) continue;
      const routes = s.listener.hostname !== undefined ? [] : attachments.filter((a) => a.listener === s && a.hosts.includes(host)).map((a) => a.route);
      out.set(key, { host, gateway: s.gateway, field, ...('secret' in which ? { secret: which.secret } : { secret: undefined, refused: which.refused }), ...(routes.length > 0 ? { routes } : {}) });
    }
  }
  return [...out.values()].sort((a, b) => (a.host < b.host ? -1 : a.host > b.host ? 1 : 0));
}

/**
 * The certificate for SNI names no certificate and no other namespace claims: the first HTTPS listener without
 * hostname of the oldest Gateway having one (`served` in that order). The specification gives such a listener's
 * certificate to any name; other hostname-less listeners keep their routes' hostnames (gatewayTlsHosts).
 */
export function gatewayDefaultTls(served: readonly ServedListener[], grants: readonly ReferenceGrant[]): GatewayDefaultTls | undefined {
  const s = served.find((x) => x.listener.protocol === 'HTTPS' && x.listener.hostname === undefined);
  if (!s) return undefined;
  const which = secretOf(s, grants);
  return { gateway: s.gateway, field: `${s.field}.tls.certificateRefs[0]`, ...('secret' in which ? { secret: which.secret } : { secret: undefined, refused: which.refused }) };
}
