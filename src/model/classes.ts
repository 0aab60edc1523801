// IngressClass selection: which Ingresses are Portico's.
import type { Ingress, IngressClass, ModelOptions } from './input.js';

const LEGACY_CLASS_ANNOTATION = 'kubernetes.io/ingress.class';
const DEFAULT_CLASS_ANNOTATION = 'ingressclass.kubernetes.io/is-default-class';

/** Returns a predicate telling whether an Ingress is ours, by class name, legacy annotation or default class. */
export function classSelector(classes: readonly IngressClass[], opts: ModelOptions): (ing: Ingress) => boolean {
  const ours = classes.filter((c) => c.spec?.controller === opts.controllerClass);
  const ourNames = new Set(ours.map((c) => c.metadata?.name ?? ''));
  const weAreDefault = ours.some((c) => c.metadata?.annotations?.[DEFAULT_CLASS_ANNOTATION] === 'true');
  return (ing) => {
    if (opts.disableCatchAll === true && ing.spec?.defaultBackend !== undefined) return false;
    const className = ing.spec?.ingressClassName;
    const legacy = ing.metadata?.annotations?.[LEGACY_CLASS_ANNOTATION];
    if (className !== undefined && className !== '' && ourNames.has(className)) return true;
    if (opts.ingressClassByName === true && className === opts.ingressClass) return true;
    if (legacy !== undefined && legacy === opts.ingressClass) return true;
    const namesNoClass = (className === undefined || className === '') && legacy === undefined;
    return namesNoClass && (weAreDefault || opts.watchIngressWithoutClass);
  };
}

/** Ingresses of other classes, grouped by what would make them Portico's. */
export interface OtherClasses {
  /** How many Ingresses name another class (or none, and Portico does not take those). */
  readonly count: number;
  /** Per way of naming a class (`class nginx`, `annotation nginx`, `no class`): how many, and what would serve them. */
  readonly groups: readonly { readonly names: string; readonly count: number; readonly serve: string }[];
}

/** What would make an Ingress of another class Portico's: a flag, or an IngressClass that does not exist yet. */
function serveWith(ing: Ingress, byName: ReadonlyMap<string, IngressClass>, opts: ModelOptions): { names: string; serve: string } {
  if (opts.disableCatchAll === true && ing.spec?.defaultBackend !== undefined) return { names: 'spec.defaultBackend', serve: '--disable-catch-all=false' };
  const className = ing.spec?.ingressClassName ?? '';
  const legacy = ing.metadata?.annotations?.[LEGACY_CLASS_ANNOTATION];
  if (className !== '') {
    const controller = byName.get(className)?.spec?.controller;
    return controller !== undefined
      ? { names: `class ${className}`, serve: `--controller-class ${controller}` }
      : { names: `class ${className}`, serve: `a new IngressClass ${className} (none exists) with spec.controller ${opts.controllerClass}` };
  }
  if (legacy !== undefined) return { names: `annotation ${LEGACY_CLASS_ANNOTATION}: ${legacy}`, serve: `--ingress-class ${legacy}` };
  return { names: 'no class', serve: '--watch-ingress-without-class' };
}

/**
 * For one set of IngressClasses: an Ingress `classSelector` leaves out as its group ([way of naming a class, what would
 * serve it]), none for Portico's own. Pure.
 */
export function otherClassOf(classes: readonly IngressClass[], opts: ModelOptions): (ing: Ingress) => readonly (readonly [string, string])[] {
  const ours = classSelector(classes, opts);
  const byName = new Map(classes.map((c) => [c.metadata?.name ?? '', c]));
  return (ing) => {
    if (ours(ing)) return [];
    const { names, serve } = serveWith(ing, byName, opts);
    return [[names, serve]];
  };
}

/** Groups as counted ([names, serve, count]) in the order the Warning lists them: the largest first. */
export function otherClassGroups(groups: Iterable<readonly [string, string, number]>): OtherClasses {
  const sorted = [...groups].map(([names, serve, count]) => ({ names, count, serve })).sort((a, b) => b.count - a.count || a.names.localeCompare(b.names));
  return { count: sorted.reduce((n, g) => n + g.count, 0), groups: sorted };
}

/** The Warning for `other` (undefined when there is none to give), in the words an operator acts on. */
export function otherClassesMessage(other: OtherClasses): string | undefined {
  if (other.count === 0) return undefined;
  const parts = other.groups.map((g) => `${g.names}: ${g.count}, served with ${g.serve}`);
  const n = other.count === 1 ? '1 Ingress is' : `${other.count} Ingresses are`;
  return `${n} not served: not of Portico's class (${parts.join('; ')})`;
}
