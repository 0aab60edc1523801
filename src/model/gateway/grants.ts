// ReferenceGrant checks: may objects of one namespace refer to objects of another (Services from HTTPRoutes, Secrets from Gateways)?
import { GATEWAY_GROUP, type ReferenceGrant } from './api.js';

/** Does a ReferenceGrant in `toNs` let `from.kind` objects (HTTPRoute by default, Gateway) of `from.namespace` refer to `kind` objects (named `name`) there? */
export function granted(grants: readonly ReferenceGrant[], from: { readonly namespace: string; readonly kind?: string }, toNs: string, kind: string, name: string): boolean {
  return grants.some(
    (g) =>
      (g.metadata?.namespace ?? 'default') === toNs &&
      (g.spec?.from ?? []).some((f) => f.group === GATEWAY_GROUP && f.kind === (from.kind ?? 'HTTPRoute') && f.namespace === from.namespace) &&
      (g.spec?.to ?? []).some((t) => (t.group === '' || t.group === 'core') && t.kind === kind && (t.name === undefined || t.name === '' || t.name === name)),
  );
}
