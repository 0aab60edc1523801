// Whether a model serves an Ingress as asked, serves it with problems, or skips it: the one rule that migrate-check's
// verdicts and the inspector's (and dashboard's) skipped list both read, so they never disagree.
import type { Model, ObjectRef, Problem } from './types.js';
import { refKey } from './keys.js';

export type ServedVerdict = 'served' | 'served-differently' | 'skipped';

const key = (r: ObjectRef): string => refKey(r.namespace, r.name);

/** The Ingress's own problems, and its verdict: skipped when the model serves none of it (model.ingresses). */
export function ingressVerdict(model: Model, ingress: ObjectRef): { readonly verdict: ServedVerdict; readonly problems: readonly Problem[] } {
  const problems = model.problems.filter((p) => p.object.kind === 'Ingress' && p.object.namespace === ingress.namespace && p.object.name === ingress.name);
  const served = model.ingresses.some((r) => key(r) === key(ingress));
  return { verdict: !served ? 'skipped' : problems.length > 0 ? 'served-differently' : 'served', problems };
}

/**
 * The problems of the Ingresses the model does not serve at all: what "skipped" means. A served Ingress that lost a
 * part (a path, a TLS host) is served differently; its problems stay among the Warnings.
 */
export function skippedProblems(model: Model | undefined, problems: readonly Problem[]): Problem[] {
  const served = new Set((model?.ingresses ?? []).map(key));
  return problems.filter((p) => p.object.kind === 'Ingress' && p.severity === 'dropped' && !served.has(key(p.object)));
}
