// Minimal per-kind validation: enough 422s for a controller's tests to see the API reject what it would reject.
import type { KindInfo } from './kinds.js';
import { isPlainObject, type KubeObject } from './object.js';
import type { StatusCause } from './status.js';

const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const PATH_TYPES = new Set(['Exact', 'Prefix', 'ImplementationSpecific']);

function cause(field: string, message: string, reason = 'FieldValueInvalid'): StatusCause {
  return { reason, message, field };
}

function validateName(obj: KubeObject): StatusCause[] {
  const name = obj.metadata.name ?? '';
  if (name === '') return [cause('metadata.name', 'Required value: name or generateName is required', 'FieldValueRequired')];
  if (name.length > 253 || !DNS_SUBDOMAIN.test(name)) {
    return [
      cause(
        'metadata.name',
        `Invalid value: "${name}": a lowercase RFC 1123 subdomain must consist of lower ` + `case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character`,
      ),
    ];
  }
  return [];
}

function validateStringMap(obj: KubeObject, field: string): StatusCause[] {
  const map = obj[field];
  if (map === undefined || map === null) return [];
  if (!isPlainObject(map)) return [cause(field, 'Invalid value: must be a map of strings')];
  return Object.entries(map)
    .filter(([, v]) => typeof v !== 'string')
    .map(([key]) => cause(`${field}[${key}]`, 'Invalid value: must be a string'));
}

function validateIngress(obj: KubeObject): StatusCause[] {
  const spec = obj.spec;
  if (spec === undefined) return [];
  if (!isPlainObject(spec)) return [cause('spec', 'Invalid value: must be an object')];
  const causes: StatusCause[] = [];
  const rules = Array.isArray(spec.rules) ? (spec.rules as unknown[]) : [];
  rules.forEach((rule, i) => {
    const http = isPlainObject(rule) && isPlainObject(rule.http) ? rule.http : undefined;
    const paths = http !== undefined && Array.isArray(http.paths) ? (http.paths as unknown[]) : [];
    paths.forEach((p, j) => {
      const at = `spec.rules[${i}].http.paths[${j}]`;
      if (!isPlainObject(p)) return;
      if (typeof p.pathType !== 'string') causes.push(cause(`${at}.pathType`, 'Required value: pathType must be specified', 'FieldValueRequired'));
      else if (!PATH_TYPES.has(p.pathType)) causes.push(cause(`${at}.pathType`, `Unsupported value: "${p.pathType}"`, 'FieldValueNotSupported'));
      if (p.pathType !== 'ImplementationSpecific' && typeof p.path === 'string' && !p.path.startsWith('/')) {
        causes.push(cause(`${at}.path`, `Invalid value: "${p.path}": must be an absolute path`));
      }
      if (!isPlainObject(p.backend)) causes.push(cause(`${at}.backend`, 'Required value', 'FieldValueRequired'));
    });
  });
  return causes;
}

function validateService(obj: KubeObject): StatusCause[] {
  const spec = obj.spec;
  if (!isPlainObject(spec) || !Array.isArray(spec.ports)) return [];
  return (spec.ports as unknown[]).flatMap((p, i) => {
    const port = isPlainObject(p) ? p.port : undefined;
    return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535
      ? []
      : [cause(`spec.ports[${i}].port`, `Invalid value: ${JSON.stringify(port)}: must be between 1 and 65535`)];
  });
}

/** Everything wrong with obj as an object of this kind (empty when it is acceptable). */
export function validate(info: KindInfo, obj: KubeObject): StatusCause[] {
  const causes = validateName(obj);
  if (info.kind === 'Ingress') causes.push(...validateIngress(obj));
  if (info.kind === 'Service') causes.push(...validateService(obj));
  if (info.kind === 'ConfigMap') causes.push(...validateStringMap(obj, 'data'));
  if (info.kind === 'Secret') {
    causes.push(...validateStringMap(obj, 'data'), ...validateStringMap(obj, 'stringData'));
  }
  return causes;
}
