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

const ORIGIN = /^https?:\/\/(\*\.)?[a-z0-9.-]+(:\d{1,5})?$/;

/** One map key per allowed origin: exact origins quoted, `*.` wildcards as regexes of exactly one more DNS label (as ingress-nginx). */
function originKey(origin: string): string {
  if (!ORIGIN.test(origin)) throw new UnsafeValueError(`refusing to render the origin ${JSON.stringify(origin)}`);
  if (!origin.includes('*')) return quote(origin);
  const [scheme, rest] = origin.split('://*.') as [string, string];
  return quoteLiteral(`~*^${scheme}://[a-z0-9-]+\\.${rest.replace(/\./g, '\\.')}$`);
}

/**
 * http-level maps of one configuration: `$portico_cors_ID` is the origin to echo ("" when it does not match, `*`
 * for `*`), `$portico_cors_pre_ID` is 1 for a preflight (OPTIONS from an allowed origin), and the credentials and
 * expose-headers values, empty for origins that did not match (nginx's add_header skips empty values).
 */
export function corsMaps(c: ResolvedCors): string[] {
  const id = corsId(c);
  const any = c.allowOrigin.includes('*');
  const lines = any
    ? [`    map $http_origin $portico_cors_${id} { default "*"; }`]
    : [`    map $http_origin $portico_cors_${id} {`, '        default "";', ...c.allowOrigin.map((o) => `        ${originKey(o)} $http_origin;`), '    }'];
  lines.push(`    map "$request_method:$portico_cors_${id}" $portico_cors_pre_${id} { default 0; "~^OPTIONS:." 1; }`);
  if (c.allowCredentials) lines.push(`    map $portico_cors_${id} $portico_cors_cred_${id} { "" ""; default "true"; }`);
  if (c.exposeHeaders.length > 0) {
    lines.push(`    map $portico_cors_${id} $portico_cors_exp_${id} { "" ""; default ${quote(c.exposeHeaders.map(headerOrStar).join(', '))}; }`);
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
 * Location lines: a preflight from an allowed origin is answered 204 in the rewrite phase (before the balancer, so
 * the backend never sees it); other answers get the CORS headers when the origin matched. `others` are the
 * add_header lines the location inherits and must repeat (add_header replaces inherited ones).
 */
export function corsLocation(c: ResolvedCors, indent: string, others: readonly string[]): string[] {
  const id = corsId(c);
  const I2 = `${indent}    `;
  const vary = c.allowOrigin.includes('*') ? [] : [`add_header Vary "Origin" always;`];
  const cred = c.allowCredentials ? [`add_header Access-Control-Allow-Credentials $portico_cors_cred_${id} always;`] : [];
  return [
    `${indent}if ($portico_cors_pre_${id}) {`,
    `${I2}add_header Access-Control-Allow-Origin $portico_cors_${id} always;`,
    ...(c.allowCredentials ? [`${I2}add_header Access-Control-Allow-Credentials "true" always;`] : []),
    `${I2}add_header Access-Control-Allow-Methods ${quote(c.allowMethods.map(method).join(', '))} always;`,
    `${I2}add_header Access-Control-Allow-Headers ${quote(c.allowHeaders.map(headerOrStar).join(', '))} always;`,
    `${I2}add_header Access-Control-Max-Age ${int(c.maxAge)} always;`,
    ...vary.map((l) => `${I2}${l}`),
    `${I2}return 204;`,
    `${indent}}`,
    `${indent}add_header Access-Control-Allow-Origin $portico_cors_${id} always;`,
    ...cred.map((l) => `${indent}${l}`),
    ...(c.exposeHeaders.length > 0 ? [`${indent}add_header Access-Control-Expose-Headers $portico_cors_exp_${id} always;`] : []),
    ...vary.map((l) => `${indent}${l}`),
    ...others,
  ];
}
