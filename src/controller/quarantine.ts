// The safety net behind validation: when nginx -t refuses a configuration, the Ingresses of the server block it
// names are left out (until they change) and the rest is applied, so one Ingress never blocks every other update.
import type { Snapshot } from '../model/input.js';
import type { Model, ObjectRef, Problem } from '../model/types.js';

function keyOf(ref: ObjectRef): string {
  return `${ref.namespace}/${ref.name}`;
}

/** The server_name of the server block around `line` (1-based) of a rendered nginx.conf, if the line is in one. */
export function serverAt(conf: string, line: number): string | undefined {
  const lines = conf.split('\n');
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const text = lines[i] ?? '';
    if (text === '    server {') {
      for (let j = i + 1; j < lines.length && j < i + 4; j++) {
        const m = /^ {8}server_name ("(?:[^"\\]|\\.)*"|\S+)/.exec(lines[j] ?? '');
        if (m?.[1]) return m[1].startsWith('"') ? m[1].slice(1, -1).replace(/\\(.)/g, '$1') : m[1];
      }
      return undefined;
    }
    if (/^ {0,4}(http|events|stream) \{$/.test(text)) return undefined;
  }
  return undefined;
}

/** The Ingresses whose routes the server block nginx refused carries (from `...candidate:LINE` in its message). */
export function blame(message: string, conf: string, model: Model): ObjectRef[] {
  const line = /\.candidate:(\d+)/.exec(message)?.[1];
  if (line === undefined) return [];
  const host = serverAt(conf, Number(line));
  const server = host === undefined ? undefined : model.servers.find((s) => s.host === host);
  const refs = new Map<string, ObjectRef>();
  for (const l of server?.locations ?? []) if (l.target.kind === 'upstream') refs.set(keyOf(l.target.ingress), l.target.ingress);
  return [...refs.values()];
}

/** Ingresses held out of the model, each until its resourceVersion changes. */
export class Quarantine {
  private readonly held = new Map<string, { rv: string | undefined; reason: string; ref: ObjectRef }>();

  /** Holds `refs` at their current versions in `snap`. */
  add(refs: readonly ObjectRef[], snap: Snapshot, reason: string): void {
    for (const ref of refs) {
      const ing = snap.ingresses.find((i) => i.metadata?.namespace === ref.namespace && i.metadata.name === ref.name);
      this.held.set(keyOf(ref), { rv: ing?.metadata?.resourceVersion, reason, ref });
    }
  }

  /** The snapshot without held Ingresses; an Ingress that changed since it was held is released. */
  filter(snap: Snapshot): Snapshot {
    if (this.held.size === 0) return snap;
    const ingresses = snap.ingresses.filter((i) => {
      const key = `${i.metadata?.namespace ?? 'default'}/${i.metadata?.name ?? ''}`;
      const h = this.held.get(key);
      if (h && h.rv !== i.metadata?.resourceVersion) this.held.delete(key);
      return !this.held.has(key);
    });
    return { ...snap, ingresses };
  }

  /** A Problem for each held Ingress, reported with the model's own. */
  problems(): Problem[] {
    return [...this.held.values()].map((h) => ({
      object: { kind: 'Ingress', namespace: h.ref.namespace, name: h.ref.name }, field: 'spec',
      reason: `nginx refused the configuration made from this Ingress (${h.reason}); it is left out until it changes`, severity: 'dropped' as const,
    }));
  }
}

/**
 * Finds one Ingress whose presence makes `passes` fail, by halving (at most `budget` calls): for a refusal nginx
 * gives without a line. `passes(excluded)` answers whether the configuration without `excluded` passes nginx -t.
 * Undefined when even the configuration without any of `keys` fails (not an Ingress's doing) or the budget ends.
 */
export async function bisect(keys: readonly string[], passes: (excluded: ReadonlySet<string>) => Promise<boolean>, budget = 16): Promise<string | undefined> {
  let suspects = [...keys];
  let calls = 0;
  const ok = async (excluded: readonly string[]): Promise<boolean> => { calls += 1; return passes(new Set(excluded)); };
  if (suspects.length === 0 || !(await ok(suspects))) return undefined;
  while (suspects.length > 1 && calls < budget) {
    const half = suspects.slice(0, Math.ceil(suspects.length / 2));
    // Without `half` it passes: a culprit is in `half`; otherwise one is in the other half.
    suspects = (await ok(half)) ? half : suspects.slice(half.length);
  }
  return suspects.length === 1 ? suspects[0] : undefined;
}
