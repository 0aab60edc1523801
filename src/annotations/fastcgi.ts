// FastCGI backends (backend-protocol FCGI): the fastcgi-index value and the fastcgi_param ConfigMap, validated.
import type { ConfigMap } from '../model/input.js';
import { byName } from '../model/lookup.js';
import * as v from './values.js';

/** fastcgi_index: one file name (letters, digits, `._-`, not `.` or `..`), as `index.php`. */
export const fastcgiIndex: v.Parser<string> = (raw) =>
  /^[A-Za-z0-9._-]{1,255}$/.test(raw) && raw !== '.' && raw !== '..' ? v.ok(raw) : v.bad(`${v.show(raw)} is not a file name such as index.php (letters, digits and ._-)`);

/** A FastCGI parameter name: a CGI variable such as SCRIPT_FILENAME or HTTP_PROXY. */
const PARAM_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * Variables a parameter value may use: those nginx computes for a FastCGI request, the request's own, and the
 * `http_*` / `arg_* ` / `cookie_*` families. Anything else after `$` is refused, so a value never names
 * Portico's internal variables (`$portico_*`) nor one nginx would refuse at `nginx -t`.
 */
export const FASTCGI_VARS =
  /^(fastcgi_script_name|fastcgi_path_info|document_root|document_uri|request_uri|uri|args|query_string|is_args|request_method|content_type|content_length|scheme|https|host|server_name|server_port|server_addr|server_protocol|remote_addr|remote_port|remote_user|request_id|nginx_version|(http|arg|cookie)_[a-z0-9_]{1,64})$/;

/**
 * A parameter value: printable ASCII up to 1024 characters where `$` only starts `$name` or `${name}` of an
 * allowed variable (FASTCGI_VARS), as `$document_root$fastcgi_script_name`; a literal `$` is not expressible.
 */
export const paramValue: v.Parser<string> = (raw) => {
  if (!/^[\x20-\x7e]{0,1024}$/.test(raw)) return v.bad(`${v.show(raw)} is not printable ASCII of at most 1024 characters`);
  for (const m of raw.matchAll(/\$(\{([^}]*)\}|([A-Za-z0-9_]*))/g)) {
    const name = m[2] ?? m[3] ?? '';
    if (!FASTCGI_VARS.test(name))
      return v.bad(`${v.show(raw)} uses ${v.show(`$${m[1] ?? ''}`)}, not a variable a FastCGI parameter may name (e.g. $document_root, $fastcgi_script_name, $request_uri, $http_*)`);
  }
  return v.ok(raw);
};

/** Reads the fastcgi-params-configmap (`namespace/name`): each key a parameter name, each value its value. */
export function fastcgiParamsFrom(configMaps: readonly ConfigMap[], ref: string): { params: [string, string][]; error?: string } {
  const [ns, name] = ref.split('/');
  const cm = byName(configMaps, ns, name);
  if (!cm) return { params: [], error: `ConfigMap ${ref} not found` };
  const keys = Object.keys(cm.data ?? {}).sort();
  if (keys.length > 128) return { params: [], error: `ConfigMap ${ref} has ${keys.length} keys, more than 128 FastCGI parameters` };
  const params: [string, string][] = [];
  for (const k of keys) {
    if (!PARAM_NAME.test(k)) return { params: [], error: `ConfigMap ${ref}: ${v.show(k)} is not a FastCGI parameter name (letters, digits, _)` };
    const value = paramValue(cm.data?.[k] ?? '');
    if (!value.ok) return { params: [], error: `ConfigMap ${ref} key ${k}: ${value.reason}` };
    params.push([k, value.value]);
  }
  return { params };
}
