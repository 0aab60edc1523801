// Canary Ingresses: kept apart from the oldest-wins path rule, attached as a policy to the main path's backend.
import { sha256 } from '../hash.js';
import type { IngressBackend } from 'kubernetes-types/networking/v1.js';
import type { Ingress } from './input.js';
import { normalizePath, type PathRule } from './routes.js';
import type { Affinity, AnnotationInput, IngressSettings, UpstreamSettings } from './settings.js';
import type { CanaryPolicy, CanarySettings } from './settings-traffic.js';
import type { ObjectRef, Target } from './types.js';
import { HOST_CONFLICT } from './hosts.js';
import { refKey } from './keys.js';
import type { AddProblem, Reason } from './types.js';
import { coded } from './problems.js';

/** What the canary step needs from the model builder. */
export interface CanaryBuilder {
  readonly rules: ReadonlyMap<string, Map<string, PathRule>>;
  readonly regexRules: ReadonlyMap<string, Map<string, PathRule>>;
  readonly served: ObjectRef[];
  target(ref: ObjectRef, backend: IngressBackend | undefined, field: string, up?: UpstreamSettings): Target | undefined;
  problem: AddProblem;
  /** Why an Ingress may not use a host (--strict-host-ownership, model/hosts.ts), else undefined. */
  refusal(object: ObjectRef, host: string): Reason | undefined;
}

function refOf(ing: Ingress): ObjectRef {
  return { kind: 'Ingress', namespace: ing.metadata?.namespace ?? 'default', name: ing.metadata?.name ?? '' };
}

function settingsOf(a: AnnotationInput, ing: Ingress): IngressSettings | undefined {
  const r = refOf(ing);
  return a.settings.get(refKey(r.namespace, r.name));
}

/** True for an Ingress annotated `canary: "true"`: it adds no paths of its own. */
export function isCanary(a: AnnotationInput, ing: Ingress): boolean {
  return settingsOf(a, ing)?.location.traffic?.canary?.enabled === true;
}

function policyOf(c: CanarySettings, backend: string): CanaryPolicy {
  return { backend, header: c.header ?? '', headerValue: c.headerValue ?? '', headerPattern: c.headerPattern ?? '', cookie: c.cookie ?? '', weight: c.weight ?? 0, weightTotal: c.weightTotal ?? 100 };
}

/** The session affinity the main path's Ingress asked for (null: none). */
function mainAffinity(a: AnnotationInput, primary: ObjectRef): Affinity | null {
  return a.settings.get(refKey(primary.namespace, primary.name))?.upstream?.affinity ?? null;
}

/** The canary's upstream settings with `affinity` (null: none) in place of its own; undefined keeps its own. */
function canaryUpstream(own: UpstreamSettings | undefined, affinity: Affinity | null | undefined): UpstreamSettings | undefined {
  if (affinity === undefined) return own;
  const rest: UpstreamSettings = { ...own };
  delete (rest as { affinity?: Affinity }).affinity;
  return affinity === null ? rest : { ...rest, affinity };
}

/** The route key of one main path: the location sets `$portico_canary` to it; Lua finds the policy by it. */
function routeKey(host: string, ruleKey: string): string {
  return `c${sha256(`${host} ${ruleKey}`, 12)}`;
}

/**
 * Attaches each canary Ingress (oldest first) to the main paths with its host, path and path type: the main rule's
 * target gets a route key, and its backend a policy under that key. A canary path with no main path is a problem
 * and not served; a main path takes its oldest canary only. Returns main upstream name → route key → policy.
 */
export function addCanaries(b: CanaryBuilder, canaries: readonly Ingress[], a: AnnotationInput, crossNamespace = false): Map<string, Record<string, CanaryPolicy>> {
  const owners = new Map<string, ObjectRef>();
  const out = new Map<string, Record<string, CanaryPolicy>>();
  for (const ing of canaries) {
    const ref = refOf(ing);
    const s = settingsOf(a, ing);
    const c = s?.location.traffic?.canary ?? {};
    if ((c.weight ?? 0) > (c.weightTotal ?? 100)) {
      b.problem(ref, 'metadata.annotations.canary-weight', `canary-weight ${c.weight ?? 0} is above canary-weight-total ${c.weightTotal ?? 100}; the canary is not served`);
      continue;
    }
    const regex = s?.location.useRegex === true || s?.location.rewriteTarget !== undefined;
    let attached = 0;
    (ing.spec?.rules ?? []).forEach((rule, i) => {
      const host = (rule.host ?? '').toLowerCase();
      const refused = b.refusal(ref, host);
      if (refused) {
        b.problem(ref, `spec.rules[${i}].host`, refused);
        return;
      }
      (rule.http?.paths ?? []).forEach((p, j) => {
        const field = `spec.rules[${i}].http.paths[${j}]`;
        const type = p.pathType === 'Exact' ? 'Exact' : 'Prefix';
        const isRegex = regex && type === 'Prefix';
        const path = isRegex ? (p.path ?? '/') : normalizePath(p.path ?? '/', type);
        const ruleKey = `${isRegex ? 'Regex' : type} ${path}`;
        const table = (isRegex ? b.regexRules : b.rules).get(host);
        const main = table?.get(ruleKey);
        if (!table || main?.target.kind !== 'upstream') {
          b.problem(ref, `${field}.path`, `canary path ${type} ${host || '*'}${path} has no main Ingress path with the same host and path; it is not served`);
          return;
        }
        const primary = main.target.ingress;
        if (primary.namespace !== ref.namespace && !crossNamespace) {
          b.problem(
            ref,
            `${field}.path`,
            coded(
              'HostConflict',
              `${HOST_CONFLICT}: the main path ${type} ${host || '*'}${path} is served by ${primary.kind} ${primary.namespace}/${primary.name} of another namespace; ` +
                "a canary attaches only to a main path of its own namespace unless the operator sets --allow-cross-namespace-canaries (it would take that namespace's requests); this canary path is not served",
            ),
          );
          return;
        }
        const key = routeKey(host, ruleKey);
        const had = owners.get(key);
        if (had) {
          b.problem(ref, `${field}.path`, `${type} ${host || '*'}${path} already has a canary from the older Ingress ${had.namespace}/${had.name}; this canary path is not served`);
          return;
        }
        // The canary's own upstream annotations (load-balance, hash) apply to its backend; its affinity is the main
        // backend's, so a client pinned by the main Ingress's cookie stays pinned on the canary side too, unless the
        // canary says affinity-canary-behavior: legacy (then its own), as in ingress-nginx.
        const t = b.target(ref, p.backend, `${field}.backend`, canaryUpstream(s?.upstream, c.legacyAffinity === true ? undefined : mainAffinity(a, primary)));
        if (t?.kind !== 'upstream') return;
        if (t.upstream === main.target.upstream) {
          b.problem(ref, `${field}.backend`, "the canary backend is the main path's own backend; the canary path is not served");
          return;
        }
        owners.set(key, ref);
        table.set(ruleKey, { ...main, target: { ...main.target, canary: key } });
        out.set(main.target.upstream, { ...out.get(main.target.upstream), [key]: { ...policyOf(c, t.upstream), ingress: { namespace: ref.namespace, name: ref.name } } });
        attached += 1;
      });
    });
    if (attached > 0) b.served.push(ref);
  }
  return out;
}
