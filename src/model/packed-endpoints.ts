// An EndpointSlice's endpoints as the store and the build worker keep them: one string of addresses and one of
// conditions, instead of three or four objects per endpoint (docs/adr/0060). At 100,000 Services with 1,000,000
// endpoints the parsed slices took 164 MiB of a heap, packed 63 MiB; the cluster is held twice (the store and the
// build worker's snapshot). Pure: no I/O. Readers go through endpointList(), which answers for both forms.
import type { EndpointSlice } from 'kubernetes-types/discovery/v1.js';

/** An endpoint as the model and the inspector read it: what store/kinds.ts keeps of one (ENDPOINT_FIELDS). */
export interface StoredEndpoint {
  readonly addresses: readonly string[];
  readonly conditions?: { readonly ready?: boolean; readonly serving?: boolean; readonly terminating?: boolean };
}

/**
 * The packed form: `addresses` holds each endpoint's addresses joined by ',', the endpoints joined by ' '; `states` one
 * character per endpoint for its conditions (stateChar). Plain data: it survives JSON and structured clone as it is.
 */
export interface PackedEndpoints {
  readonly addresses: string;
  readonly states: string;
}

/** A slice as stored: the API's endpoints (kept when they cannot be packed exactly), or packed. */
export type StoredEndpointSlice = Omit<EndpointSlice, 'endpoints'> & { readonly endpoints: readonly StoredEndpoint[] | PackedEndpoints };

const CONDITION_KEYS = ['ready', 'serving', 'terminating'] as const;
/** The character of an endpoint without a `conditions` field; the 27 others are 'a' + (ready, serving, terminating) in base 3. */
const ABSENT = 'A';
/** One address as packed: no separator, nothing the API would not send (IPs, FQDN names); anything else stays unpacked. */
const ADDRESS = /^[0-9A-Za-z.:_%-]{1,253}$/;

const tri = (v: boolean | undefined): number => (v === undefined ? 0 : v ? 1 : 2);

/** The character for `c`, or undefined when it holds anything but the three booleans (kept unpacked, as it came). */
function stateChar(c: unknown): string | undefined {
  if (c === undefined) return ABSENT;
  if (c === null || typeof c !== 'object' || Array.isArray(c)) return undefined;
  const o = c as Record<string, unknown>;
  let n = 0;
  for (const k in o) {
    if (!(CONDITION_KEYS as readonly string[]).includes(k)) return undefined;
    if (o[k] !== undefined && typeof o[k] !== 'boolean') return undefined;
    n += 1;
  }
  if (n > 3) return undefined;
  const code = tri(o['ready'] as boolean | undefined) * 9 + tri(o['serving'] as boolean | undefined) * 3 + tri(o['terminating'] as boolean | undefined);
  return String.fromCharCode(97 + code);
}

/** The frozen conditions object of each character, shared by every endpoint decoded with it. */
const CONDITIONS = new Map<string, StoredEndpoint['conditions']>();
for (let code = 0; code < 27; code += 1) {
  const values = [Math.floor(code / 9), Math.floor(code / 3) % 3, code % 3];
  const entries = CONDITION_KEYS.flatMap((k, i) => (values[i] === 0 ? [] : [[k, values[i] === 1] as const]));
  CONDITIONS.set(String.fromCharCode(97 + code), Object.freeze(Object.fromEntries(entries)));
}

/**
 * `list` packed, or undefined when an endpoint holds what the packed form cannot give back exactly (a field besides
 * addresses and conditions, an address with a separator or outside the API's characters, a condition not boolean).
 */
export function packEndpoints(list: readonly unknown[]): PackedEndpoints | undefined {
  let addresses = '';
  let states = '';
  for (let i = 0; i < list.length; i += 1) {
    const e = list[i];
    if (e === null || typeof e !== 'object' || Array.isArray(e)) return undefined;
    const ep = e as Record<string, unknown>;
    for (const k in ep) if (k !== 'addresses' && k !== 'conditions') return undefined;
    const a = ep['addresses'];
    if (!Array.isArray(a)) return undefined;
    for (const x of a as unknown[]) if (typeof x !== 'string' || !ADDRESS.test(x)) return undefined;
    const s = stateChar(ep['conditions']);
    if (s === undefined) return undefined;
    addresses += (i === 0 ? '' : ' ') + (a as string[]).join(',');
    states += s;
  }
  return { addresses, states };
}

/** True for the packed form (a JSON text of a stored slice may carry either). */
export function isPacked(e: unknown): e is PackedEndpoints {
  return e !== null && typeof e === 'object' && !Array.isArray(e) && typeof (e as { states?: unknown }).states === 'string';
}

/** The endpoints of a stored slice (either form), as the API gave them less what the store drops. */
export function endpointList(slice: { readonly endpoints?: readonly StoredEndpoint[] | PackedEndpoints }): readonly StoredEndpoint[] {
  const e = slice.endpoints;
  if (e === undefined) return [];
  if (!isPacked(e)) return e;
  const n = e.states.length;
  if (n === 0) return [];
  const parts = e.addresses.split(' ');
  const out: StoredEndpoint[] = new Array<StoredEndpoint>(n);
  for (let i = 0; i < n; i += 1) {
    const p = parts[i] ?? '';
    const addresses = p === '' ? [] : p.split(',');
    const c = e.states[i] ?? ABSENT;
    out[i] = c === ABSENT ? { addresses } : { addresses, conditions: CONDITIONS.get(c) ?? {} };
  }
  return out;
}
