// GRPCRoute matches and rules in the terms translation already serves: a gRPC call is an HTTP/2 POST to the path
// /service/method (the gRPC over HTTP/2 protocol), so a method match is a path match and its headers are headers.
import { clip } from '../names.js';
import type { GRPCRouteMatch, GRPCRouteRule, HTTPRouteMatch, HTTPRouteRule } from './api.js';
import { gatewayMatch } from './match.js';
import type { GatewayMatch } from './route-types.js';

type Refusal = { readonly field: string; readonly reason: string };

/** The CRD's patterns for an Exact match: a dotted service name (a leading dot allowed, any case) and a method name. */
const SERVICE = /^\.?[A-Za-z_][A-Za-z_0-9]*(\.[A-Za-z_][A-Za-z_0-9]*)*$/;
const METHOD = /^[A-Za-z_][A-Za-z_0-9]*$/;
/** Longest service or method name taken (each is one path segment). */
const MAX_NAME = 1024;
/** The filters a GRPCRoute rule or backendRef may carry that Portico serves. */
const SERVED_FILTERS = ['RequestHeaderModifier', 'ResponseHeaderModifier'];

/**
 * The path match of a GRPCRoute method match:
 * - Exact service and method: the Exact path `/service/method`;
 * - Exact service only: the PathPrefix `/service` (every method of the service);
 * - Exact method only (implementation-specific): the path regex `/[^/]+/method`;
 * - RegularExpression: the path regex `/(?:service)/(?:method)`, an omitted side matching any one segment.
 * No method match: every call (PathPrefix `/`).
 */
function pathOf(m: GRPCRouteMatch, field: string): HTTPRouteMatch['path'] | Refusal {
  const method = m.method;
  if (method === undefined) return { type: 'PathPrefix', value: '/' };
  const at = `${field}.method`;
  const type = method.type ?? 'Exact';
  const service = method.service ?? '';
  const name = method.method ?? '';
  if (type !== 'Exact' && type !== 'RegularExpression') return { field: `${at}.type`, reason: `${JSON.stringify(clip(String(type)))} is not Exact or RegularExpression` };
  if (service === '' && name === '') {
    if (method.type === undefined) return { type: 'PathPrefix', value: '/' };
    return { field: at, reason: 'one or both of service and method must be set' };
  }
  if (service.length > MAX_NAME || name.length > MAX_NAME) return { field: at, reason: `service and method are at most ${MAX_NAME} characters` };
  if (type === 'RegularExpression') {
    const any = '[^/]+';
    return { type: 'RegularExpression', value: `/(?:${service === '' ? any : service})/(?:${name === '' ? any : name})` };
  }
  if (service !== '' && !SERVICE.test(service)) return { field: `${at}.service`, reason: `${JSON.stringify(clip(service))} is not a gRPC service name (dotted identifiers)` };
  if (name !== '' && !METHOD.test(name)) return { field: `${at}.method`, reason: `${JSON.stringify(clip(name))} is not a gRPC method name (an identifier)` };
  if (name === '') return { type: 'PathPrefix', value: `/${service}` };
  if (service === '') return { type: 'RegularExpression', value: `/[^/]+/${name}` };
  return { type: 'Exact', value: `/${service}/${name}` };
}

/** One GRPCRoute match validated into the model's match, or the field and reason it is refused for. */
export function grpcMatch(m: GRPCRouteMatch, field: string): GatewayMatch | Refusal {
  const path = pathOf(m, field);
  if (path !== undefined && 'field' in path && 'reason' in path) return path;
  const checked = gatewayMatch({ ...(path ? { path } : {}), ...(m.headers ? { headers: m.headers } : {}) }, field);
  // A regex made from a method match is refused for what the user wrote: name the method field, not a path.
  if ('reason' in checked && checked.field === `${field}.path.value`) return { field: `${field}.method`, reason: checked.reason };
  return checked;
}

/**
 * A GRPCRoute rule as the HTTPRoute rule translation reads for its filters and backendRefs (the matches are taken
 * apart by grpcMatch), or why it is not served: a filter other than the header modifiers. RequestMirror is not
 * served for gRPC: nginx's mirror subrequest would copy the call over HTTP/1.1.
 */
export function grpcRule(rule: GRPCRouteRule, field: string): HTTPRouteRule | Refusal {
  for (const [i, f] of (rule.filters ?? []).entries()) {
    if (!SERVED_FILTERS.includes(f.type))
      return { field: `${field}.filters[${i}].type`, reason: `${JSON.stringify(clip(f.type))} is not a GRPCRoute filter Portico supports (${SERVED_FILTERS.join(', ')})` };
  }
  return { ...(rule.name !== undefined ? { name: rule.name } : {}), ...(rule.filters ? { filters: rule.filters } : {}), ...(rule.backendRefs ? { backendRefs: rule.backendRefs } : {}) };
}
