// A host shared by namespaces (docs/adr/0008): an HTTPRoute match takes requests that an older namespace's path
// serves only where Kubernetes' path precedence alone gives them to it; a regex or added conditions never do.
import { HOST_CONFLICT } from '../hosts.js';
import { isElementPrefix, type PathRule } from '../routes.js';
import type { Location, ObjectRef, Target } from '../types.js';
import { pathOnly, type GatewayEntry, type GatewayMatch } from './route-types.js';
import { literalPrefix } from '../regex-capture.js';
import type { AddProblem } from '../types.js';
import { coded } from '../problems.js';

/** What the guard needs from the model builder: age ranks across Ingresses and HTTPRoutes, and its Problems. */
export interface SharedHostInput {
  /** 0 = oldest (model/build.ts ageOrder). */
  readonly rankOf: (ref: ObjectRef) => number;
  readonly problem: AddProblem;
}

/** The path a location serves, as a URI: `= /a` → `/a`, `/a/` → `/a`, `/` → `/`. */
function uriOf(l: Location): string {
  return l.match === 'exact' || l.path === '/' ? l.path : l.path.slice(0, -1);
}

function describe(m: GatewayMatch): string {
  const conditions = [
    ...(m.method !== undefined ? [`method ${m.method}`] : []),
    ...m.headers.map((h) => `header ${h.name}`),
    ...m.query.map((q) => `query ${q.name}`),
    ...(m.scheme !== undefined ? ['HTTPS listeners only'] : []),
    ...(m.ports !== undefined ? [`local ports ${m.ports.join(', ')} only`] : []),
    ...(m.exceptHosts !== undefined ? [`not for hosts of listeners ${m.exceptHosts.join(', ')}`] : []),
  ];
  return `${m.path.type} ${m.path.value}${conditions.length > 0 ? ` with ${conditions.join(', ')}` : ''}`;
}

/** Does `m` take requests of `owner`'s path by Kubernetes' precedence alone (an Exact over a prefix, a longer prefix)? */
function moreSpecific(m: GatewayMatch, owner: PathRule): boolean {
  if (owner.type !== 'Prefix') return false;
  if (m.path.type === 'Exact') return true;
  if (m.path.type !== 'PathPrefix') return false;
  return m.path.value !== owner.path && isElementPrefix(owner.path, m.path.value);
}

/**
 * Decides, per location, which HTTPRoute matches of other namespaces may take its requests. The location's owner is
 * the path rule nginx gives its requests to; a newer object of another namespace passes only with a more specific
 * path. Each refusal is a Problem on the route, once per match, host and owner.
 */
export class SharedHostGuard {
  private readonly byTarget = new Map<Target, PathRule[]>();
  private readonly reported = new Set<string>();

  constructor(
    rules: ReadonlyMap<string, ReadonlyMap<string, PathRule>>,
    private readonly input: SharedHostInput,
  ) {
    for (const table of rules.values()) {
      for (const r of table.values()) {
        const list = this.byTarget.get(r.target) ?? [];
        list.push(r);
        this.byTarget.set(r.target, list);
      }
    }
  }

  /** The path rule whose requests reach `l`: of the rules behind its target, the most specific that covers it. */
  ownerOf(l: Location): PathRule | undefined {
    const uri = uriOf(l);
    let best: PathRule | undefined;
    for (const r of this.byTarget.get(l.target) ?? []) {
      const covers = r.type === 'Exact' ? l.match === 'exact' && r.path === uri : isElementPrefix(r.path, uri);
      if (covers && (!best || (r.type === 'Exact' && best.type !== 'Exact') || r.path.length > best.path.length)) best = r;
    }
    return best;
  }

  /** May `e` take the requests of location `l` of `host`? */
  allows(host: string, e: GatewayEntry, l: Location): boolean {
    const owner = this.ownerOf(l);
    if (owner?.target.kind !== 'upstream') return true;
    const o = owner.target.ingress;
    const r = e.action.route;
    if (o.namespace === r.namespace || this.input.rankOf(r) < this.input.rankOf(o) || moreSpecific(e.match, owner)) return true;
    const field = `spec.rules[${e.order[1]}].matches[${e.order[2]}]`;
    const key = `${r.namespace}/${r.name} ${field} ${host} ${o.kind}/${o.namespace}/${o.name} ${owner.type} ${owner.path}`;
    if (!this.reported.has(key)) {
      this.reported.add(key);
      this.input.problem(
        r,
        field,
        coded(
          'HostConflict',
          `${HOST_CONFLICT}: the match ${describe(e.match)} would take requests for ${host}${owner.path} that the older ${o.kind} ${o.namespace}/${o.name} of namespace ${o.namespace} serves ` +
            `(${owner.type} ${owner.path}); between namespaces only a more specific path (an Exact path, a longer prefix) wins them, never a regular expression or added conditions ` +
            '(method, headers, query parameters, the HTTPS-only scheme of a route attached through HTTPS listeners only); this match is not served for those requests',
        ),
        'degraded',
      );
    }
    return false;
  }
}

/**
 * The paths of HTTPRoute matches that are not plain path rules (a regex or conditions), per host, as rules the regex
 * guard of Ingress paths (model/regex-capture.ts) counts as served: a newer Ingress regex may not capture them either.
 */
export function gatewayLiterals(entries: readonly GatewayEntry[]): Map<string, PathRule[]> {
  const out = new Map<string, PathRule[]>();
  for (const e of entries) {
    if (pathOnly(e.match)) continue;
    const p = e.match.path;
    const rule: PathRule = {
      path: p.type === 'RegularExpression' ? literalPrefix(p.value.replace(/^\^/, '')) : p.value,
      type: p.type === 'Exact' ? 'Exact' : 'Prefix',
      target: { kind: 'upstream', upstream: '', ingress: e.action.route },
    };
    out.set(e.host, [...(out.get(e.host) ?? []), rule]);
  }
  return out;
}
