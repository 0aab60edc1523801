// Renders a location of backend-protocol FCGI: the standard CGI parameters, the Ingress's own, then fastcgi_pass.
import type { LocationSettings } from '../model/settings.js';
import { quote, quoteVars } from './escape.js';
import { FASTCGI_VARS } from '../annotations/fastcgi.js';

/**
 * nginx's own fastcgi_params file (the one ingress-nginx includes), written out so that Portico does not depend on
 * /etc/nginx: these are Portico's constants, never a user's value.
 */
const STANDARD: readonly (readonly [string, string])[] = [
  ['QUERY_STRING', '$query_string'],
  ['REQUEST_METHOD', '$request_method'],
  ['CONTENT_TYPE', '$content_type'],
  ['CONTENT_LENGTH', '$content_length'],
  ['SCRIPT_NAME', '$fastcgi_script_name'],
  ['REQUEST_URI', '$request_uri'],
  ['DOCUMENT_URI', '$document_uri'],
  ['DOCUMENT_ROOT', '$document_root'],
  ['SERVER_PROTOCOL', '$server_protocol'],
  ['REQUEST_SCHEME', '$scheme'],
  ['HTTPS', '$https if_not_empty'],
  ['GATEWAY_INTERFACE', 'CGI/1.1'],
  ['SERVER_SOFTWARE', 'nginx'],
  ['REMOTE_ADDR', '$remote_addr'],
  ['REMOTE_PORT', '$remote_port'],
  ['SERVER_ADDR', '$server_addr'],
  ['SERVER_PORT', '$server_port'],
  ['SERVER_NAME', '$server_name'],
  ['REDIRECT_STATUS', '200'],
];

/** The FastCGI lines of a location, ending with the pass to the Lua-balanced upstream. */
export function fastcgiLines(s: LocationSettings, indent: string): string[] {
  const own = s.fastcgi?.params ?? [];
  const mine = new Set(own.map(([k]) => k));
  return [
    // A parameter the ConfigMap sets replaces the standard one (nginx would send both, and most servers take the first).
    ...STANDARD.filter(([k]) => !mine.has(k)).map(([k, v]) => `${indent}fastcgi_param ${k} ${v};`),
    ...own.map(([k, v]) => `${indent}fastcgi_param ${quote(k)} ${quoteVars(v, FASTCGI_VARS)};`),
    ...(s.fastcgi?.index !== undefined ? [`${indent}fastcgi_index ${quote(s.fastcgi.index)};`] : []),
    `${indent}fastcgi_pass portico_balancer;`,
  ];
}
