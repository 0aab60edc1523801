// IngressClass selection: which Ingresses are Portico's.
import type { Ingress, IngressClass, ModelOptions } from './input.js';

export const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
export const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';

/** Returns a predicate telling whether an Ingress is ours, by class name, legacy annotation or default class. */
export function classSelector(classes: readonly IngressClass[], opts: ModelOptions): (ing: Ingress) => boolean {
  const ours = classes.filter((c) => c.spec?.controller === opts.controllerClass);
  const ourNames = new Set(ours.map((c) => c.metadata?.name ?? ''));
  const weAreDefault = ours.some((c) => c.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true');
  return (ing) => {
    const className = ing.spec?.ingressClassName;
    const legacy = ing.metadata?.annotations?.[LEGACY_CLASS_ANNOTATION];
    if (className !== undefined && className !== '' && ourNames.has(className)) return true;
    if (legacy !== undefined && legacy === opts.ingressClass) return true;
    const namesNoClass = (className === undefined || className === '') && legacy === undefined;
    return namesNoClass && (weAreDefault || opts.watchIngressWithoutClass);
  };
}
