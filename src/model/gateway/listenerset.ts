// ListenerSets (Gateway API v1.6, GEP-1713): listeners a ListenerSet adds to its parent Gateway, only where the
// Gateway's spec.allowedListeners admits the ListenerSet's namespace (None by default). The Gateway's own listeners
// win a conflict, then the oldest ListenerSet's (creationTimestamp, then namespace/name).
import type { Namespace, Snapshot } from '../input.js';
import type { ObjectRef } from '../types.js';
import { nsKey } from '../keys.js';
import { GATEWAY_GROUP, type Gateway, type Listener, type ListenerSet } from './api.js';
import { judgeListeners, selects, type JudgedListener, type Outcome } from './listeners.js';
import type { L4Context } from './l4.js';
import type { PortJudge } from './listener-ports.js';

/** A ListenerSet as a served listener names it: its reference and its age (host claims are made at its age, in its namespace). */
export interface ListenerSetRef extends ObjectRef {
  readonly created?: string;
}

/** One ListenerSet naming one of Portico's Gateways: accepted with its judged listeners, or refused with the specification's reason. */
export interface JudgedListenerSet {
  readonly set: ListenerSetRef;
  readonly gateway: ObjectRef;
  /** Accepted: Accepted, NotAllowed (allowedListeners), ListenersNotValid (no listener served). */
  readonly accepted: Outcome;
  readonly listeners: readonly JudgedListener[];
}

/**
 * A listener that makes its ListenerSet Accepted: served, and its references resolved (an unsupported extra route kind
 * aside, while it admits a kind Portico serves there: a listener that admits none serves nothing).
 */
function valid(j: JudgedListener): boolean {
  return j.refusal === undefined && (j.resolvedRefs[0] || (j.resolvedRefs[1] === 'InvalidRouteKinds' && j.supportedKinds.length > 0));
}

/** The reference a ListenerSet's listeners carry. */
const setRef = (ls: ListenerSet): ListenerSetRef => ({ kind: 'ListenerSet', namespace: ls.metadata?.namespace ?? 'default', name: ls.metadata?.name ?? '', created: ls.metadata?.creationTimestamp });

/** Oldest first, then namespace/name: the specification's order between ListenerSets. */
function byAge(a: ListenerSet, b: ListenerSet): number {
  const ta = a.metadata?.creationTimestamp ?? '9999';
  const tb = b.metadata?.creationTimestamp ?? '9999';
  if (ta !== tb) return ta < tb ? -1 : 1;
  return nsKey(a) < nsKey(b) ? -1 : nsKey(a) > nsKey(b) ? 1 : 0;
}

/** The ListenerSets whose parentRef names this Gateway (group and kind default to the Gateway's, namespace to the ListenerSet's), oldest first. */
function listenerSetsOf(snapshot: Pick<Snapshot, 'listenerSets'>, gateway: ObjectRef): ListenerSet[] {
  return (snapshot.listenerSets ?? [])
    .filter((s) => {
      const p = s.spec?.parentRef;
      if (!p || (p.group ?? GATEWAY_GROUP) !== GATEWAY_GROUP || (p.kind ?? 'Gateway') !== 'Gateway') return false;
      return (p.namespace ?? s.metadata?.namespace ?? 'default') === gateway.namespace && p.name === gateway.name;
    })
    .sort(byAge);
}

/** Does the Gateway's allowedListeners admit ListenerSets of this namespace? Unset or None: no namespace (a security default). */
function listenersAllowed(g: Gateway, namespace: string, namespaces: readonly Namespace[]): boolean {
  const from = g.spec?.allowedListeners?.namespaces?.from ?? 'None';
  if (from === 'All') return true;
  if (from === 'Same') return namespace === (g.metadata?.namespace ?? 'default');
  if (from !== 'Selector') return false;
  const sel = g.spec?.allowedListeners?.namespaces?.selector;
  const ns = namespaces.find((n) => n.metadata?.name === namespace);
  if (!sel || !ns) return false;
  try {
    return selects(sel, { ...(ns.metadata?.labels ?? {}), 'kubernetes.io/metadata.name': namespace });
  } catch {
    return false; // an unknown operator admits nobody
  }
}

/** Conflicted of a listener against those that win over it (the Gateway's, then older ListenerSets'), or undefined. */
function conflictWith(l: Listener, winners: readonly Listener[]): Outcome | undefined {
  const peers = winners.filter((o) => o.port === l.port);
  if (peers.some((o) => o.protocol !== l.protocol)) return [true, 'ProtocolConflict', `a listener of the Gateway or an older ListenerSet on port ${String(l.port)} has another protocol`];
  const host = (l.hostname ?? '').toLowerCase();
  if (peers.some((o) => (o.hostname ?? '').toLowerCase() === host))
    return [true, 'HostnameConflict', `a listener of the Gateway or an older ListenerSet on port ${String(l.port)} has the same hostname ${l.hostname ?? '(none)'}`];
  return undefined;
}

/** A judgement of `spec.listeners[0]` moved to index `i` (its field, its refusal's and its warnings'). */
function reindexed(j: JudgedListener, i: number): JudgedListener {
  const at = (f: string): string => (f.startsWith('spec.listeners[0]') ? `spec.listeners[${i}]${f.slice('spec.listeners[0]'.length)}` : f);
  return { ...j, field: at(j.field), ...(j.refusalField !== undefined ? { refusalField: at(j.refusalField) } : {}), warnings: j.warnings.map(([f, r]) => [at(f), r] as const) };
}

/**
 * One ListenerSet's listeners judged as the Gateway's are (model/gateway/listeners.ts), one at a time, then against
 * the listeners that win over them: the Gateway's, older ListenerSets', and those before them in this one (each one
 * that is served joins `winners`).
 */
function judgeSet(
  g: Gateway,
  gateway: ObjectRef,
  set: ListenerSetRef,
  ls: ListenerSet,
  ctx: { readonly snap: Parameters<typeof judgeListeners>[2]; readonly how: { readonly l4?: L4Context; readonly ports?: PortJudge }; readonly winners: Listener[] },
): JudgedListener[] {
  return (ls.spec?.listeners ?? []).map((l, i): JudgedListener => {
    const one: Gateway = { ...g, spec: { ...g.spec, listeners: [l] } };
    const j = reindexed(judgeListeners(one, gateway, ctx.snap, { ...ctx.how, set })[0] as JudgedListener, i);
    // a conflict with a listener that wins is said first, whatever else is wrong with this one
    const c = conflictWith(j.listener, ctx.winners);
    if (c !== undefined) return { ...j, conflicted: c, refusal: `Conflicted: ${c[2]}; this listener is not served`, refusalField: j.field };
    if (j.refusal === undefined) ctx.winners.push(j.listener);
    return j;
  });
}

/**
 * The ListenerSets of one of Portico's Gateways, judged: allowed or not, and their listeners after the Gateway's own
 * (`gatewayListeners`) and older ListenerSets' have taken their ports and hostnames.
 */
export function judgeListenerSets(
  g: Gateway,
  gateway: ObjectRef,
  snap: Parameters<typeof judgeListeners>[2] & Pick<Snapshot, 'listenerSets'>,
  how: { readonly l4?: L4Context; readonly ports?: PortJudge } = {},
): JudgedListenerSet[] {
  const winners: Listener[] = [...(g.spec?.listeners ?? [])];
  return listenerSetsOf(snap, gateway).map((ls): JudgedListenerSet => {
    const set = setRef(ls);
    if (!listenersAllowed(g, set.namespace, snap.namespaces ?? [])) {
      return {
        set,
        gateway,
        accepted: [false, 'NotAllowed', `Gateway ${gateway.namespace}/${gateway.name} does not allow ListenerSets of namespace ${set.namespace} (spec.allowedListeners)`],
        listeners: [],
      };
    }
    const judged = judgeSet(g, gateway, set, ls, { snap, how, winners });
    if (judged.some(valid)) return { set, gateway, accepted: [true, 'Accepted', 'the ListenerSet is accepted'], listeners: judged };
    // not accepted: none of its listeners is served, not even one a Gateway would serve with the default certificate
    const why = 'ListenersNotValid: no listener of the ListenerSet is valid; the ListenerSet is not served';
    const listeners = judged.map((j): JudgedListener => (j.refusal !== undefined ? j : { ...j, refusal: why, refusalField: j.field }));
    return { set, gateway, accepted: [false, 'ListenersNotValid', 'no listener of the ListenerSet is valid (see status.listeners)'], listeners };
  });
}

/**
 * The listeners that take local ports for a Gateway (model/gateway/listener-ports.ts, l4.ts, socket-clash.ts): its
 * own, then those of the ListenerSets it admits, oldest first, each one no earlier listener conflicts with. A
 * ListenerSet's listeners take ports as their Gateway's, at their Gateway's age (docs/adr/0035).
 */
export function portListeners(g: Gateway, snap: Pick<Snapshot, 'listenerSets' | 'namespaces'>): { readonly set?: ListenerSetRef; readonly listener: Listener }[] {
  const own = g.spec?.listeners ?? [];
  const out: { set?: ListenerSetRef; listener: Listener }[] = own.map((listener) => ({ listener }));
  if ((snap.listenerSets ?? []).length === 0) return out;
  const gateway: ObjectRef = { kind: 'Gateway', namespace: g.metadata?.namespace ?? 'default', name: g.metadata?.name ?? '' };
  const winners: Listener[] = [...own];
  for (const ls of listenerSetsOf(snap, gateway)) {
    const set = setRef(ls);
    if (!listenersAllowed(g, set.namespace, snap.namespaces ?? [])) continue;
    for (const listener of ls.spec?.listeners ?? []) {
      if (conflictWith(listener, winners) !== undefined) continue;
      winners.push(listener);
      out.push({ set, listener });
    }
  }
  return out;
}

/** The Gateway with the admitted ListenerSets' listeners after its own: what claims its local ports (listener-ports.ts portJudge). */
export function withSetListeners(g: Gateway, snap: Pick<Snapshot, 'listenerSets' | 'namespaces'>): Gateway {
  if ((snap.listenerSets ?? []).length === 0) return g;
  return { ...g, spec: { ...g.spec, listeners: portListeners(g, snap).map((p) => p.listener) } };
}

/** The ListenerSets of a Gateway Portico does not serve (an unsupported address, parameters): ParentNotAccepted, nothing served. */
export function parentNotAccepted(snap: Pick<Snapshot, 'listenerSets'>, gateway: ObjectRef, why: string): JudgedListenerSet[] {
  return listenerSetsOf(snap, gateway).map((ls) => ({
    set: setRef(ls),
    gateway,
    accepted: [false, 'ParentNotAccepted', `Gateway ${gateway.namespace}/${gateway.name} is not accepted: ${why}`],
    listeners: [],
  }));
}
