// parametersRef of a GatewayClass and spec.infrastructure.parametersRef of a Gateway: Portico defines no parameters
// resource, so any reference names an unsupported kind or a missing object, which the specification answers with
// Accepted False, reason InvalidParameters (the class, or the Gateway, is then not served).
import type { Gateway, GatewayClass } from './api.js';
import type { Outcome } from './listeners.js';

/** One parametersRef as people read it: `group/Kind name` (`namespace/name` when it has a namespace). */
function named(ref: { readonly group?: string; readonly kind?: string; readonly name?: string; readonly namespace?: string }): string {
  return `${ref.group ? `${ref.group}/` : ''}${ref.kind ?? ''} ${ref.namespace ? `${ref.namespace}/` : ''}${ref.name ?? ''}`;
}

const WHY = 'Portico reads no parameters resource (its settings are flags and the ConfigMap, docs/configuration.md); remove the reference';

/** Accepted of a GatewayClass of Portico's: False InvalidParameters when it names parameters, else undefined. */
export function classParameters(c: GatewayClass): Outcome | undefined {
  const ref = c.spec?.parametersRef;
  if (ref === undefined) return undefined;
  return [false, 'InvalidParameters', `spec.parametersRef: ${named(ref)} is not supported: ${WHY}; no Gateway of this class is served`];
}

/** Why a Gateway's spec.infrastructure.parametersRef keeps it from being served, or undefined when it names none. */
export function gatewayParameters(g: Gateway): { readonly field: string; readonly reason: string } | undefined {
  const ref = g.spec?.infrastructure?.parametersRef;
  if (ref === undefined) return undefined;
  return { field: 'spec.infrastructure.parametersRef', reason: `InvalidParameters: ${named(ref)} is not supported: ${WHY}; the Gateway is not served` };
}
