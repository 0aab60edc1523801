// The safety net behind validation: when nginx -t (or the renderer) refuses a configuration, the one Ingress that
// caused it is found and left out (until it changes), and the rest is applied: one Ingress never blocks the others.
import type { Snapshot } from '../model/input.js';
import type { Model, ObjectRef, Problem } from '../model/types.js';
import type { RenderedConf, ServerLines } from '../render/nginx-conf.js';
import { nsKey, refKey } from '../model/keys.js';

/** The server block holding `line` (1-based) of a rendered nginx.conf, from the renderer's own map of its lines. */
export function serverAt(conf: Pick<RenderedConf, 'serverLines'>, line: number): ServerLines | undefined {
  return conf.serverLines.find((b) => b.first <= line && line <= b.last);
}

/**
 * The Ingresses nginx's refusal points at (from `...candidate:LINE` in its message), most likely first: the Ingress
 * of the location holding the line, then the other Ingresses of its server block. Empty: the line is outside any
 * server of the model (http level, a www redirect), or nginx named no line. Both the server block and the location
 * come from the renderer's map of its lines.
 */
export function blame(message: string, conf: Pick<RenderedConf, 'serverLines'>, model: Model): ObjectRef[] {
  const line = Number(/\.candidate:(\d+)/.exec(message)?.[1] ?? NaN);
  if (Number.isNaN(line)) return [];
  const block = serverAt(conf, line);
  const server = block === undefined ? undefined : model.servers.find((s) => s.host === block.host);
  if (!block || !server) return [];
  const index = block.locations.findIndex(([first, last]) => first <= line && line <= last);
  const at = server.locations[index];
  const refs = new Map<string, ObjectRef>();
  if (at?.target.kind === 'upstream') refs.set(refKey(at.target.ingress.namespace, at.target.ingress.name), at.target.ingress);
  for (const l of server.locations) if (l.target.kind === 'upstream') refs.set(refKey(l.target.ingress.namespace, l.target.ingress.name), l.target.ingress);
  return [...refs.values()];
}

/** Ingresses held out of the model, each until its resourceVersion changes or an Ingress it was held beside is deleted. */
export class Quarantine {
  private readonly held = new Map<string, { rv: string | undefined; reason: string; ref: ObjectRef }>();
  /** The Ingresses present when the last one was held: when one of them is gone, every hold is tried again. */
  private present = new Set<string>();

  get size(): number {
    return this.held.size;
  }

  /** Holds `refs` at their current versions in `snap`. */
  add(refs: readonly ObjectRef[], snap: Snapshot, reason: string): void {
    for (const ref of refs) {
      const ing = snap.ingresses.find((i) => i.metadata?.namespace === ref.namespace && i.metadata.name === ref.name);
      this.held.set(refKey(ref.namespace, ref.name), { rv: ing?.metadata?.resourceVersion, reason, ref });
    }
    // `snap` is already filtered: the Ingresses held before count as present too.
    this.present = new Set([...snap.ingresses.map(nsKey), ...this.held.keys()]);
  }

  /**
   * The snapshot without held Ingresses. An Ingress that changed since it was held is released; when an Ingress
   * present at the last hold was deleted, all are released, so a hold never outlives the Ingress that caused it.
   */
  filter(snap: Snapshot): Snapshot {
    if (this.held.size === 0) return snap;
    const keys = new Set(snap.ingresses.map(nsKey));
    if ([...this.present].some((k) => !keys.has(k))) this.held.clear();
    for (const k of [...this.held.keys()]) if (!keys.has(k)) this.held.delete(k); // a deleted Ingress is no longer held
    const ingresses = snap.ingresses.filter((i) => {
      const key = nsKey(i);
      const h = this.held.get(key);
      if (h && h.rv !== i.metadata?.resourceVersion) this.held.delete(key);
      return !this.held.has(key);
    });
    return { ...snap, ingresses };
  }

  /** A Problem for each held Ingress, reported with the model's own. */
  problems(): Problem[] {
    return [...this.held.values()].map((h) => ({
      object: { kind: 'Ingress', namespace: h.ref.namespace, name: h.ref.name },
      field: 'spec',
      reason: `nginx refused the configuration made from this Ingress (${h.reason}); it is left out until it changes`,
      severity: 'dropped' as const,
    }));
  }
}

/**
 * Finds one key whose presence makes `passes` fail, by halving (at most `budget` calls). `passes(excluded)` answers
 * whether the configuration without `excluded` passes. Undefined when even the configuration without any of `keys`
 * fails (not these keys' doing) or the budget ends.
 */
export async function bisect(keys: readonly string[], passes: (excluded: ReadonlySet<string>) => Promise<boolean>, budget = 16): Promise<string | undefined> {
  let suspects = [...keys];
  let calls = 0;
  const ok = async (excluded: readonly string[]): Promise<boolean> => {
    calls += 1;
    return passes(new Set(excluded));
  };
  if (suspects.length === 0 || !(await ok(suspects))) return undefined;
  while (suspects.length > 1 && calls < budget) {
    const half = suspects.slice(0, Math.ceil(suspects.length / 2));
    // Without `half` it passes: a culprit is in `half`; otherwise one is in the other half.
    suspects = (await ok(half)) ? half : suspects.slice(half.length);
  }
  return suspects.length === 1 ? suspects[0] : undefined;
}

/**
 * The one Ingress to hold: the first of `hints` whose absence alone makes `passes` succeed, else one found by
 * halving the hints, else by halving `all`.
 */
export async function culprit(hints: readonly string[], all: readonly string[], passes: (excluded: ReadonlySet<string>) => Promise<boolean>): Promise<string | undefined> {
  const first = hints[0];
  if (first !== undefined && (await passes(new Set([first])))) return first;
  if (hints.length > 1) {
    const found = await bisect(hints, passes);
    if (found !== undefined) return found;
  }
  return bisect(all, passes);
}
