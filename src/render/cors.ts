// Renders CORS: one origin map per distinct CORS configuration at http level, and the location's preflight and headers.
import { sha256 } from '../hash.js';
import { CORS_DEFAULTS, type CorsSettings, type ResolvedCors } from '../model/settings-traffic.js';
import { UnsafeValueError } from '../errors.js';
import { headerName, int, quote, quoteLiteral } from './escape.js';

/** The configuration with ingress-nginx's defaults filled in, or undefined when CORS is off. */
export function resolveCors(c: CorsSettings | undefined): ResolvedCors | undefined {
  if (!c?.enabled) return undefined;
  return {
    allowOrigin: c.allowOrigin ?? CORS_DEFAULTS.allowOrigin,
    allowMethods: c.allowMethods ?? CORS_DEFAULTS.allowMethods,
    allowHeaders: c.allowHeaders ?? CORS_DEFAULTS.allowHeaders,
    allowCredentials: c.allowCredentials ?? CORS_DEFAULTS.allowCredentials,
    exposeHeaders: c.exposeHeaders ?? CORS_DEFAULTS.exposeHeaders,
    maxAge: c.maxAge ?? CORS_DEFAULTS.maxAge,
  };
}

/** A short stable id of one CORS configuration, naming its variables. */
export function corsId(c: ResolvedCors): string {
  return sha256(JSON.stringify(c), 12);
}

const ORIGIN = /^[a-z][a-z0-9+.-]{0,31}:\/\/(\*\.)?[a-z0-9.-]+(:\d{1,5})?$/;

/** One map key per allowed origin: exact origins quoted, `*.` wildcards as regexes of exactly one more DNS label (as ingress-nginx). */
function originKey(origin: string): string {
  if (!ORIGIN.test(origin)) throw new UnsafeValueError(`refusing to render the origin ${JSON.stringify(origin)}`);
  if (!origin.includes('*')) return quote(origin);
  const [scheme, rest] = origin.split('://*.') as [string, string];
  return quoteLiteral(`~*^${scheme.replace(/[+.]/g, '\\$&')}://[a-z0-9-]+\\.${rest.replace(/\./g, '\\.')}$`);
}

/**
 * http-level maps of one configuration: `$portico_cors_ID` is the origin to echo ("" when it does not match, `*`
 * for `*`), `$portico_cors_pre_ID` is 1 for a preflight (OPTIONS from an allowed origin). The header values
 * (`$portico_cors_h_ID`, `_cred_`, `_exp_`) fall back to what the backend sent when the origin did not match: an
 * empty more_set_headers value would remove the backend's header, and Portico leaves it alone as ingress-nginx does.
 * They are read only in the header filter, after the backend answered.
 */
export function corsMaps(c: ResolvedCors): string[] {
  const id = corsId(c);
  const any = c.allowOrigin.includes('*');
  const lines = any
    ? [`    map $http_origin $portico_cors_${id} { default "*"; }`]
    : [`    map $http_origin $portico_cors_${id} {`, '        default "";', ...c.allowOrigin.map((o) => `        ${originKey(o)} $http_origin;`), '    }'];
  lines.push(`    map "$request_method:$portico_cors_${id}" $portico_cors_pre_${id} { default 0; "~^OPTIONS:." 1; }`);
  lines.push(`    map $portico_cors_${id} $portico_cors_h_${id} { "" $sent_http_access_control_allow_origin; default $portico_cors_${id}; }`);
  if (c.allowCredentials) lines.push(`    map $portico_cors_${id} $portico_cors_cred_${id} { "" $sent_http_access_control_allow_credentials; default "true"; }`);
  if (c.exposeHeaders.length > 0) {
    const exposed = quote(c.exposeHeaders.map(headerOrStar).join(', '));
    lines.push(`    map $portico_cors_${id} $portico_cors_exp_${id} { "" $sent_http_access_control_expose_headers; default ${exposed}; }`);
  }
  return lines;
}

function headerOrStar(h: string): string {
  return h === '*' ? '*' : headerName(h);
}

function method(m: string): string {
  if (!/^[A-Z]{1,20}$/.test(m)) throw new UnsafeValueError(`refusing to render the method ${JSON.stringify(m)}`);
  return m;
}

/**
 * http{}: the Vary a CORS answer for listed origins sends: the backend's with Origin added (once), or Origin. A
 * more_set_headers, like every header Portico adds; an add_header here would cut the location off from every
 * add_header it inherits (a server snippet's). nginx 1.22's `$sent_http_vary` is the backend's first Vary line.
 */
export const CORS_VARY_MAP = `    map $sent_http_vary $portico_cors_vary { "" "Origin"; "~*(^|[,\\s])origin($|[,\\s])" $sent_http_vary; default "$sent_http_vary, Origin"; }`;

/** One more_set_headers line: `name` is Portico's own; `value` is a variable of Portico's maps or checked text (methods, header names). */
function set(indent: string, name: string, value: string): string {
  return `${indent}more_set_headers ${quoteLiteral(`${name}: ${value}`)};`;
}

/**
 * Location lines: a preflight from an allowed origin is answered 204 in the rewrite phase (before the balancer, so
 * the backend never sees it); other answers get the CORS headers when the origin matched. The headers are
 * more_set_headers (headers-more), which a nested block (the preflight's `if`) merges with what it inherits, so
 * HSTS, the ConfigMap's add-headers and custom-headers reach the preflight too (docs/adr/0003, amendment). Vary
 * (listed origins only) keeps the backend's values (CORS_VARY_MAP). Portico adds no add_header here, so a server
 * snippet's add_header still reaches these answers.
 */
export function corsLocation(c: ResolvedCors, indent: string): string[] {
  const id = corsId(c);
  const I2 = `${indent}    `;
  const vary = c.allowOrigin.includes('*') ? [] : [set('', 'Vary', '$portico_cors_vary')];
  const methods = c.allowMethods.map(method).join(', ');
  const headers = c.allowHeaders.map(headerOrStar).join(', ');
  return [
    `${indent}if ($portico_cors_pre_${id}) {`,
    set(I2, 'Access-Control-Allow-Origin', `$portico_cors_${id}`),
    ...(c.allowCredentials ? [set(I2, 'Access-Control-Allow-Credentials', 'true')] : []),
    set(I2, 'Access-Control-Allow-Methods', methods),
    set(I2, 'Access-Control-Allow-Headers', headers),
    set(I2, 'Access-Control-Max-Age', int(c.maxAge)),
    `${I2}return 204;`,
    `${indent}}`,
    set(indent, 'Access-Control-Allow-Origin', `$portico_cors_h_${id}`),
    ...(c.allowCredentials ? [set(indent, 'Access-Control-Allow-Credentials', `$portico_cors_cred_${id}`)] : []),
    ...(c.exposeHeaders.length > 0 ? [set(indent, 'Access-Control-Expose-Headers', `$portico_cors_exp_${id}`)] : []),
    ...vary.map((l) => `${indent}${l}`),
  ];
}
