// A route of either kind as translation reads it (model/gateway/translate.ts): its rules as HTTPRoute rules (filters,
// backendRefs) and its matches validated into the model's; a GRPCRoute's through model/gateway/grpc.ts.
import type { GRPCRoute, HTTPRoute, HTTPRouteMatch, HTTPRouteRule } from './api.js';
import type { RouteKind } from './attach.js';
import { grpcMatch, grpcRule } from './grpc.js';
import { gatewayMatch } from './match.js';
import type { GatewayMatch } from './route-types.js';

/** An attached route of either kind, with the rules and matches translation serves. */
export interface RouteView {
  readonly kind: RouteKind;
  readonly route: HTTPRoute | GRPCRoute;
  /** `spec.rules[i]` as an HTTPRoute rule (filters, backendRefs), or why it is not served. */
  rule(i: number): HTTPRouteRule | { field: string; reason: string };
  /** The validated matches of `spec.rules[i]` (no matches: every request), each or why it is not served. */
  matches(i: number): readonly (GatewayMatch | { field: string; reason: string })[];
}

const EVERY_REQUEST: HTTPRouteMatch = { path: { type: 'PathPrefix', value: '/' } };

export function viewOf(kind: RouteKind, route: HTTPRoute | GRPCRoute): RouteView {
  if (kind === 'GRPCRoute') {
    const rules = (route as GRPCRoute).spec?.rules ?? [];
    return {
      kind,
      route,
      rule: (i) => grpcRule(rules[i] ?? {}, `spec.rules[${i}]`),
      matches: (i) => (rules[i]?.matches?.length ? (rules[i]?.matches ?? []) : [{}]).map((m, j) => grpcMatch(m, `spec.rules[${i}].matches[${j}]`)),
    };
  }
  const rules = (route as HTTPRoute).spec?.rules ?? [];
  return {
    kind,
    route,
    rule: (i) => rules[i] ?? {},
    matches: (i) => (rules[i]?.matches?.length ? (rules[i]?.matches ?? []) : [EVERY_REQUEST]).map((m, j) => gatewayMatch(m, `spec.rules[${i}].matches[${j}]`)),
  };
}
