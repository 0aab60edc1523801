// The one wording of a Problem, shared by the log, Kubernetes Events and the admission webhook.
import type { Problem } from './types.js';
import { HOST_CONFLICT } from './hosts.js';

/** `Ingress ns/name spec.rules[0].host: reason` — the same text wherever a problem is shown. */
export function describeProblem(p: Problem): string {
  return `${p.object.kind} ${p.object.namespace}/${p.object.name} ${p.field}: ${p.reason}`;
}

/** The Event reason of a problem: a short CamelCase word a user can filter on (kubectl get events --field-selector). */
export function problemReason(p: Problem): string {
  if (p.reason.includes('is already served by the older Ingress')) return 'PathConflict';
  if (p.reason.includes(HOST_CONFLICT)) return 'HostConflict';
  if (p.reason.includes('could capture paths of the older Ingress')) return 'PathConflict';
  if (/^Service .* not found/.test(p.reason)) return 'ServiceNotFound';
  if (/^Service .* has no port/.test(p.reason)) return 'ServicePortNotFound';
  if (/Secret/.test(p.reason)) return 'SecretProblem';
  if (/^endpoint .* is refused: /.test(p.reason)) return 'EndpointRefused';
  if (p.field.startsWith('metadata.annotations')) return 'InvalidAnnotation';
  return p.severity === 'dropped' ? 'Invalid' : 'Degraded';
}
