// The one wording of a Problem, shared by the log, Kubernetes Events and the admission webhook.
import type { Problem, ProblemCode, Reason } from './types.js';

/** `Ingress ns/name spec.rules[0].host: reason` — the same text wherever a problem is shown. */
export function describeProblem(p: Problem): string {
  return `${p.object.kind} ${p.object.namespace}/${p.object.name} ${p.field}: ${p.reason}`;
}

/** The Event reason of a problem: a short CamelCase word a user can filter on (kubectl get events --field-selector). */
export function problemReason(p: Problem): string {
  if (p.code !== undefined) return p.code;
  if (p.field.startsWith('metadata.annotations')) return 'InvalidAnnotation';
  return p.severity === 'dropped' ? 'Invalid' : 'Degraded';
}

/** A reason with its code. */
export function coded(code: ProblemCode, text: string): Reason {
  return { code, text };
}

/** The text of a reason. */
export function reasonText(reason: Reason): string {
  return typeof reason === 'string' ? reason : reason.text;
}

/** The Problem a part of the model reported. */
export function problemOf(object: Problem['object'], field: string, reason: Reason, severity: Problem['severity']): Problem {
  return typeof reason === 'string' ? { object, field, reason, severity } : { object, field, reason: reason.text, severity, code: reason.code };
}
