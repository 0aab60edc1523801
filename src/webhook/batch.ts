// Admission reviews that arrive together, judged in as few models as their neighbourhoods allow.
//
// A review's model is small (the candidate's host neighbourhood, neighbours.ts) but has a fixed cost (the annotation
// stage, the backend index, TLS, stream and Gateway parts), so under many concurrent reviews that cost, not the
// neighbourhood, filled the review worker's queue. Candidates whose neighbourhoods are apart cannot change each
// other's answer, as no Ingress outside a candidate's neighbourhood can (the premise of neighbours.ts): they are judged
// in one model and each takes its own problems from it. Candidates that meet, the same Ingress twice, and those judged
// on the whole cluster go to models of their own. test/webhook/neighbours.test.ts checks each answer against the
// whole cluster's.
import type { Ingress, Snapshot } from '../model/input.js';
import type { Problem } from '../model/types.js';
import type { Checker } from '../pipeline/build.js';
import { inNamespaces, neighbourhood, type Neighbourhood } from './neighbours.js';
import { admitIngress, envelopeOf, malformed, ours, outcomeOf, requestOf, verdictOf, type ReviewOutcome, type Verdict } from './review.js';

/** A candidate to judge, with its neighbourhood. */
interface Part {
  readonly at: number;
  readonly candidate: Ingress;
  readonly self: string;
  readonly hood: Neighbourhood;
  /** The references of every Ingress of its neighbourhood, the ones that reach everywhere too. */
  readonly all: readonly string[];
}

/** Candidates judged in one model, and the union of what their neighbourhoods touch. */
interface Group {
  readonly parts: Part[];
  readonly selves: Set<string>;
  readonly near: Set<string>;
  readonly visited: Set<string>;
  readonly filed: Set<string>;
  /** Every Ingress of the members' neighbourhoods (the ones that reach everywhere too) by reference. */
  readonly all: Set<string>;
}

const refOf = (i: Ingress): string => `${i.metadata?.namespace ?? 'default'}/${i.metadata?.name ?? ''}`;

const partOf = (at: number, candidate: Ingress, hood: Neighbourhood): Part => ({ at, candidate, self: refOf(candidate), hood, all: hood.ingresses.map(refOf) });

const meets = (a: ReadonlySet<string>, b: Iterable<string>): boolean => {
  for (const x of b) if (a.has(x)) return true;
  return false;
};

/**
 * Whether `p` may join `g`: not the same Ingress as a member, not an Ingress (or the update of one) in a member's
 * neighbourhood nor a member in its own, no neighbour in common, and neither filed under a key the other visited.
 */
function fits(g: Group, p: Part): boolean {
  return !g.selves.has(p.self) && !g.all.has(p.self) && !meets(g.selves, p.all) && !meets(g.near, p.hood.near) && !meets(g.visited, p.hood.filed) && !meets(g.filed, p.hood.visited);
}

function join(g: Group, p: Part): void {
  g.parts.push(p);
  g.selves.add(p.self);
  for (const r of p.hood.near) g.near.add(r);
  for (const k of p.hood.visited) g.visited.add(k);
  for (const k of p.hood.filed) g.filed.add(k);
  for (const r of p.all) g.all.add(r);
}

/** Parts into groups, first fit in arrival order: at most parts² comparisons, each over the parts' own sets. */
function grouped(parts: readonly Part[]): Group[] {
  const groups: Group[] = [];
  for (const p of parts) {
    let g = groups.find((x) => fits(x, p));
    if (!g) {
      g = { parts: [], selves: new Set(), near: new Set(), visited: new Set(), filed: new Set(), all: new Set() };
      groups.push(g);
    }
    join(g, p);
  }
  return groups;
}

/** One model for a group: every member's neighbourhood and the members, with the Services and slices of their namespaces. */
function groupSnapshot(g: Group, snapshot: Snapshot, check: Checker): Snapshot {
  const ingresses = new Map<string, Ingress>();
  for (const p of g.parts) for (const i of p.hood.ingresses) ingresses.set(refOf(i), i);
  for (const p of g.parts) ingresses.set(p.self, p.candidate);
  const spaces = new Set([...ingresses.values()].map((i) => i.metadata?.namespace ?? 'default'));
  const dbs = check.options.defaultBackendService;
  if (dbs) spaces.add(dbs.namespace);
  return { ...snapshot, ingresses: [...ingresses.values()], services: inNamespaces(snapshot.services, spaces), endpointSlices: inNamespaces(snapshot.endpointSlices, spaces) };
}

/** Each group's verdicts by part; a group whose model throws is judged part by part (so one bad candidate fails alone). */
function judgeGroup(g: Group, snapshot: Snapshot, check: Checker, verdicts: Verdict[]): void {
  if (g.parts.length > 1) {
    try {
      // Each member's problems, found once: a batch's model holds every member's.
      const byRef = new Map<string, Problem[]>();
      for (const q of check.problems(groupSnapshot(g, snapshot, check))) {
        if (q.object.kind !== 'Ingress') continue;
        const ref = `${q.object.namespace}/${q.object.name}`;
        const list = byRef.get(ref);
        if (list) list.push(q);
        else byRef.set(ref, [q]);
      }
      for (const p of g.parts) verdicts[p.at] = verdictOf(p.candidate, byRef.get(p.self) ?? []);
      return;
    } catch {
      // One candidate's malformation: each is judged alone below, and only that one is refused.
    }
  }
  for (const p of g.parts) verdicts[p.at] = admitIngress(p.candidate, snapshot, check);
}

/** How `candidates` (ours, judged on neighbourhoods) would be grouped into models, by position: for tests. */
export function groupsOf(candidates: readonly Ingress[], snapshot: Snapshot, check: Checker): number[][] {
  const parts = candidates.flatMap((candidate, at) => {
    const hood = neighbourhood(candidate, snapshot, check.options);
    return hood ? [partOf(at, candidate, hood)] : [];
  });
  return grouped(parts).map((g) => g.parts.map((p) => p.at));
}

/** Answers AdmissionReview bodies (already JSON-parsed) judged against one snapshot, in their order. */
export function reviewBatch(bodies: readonly unknown[], snapshot: Snapshot, check: Checker): ReviewOutcome[] {
  const verdicts: Verdict[] = [];
  const parts: Part[] = [];
  const envs = bodies.map(envelopeOf);
  envs.forEach((env, at) => {
    if (!env.ok) return;
    const asked = requestOf(env.request);
    if ('verdict' in asked) verdicts[at] = asked.verdict;
    else if (!ours(asked.candidate, snapshot, check)) verdicts[at] = { allowed: true, why: 'not-ours', warnings: [] };
    else {
      let hood: Neighbourhood | undefined;
      try {
        hood = neighbourhood(asked.candidate, snapshot, check.options);
      } catch (err) {
        verdicts[at] = malformed(asked.candidate, err);
        return;
      }
      if (hood) parts.push(partOf(at, asked.candidate, hood));
      else verdicts[at] = admitIngress(asked.candidate, snapshot, check);
    }
  });
  for (const g of grouped(parts)) judgeGroup(g, snapshot, check, verdicts);
  return envs.map((env, at) => {
    if (!env.ok) return env;
    const v = verdicts[at];
    // Every request with an envelope got a verdict above; a hole would be a bug here, answered as a refusal.
    return outcomeOf(env.uid, v ?? { allowed: false, message: 'internal error: the review was not judged', warnings: [] });
  });
}
