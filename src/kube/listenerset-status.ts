// ListenerSet status.conditions and status.listeners as status/listenerset.ts computes them, written by the
// Gateway status writer (kube/gateway-status.ts) after the Gateways: only ListenerSets naming Portico's Gateways.
import type { Snapshot } from '../model/input.js';
import type { Condition } from '../model/gateway/api.js';
import type { DesiredGatewayStatus } from '../status/gateway.js';
import type { ListenerSetStatus } from '../status/listenerset.js';

/** What the pass needs of the writer: the status as last written or seen, a write, and its lastTransitionTime rule. */
interface ListenerSetWriter {
  current(key: string, rv: string | undefined, status: unknown): { readonly conditions?: readonly Condition[]; readonly listeners?: ListenerSetStatus['listeners'] };
  write(key: string, target: { plural: string; namespace: string; name: string; rv: string | undefined }, status: ListenerSetStatus): Promise<void>;
  stamped(desired: readonly Condition[], old: readonly Condition[] | undefined, now: string): Condition[];
}

/** A ListenerSet status as compared: conditions and listeners without lastTransitionTime. */
function shape(s: { readonly conditions?: readonly Condition[]; readonly listeners?: ListenerSetStatus['listeners'] }): string {
  const bare = (cs: readonly Condition[]): unknown[] => cs.map((c) => [c.type, c.status, c.reason, c.message, c.observedGeneration]);
  return JSON.stringify([bare(s.conditions ?? []), (s.listeners ?? []).map((l) => [l.name, l.supportedKinds, l.attachedRoutes, bare(l.conditions)])]);
}

/** Writes each ListenerSet whose desired status differs from what it carries; others' ListenerSets are left alone. */
export async function listenerSetPass(snapshot: Snapshot, desired: DesiredGatewayStatus, now: string, w: ListenerSetWriter): Promise<void> {
  for (const ls of snapshot.listenerSets ?? []) {
    const namespace = ls.metadata?.namespace ?? 'default';
    const name = ls.metadata?.name ?? '';
    const want = desired.listenerSets?.get(`${namespace}/${name}`);
    if (!want) continue; // its parent is not one of Portico's Gateways
    const key = `ListenerSet/${namespace}/${name}`;
    const cur = w.current(key, ls.metadata?.resourceVersion, ls.status);
    if (shape(cur) === shape(want)) continue;
    const old = new Map((cur.listeners ?? []).map((l) => [l.name, l.conditions]));
    await w.write(
      key,
      { plural: 'listenersets', namespace, name, rv: ls.metadata?.resourceVersion },
      { conditions: w.stamped(want.conditions, cur.conditions, now), listeners: want.listeners.map((l) => ({ ...l, conditions: w.stamped(l.conditions, old.get(l.name), now) })) },
    );
  }
}
