// The addresses a Gateway asks for in spec.addresses (docs/adr/0037-gateway-static-addresses.md): each must be one of
// Portico's own addresses (the Ingress status ones, shared by every Gateway) or one of --gateway-static-addresses,
// which one namespace holds at a time (that of its oldest claimant). status.addresses lists exactly what a Gateway
// claimed; one without spec.addresses gets Portico's own. Pure: Gateways and flags in, addresses and verdicts out.
import type { Gateway } from '../model/gateway/api.js';
import { isIp } from '../model/backends.js';
import { nsKey } from '../model/keys.js';

/** One entry of Gateway status.addresses. */
export interface GatewayAddress {
  readonly type: 'IPAddress' | 'Hostname';
  readonly value: string;
}

/** The static address pool and who holds each of its addresses (see `staticClaims`). */
export interface StaticClaims {
  /** --gateway-static-addresses, typed. */
  readonly pool: readonly GatewayAddress[];
  /** Address key → the namespace of the Gateway that holds it. */
  readonly held: ReadonlyMap<string, string>;
}

/** A verdict for the Gateway's Programmed condition: [ok, reason, message]. */
export type AddressVerdict = readonly [ok: false, reason: 'AddressNotUsable' | 'AddressNotAssigned', message: string];

const SUPPORTED = new Set(['IPAddress', 'Hostname']);

const keyOf = (type: string, value: string): string => `${type}:${value.toLowerCase()}`;

/** IPs become IPAddress entries, anything else Hostname entries (as Ingress status addresses become Gateway ones). */
function typedAddresses(values: readonly string[]): GatewayAddress[] {
  return values.map((value): GatewayAddress => (isIp(value) ? { type: 'IPAddress', value } : { type: 'Hostname', value: value.toLowerCase() }));
}

/** Older first: creationTimestamp (none: last), then namespace/name, as model/builder.ts byAge orders Ingresses. */
function older(a: Gateway, b: Gateway): number {
  const [x, y] = [a.metadata?.creationTimestamp ?? '9999', b.metadata?.creationTimestamp ?? '9999'];
  if (x !== y) return Date.parse(x) - Date.parse(y) || (x < y ? -1 : 1);
  const [m, n] = [nsKey(a), nsKey(b)];
  return m < n ? -1 : m > n ? 1 : 0;
}

/**
 * Who holds each static address: the namespace of the oldest of `gateways` (Portico's accepted Gateways) that asks for
 * it. A Gateway of another namespace cannot take it while the holder asks for it; one of the same namespace shares it.
 */
export function staticClaims(gateways: readonly Gateway[], staticAddresses: readonly string[]): StaticClaims {
  const pool = typedAddresses(staticAddresses);
  const inPool = new Set(pool.map((a) => keyOf(a.type, a.value)));
  const held = new Map<string, string>();
  for (const g of [...gateways].sort(older)) {
    for (const a of g.spec?.addresses ?? []) {
      const key = keyOf(a.type ?? 'IPAddress', a.value ?? '');
      if (inPool.has(key) && !held.has(key)) held.set(key, g.metadata?.namespace ?? 'default');
    }
  }
  return { pool, held };
}

/**
 * The addresses a Gateway is bound to, and why it is not Programmed when one it asks for cannot be had. `own`:
 * Portico's own addresses, or undefined when unknown (then a Gateway whose claim needs them gets no verdict and its
 * addresses are left as they are). Entries of a type Portico does not support are the Accepted condition's concern.
 */
export function claimedAddresses(g: Gateway, own: readonly GatewayAddress[] | undefined, claims: StaticClaims): { addresses?: readonly GatewayAddress[]; problem?: AddressVerdict } {
  const requested = g.spec?.addresses ?? [];
  if (requested.length === 0) return own === undefined ? {} : { addresses: own };
  const namespace = g.metadata?.namespace ?? 'default';
  const out = new Map<string, GatewayAddress>();
  let problem: AddressVerdict | undefined;
  for (const [i, a] of requested.entries()) {
    const type = a.type ?? 'IPAddress';
    if (!SUPPORTED.has(type)) continue;
    const value = a.value ?? '';
    const field = `spec.addresses[${String(i)}]`;
    if (value === '') {
      // an entry with a type only: Portico assigns its own addresses of that type (GatewayAddressEmpty)
      if (own === undefined) return {};
      const mine = own.filter((x) => x.type === type);
      for (const x of mine) out.set(keyOf(x.type, x.value), x);
      if (mine.length === 0) problem ??= [false, 'AddressNotAssigned', `${field}: Portico has no ${type} address to assign (--publish-status-address, --publish-service)`];
      continue;
    }
    const key = keyOf(type, value);
    const inPool = claims.pool.find((x) => keyOf(x.type, x.value) === key);
    if (inPool !== undefined) {
      const holder = claims.held.get(key);
      if (holder === undefined || holder === namespace) out.set(key, inPool);
      else problem ??= [false, 'AddressNotUsable', `${field}: ${type} ${value} is held by a Gateway of another namespace (the oldest claimant holds a static address)`];
      continue;
    }
    if (own === undefined) return {};
    const mine = own.find((x) => keyOf(x.type, x.value) === key);
    if (mine !== undefined) out.set(key, mine);
    else
      problem ??= [
        false,
        'AddressNotUsable',
        `${field}: ${type} ${value} is not an address Portico may claim: neither one of --gateway-static-addresses nor one of its own (--publish-status-address, --publish-service)`,
      ];
  }
  return { addresses: [...out.values()], ...(problem ? { problem } : {}) };
}
