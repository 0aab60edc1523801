// `portico migrate-check --httproute NAMESPACE/NAME|all`: the HTTPRoutes that express the Ingresses, as YAML a user
// can apply (the annotations and fields left behind as comments above each Ingress's routes), or --json.
import { stringify } from 'yaml';
import type { Config } from '../config/config.js';
import { modelOptions } from '../pipeline/build.js';
import { classSelector } from '../model/classes.js';
import type { Snapshot } from '../model/input.js';
import type { ParentReference } from '../model/gateway/api.js';
import { ourGateways } from '../model/gateway/attach.js';
import { convertIngress, type RouteConversion } from './httproute.js';
import { nsKey } from '../model/keys.js';

export interface RoutesReport {
  readonly parent: ParentReference;
  /** How the parent was chosen. */
  readonly parentFrom: string;
  readonly ingresses: readonly RouteConversion[];
  /** True when nothing is left behind: exit 0. */
  readonly ok: boolean;
}

/** The Gateway the routes name: the first of Portico's GatewayClass in the source, else portico/portico to create. */
function parentOf(snap: Snapshot, controllerName: string): [ParentReference, string] {
  const [g] = ourGateways(snap, controllerName).sort((a, b) => nsKey(a).localeCompare(nsKey(b)));
  if (g)
    return [
      { name: g.metadata?.name ?? '', namespace: g.metadata?.namespace ?? 'default' },
      `Gateway ${g.metadata?.namespace ?? 'default'}/${g.metadata?.name ?? ''} (GatewayClass ${g.spec?.gatewayClassName ?? ''})`,
    ];
  return [{ name: 'portico', namespace: 'portico' }, `no Gateway of a GatewayClass with controllerName ${controllerName} found: create Gateway portico/portico, or edit parentRefs`];
}

/** The report for `which` (`namespace/name`, or `all`: every Ingress of the class); throws when the named one is not of the class. */
export function routesReport(snap: Snapshot, config: Config, which: string): RoutesReport {
  const ours = classSelector(snap.ingressClasses, modelOptions(config));
  const all = snap.ingresses.filter(ours).sort((a, b) => nsKey(a).localeCompare(nsKey(b)));
  const chosen = which === 'all' ? all : all.filter((i) => nsKey(i) === which);
  if (chosen.length === 0) throw new Error(`--httproute: no Ingress ${which} of class ${config.ingressClass} (controller ${config.controllerClass}); give NAMESPACE/NAME or all`);
  const [parent, parentFrom] = parentOf(snap, config.gatewayControllerName);
  const ingresses = chosen.map((ing) => convertIngress(snap, ing, all, { prefix: config.annotationsPrefix, parent }));
  return { parent, parentFrom, ingresses, ok: ingresses.every((c) => c.unmapped.length === 0) };
}

/** The report as multi-document YAML (YAML 1.1 quoting, as kubectl reads it: `"yes"` stays a string): each Ingress's notes as comments, then its HTTPRoutes. */
export function routesText(r: RoutesReport): string {
  const out = ['# portico migrate-check --httproute: HTTPRoutes (gateway.networking.k8s.io/v1) expressing the Ingresses', `# parentRefs: ${r.parentFrom}`];
  for (const c of r.ingresses) {
    out.push('', `# Ingress ${c.namespace}/${c.name}: ${c.httpRoutes.length} HTTPRoute${c.httpRoutes.length === 1 ? '' : 's'}`);
    out.push(c.unmapped.length === 0 ? '# no Gateway API equivalent: none' : '# no Gateway API equivalent:');
    for (const u of c.unmapped) out.push(`#   ${u.key}: ${JSON.stringify(u.value)}: ${u.why}`);
    for (const d of c.differences) out.push(`# differs: ${d}`);
    for (const route of c.httpRoutes) out.push('---', stringify(route, { lineWidth: 0, aliasDuplicateObjects: false, version: '1.1' }).trimEnd());
  }
  out.push('', r.ok ? '# everything maps (exit 0)' : '# not everything maps: see "no Gateway API equivalent" above (exit 1)', '');
  return out.join('\n');
}
