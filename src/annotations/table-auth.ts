// The authentication and access-list rows of the annotation table, their value parsers, and how they combine.
import type { RiskLevel } from '../model/settings.js';
import type { LocationAuth } from '../model/settings-auth.js';
import type { AnnotationSpec, Draft } from './table.js';
import * as v from './values.js';
import { specRow } from './row.js';
import { snippetRefusal } from '../model/snippets/refusal.js';
import { authSignin, authUrl } from './auth-urls.js';

/** What the auth rows write while one Ingress's annotations are read; combineAuth turns it into a LocationAuth. */
export interface AuthDraft {
  type?: 'basic';
  secret?: string;
  secretType?: 'auth-file' | 'auth-map';
  realm?: string;
  url?: string;
  method?: string;
  signin?: string;
  redirectParam?: string;
  responseHeaders?: string[];
  requestRedirect?: string;
  cacheKey?: string;
  cacheDuration?: string[];
  alwaysSetCookie?: boolean;
  proxySetHeaders?: string;
  snippet?: string;
  enableGlobal?: boolean;
  allow?: string[];
  deny?: string[];
  satisfy?: 'any' | 'all';
}

interface Meta {
  type: string;
  default: string;
  risk: RiskLevel;
  doc: string;
  snippet?: boolean;
}

function row<T>(key: string, meta: Meta, parse: v.Parser<T>, set: (d: AuthDraft, value: T) => void): AnnotationSpec {
  return specRow(key, { ...meta, scope: 'location' }, parse, (d, value) => {
    set(d.auth, value);
  });
}

const authType: v.Parser<'basic'> = (raw) =>
  raw === 'basic'
    ? v.ok('basic')
    : raw === 'digest'
      ? v.bad("digest authentication is not supported: Debian's nginx has no digest module; use basic over HTTPS or auth-url (docs/migration.md)")
      : v.bad(`${v.show(raw)} is not basic`);
/** `name` or `namespace/name`; the namespace rule is checked when the Secret is read (allow-cross-namespace-resources). */
const secretRef: v.Parser<string> = (raw) => {
  const r = v.objectRef(raw);
  return r.ok ? v.ok(r.value[0] === '' ? r.value[1] : r.value.join('/')) : r;
};
/** A realm: printable ASCII without quotes, backslashes, `$`, braces or `;`. */
const realm: v.Parser<string> = (raw) => (/^[A-Za-z0-9 _.,:/@()!?+=-]{1,128}$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a realm (letters, digits, spaces and _.,:/@()!?+=-, at most 128)`));
export const method: v.Parser<string> = v.oneOf(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const, true);
export const redirectParam: v.Parser<string> = (raw) => (/^[A-Za-z0-9_.-]{1,64}$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a query parameter name`));
export const headerList: v.Parser<string[]> = (raw) => {
  const r = v.list(v.headerName, /\s*,\s*/, 32)(raw);
  return r.ok && r.value.length === 0 ? v.bad('an empty list') : r;
};
/** Variables a cache key may name: fixed ones and the families with a suffix (an unknown one would fail nginx -t). */
const KEY_VARS = /^(remote_user|remote_addr|host|http_host|request_uri|uri|args|scheme|server_name|(http|cookie|arg)_[a-z0-9_]{1,64})$/;
export const cacheKey: v.Parser<string> = (raw) => {
  const ok1 = raw.length <= 256 && /^(\$[a-z_][a-z0-9_]*|[A-Za-z0-9_.:/-])+$/.test(raw) && raw.includes('$');
  const vars = [...raw.matchAll(/\$([a-z_][a-z0-9_]*)/g)].map((m) => m[1] ?? '');
  return ok1 && vars.every((x) => KEY_VARS.test(x)) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a cache key of known nginx variables, e.g. $remote_user$http_authorization`);
};
/** proxy_cache_valid arguments: optional status codes (or `any`) then one time, e.g. `200 202 401 5m`. */
export const cacheDuration: v.Parser<string[]> = (raw) => {
  const parts = raw.trim().split(/\s+/);
  const time = parts.at(-1) ?? '';
  const ok1 = parts.length <= 16 && /^\d{1,6}[smhd]?$/.test(time) && parts.slice(0, -1).every((c) => c === 'any' || /^[1-5]\d\d$/.test(c));
  return ok1 ? v.ok(parts) : v.bad(`${v.show(raw)} is not status codes followed by a time, e.g. 200 202 401 5m`);
};
const cidr = v.cidr;
const cidrList: v.Parser<string[]> = (raw) => {
  const r = v.list(cidr, /\s*,\s*/, 4096)(raw);
  return r.ok && r.value.length === 0 ? v.bad('an empty list') : r;
};

const L = (type: string, def: string, risk: RiskLevel, doc: string): Meta => ({ type, default: def, risk, doc });

/** The rows spliced into ANNOTATIONS. */
export const AUTH_ANNOTATIONS: readonly AnnotationSpec[] = [
  row('auth-type', L('enum', '', 'Low', "Authentication of this Ingress: `basic` (htpasswd). `digest` is refused: Debian's nginx has no digest module."), authType, (d, x) => {
    d.type = x;
  }),
  row(
    'auth-secret',
    L('secret', '', 'Medium', 'Secret (`name`, or `namespace/name` with allow-cross-namespace-resources) holding the users: htpasswd lines in key `auth`, or one key per user.'),
    secretRef,
    (d, x) => {
      d.secret = x;
    },
  ),
  row(
    'auth-secret-type',
    L('enum', 'auth-file', 'Low', '`auth-file`: htpasswd lines in key `auth`; `auth-map`: each key a user, each value a password hash.'),
    v.oneOf(['auth-file', 'auth-map'] as const),
    (d, x) => {
      d.secretType = x;
    },
  ),
  row('auth-realm', L('string', 'Authentication Required', 'Medium', 'Realm shown by the browser for basic auth.'), realm, (d, x) => {
    d.realm = x;
  }),
  row(
    'auth-url',
    L(
      'url',
      '',
      'High',
      "External auth service (http/https URL): 2xx lets the request through, 401/403 answer the client. The host may be `$host` (oauth2-proxy's form, `https://$host/oauth2/auth`): Portico then sends the auth request to its own listener for the request's host.",
    ),
    authUrl,
    (d, x) => {
      d.url = x;
    },
  ),
  row('auth-method', L('enum', 'GET', 'Low', 'HTTP method of the request to auth-url.'), method, (d, x) => {
    d.method = x.toUpperCase();
  }),
  row(
    'auth-signin',
    L(
      'url',
      '',
      'High',
      'Where a 401 from auth-url redirects (302), with the original URL in the auth-signin-redirect-param query parameter unless the URL has it already; it may use $scheme, $host, $best_http_host, $http_host, $request_uri and $escaped_request_uri.',
    ),
    authSignin,
    (d, x) => {
      d.signin = x;
    },
  ),
  row('auth-signin-redirect-param', L('token', 'rd', 'Medium', 'Query parameter of auth-signin that carries the original URL.'), redirectParam, (d, x) => {
    d.redirectParam = x;
  }),
  row('auth-response-headers', L('header list', '', 'Medium', 'Headers of the auth response (comma-separated) copied to the request sent to the backend.'), headerList, (d, x) => {
    d.responseHeaders = x;
  }),
  row(
    'auth-request-redirect',
    L('url', '', 'Medium', 'Value of the X-Auth-Request-Redirect header sent to auth-url (default: the request URI).'),
    (raw) => (raw.startsWith('/') ? v.uriPath(raw) : v.httpUrl(raw)),
    (d, x) => {
      d.requestRedirect = x;
    },
  ),
  row('auth-cache-key', L('nginx variables', '', 'Medium', 'Caches auth responses under this key (known nginx variables, e.g. `$remote_user$http_authorization`).'), cacheKey, (d, x) => {
    d.cacheKey = x;
  }),
  row('auth-cache-duration', L('codes time', '200 202 401 5m', 'Medium', 'How long auth responses are cached, per status code.'), cacheDuration, (d, x) => {
    d.cacheDuration = x;
  }),
  row('auth-always-set-cookie', L('bool', 'false', 'Low', "Sends the auth response's Set-Cookie with every answer, not only 2xx/3xx ones."), v.bool, (d, x) => {
    d.alwaysSetCookie = x;
  }),
  row('auth-proxy-set-headers', L('configmap', '', 'Medium', 'ConfigMap (same namespace) of headers sent to auth-url.'), v.objectRef, (d, x) => {
    d.proxySetHeaders = x.join('/');
  }),
  row(
    'auth-snippet',
    { ...L('nginx', '', 'Critical', 'Raw nginx directives in the auth-url request (refused unless snippets are allowed).'), snippet: true },
    (raw) => {
      const why = snippetRefusal(raw);
      return why === undefined ? v.ok(raw) : v.bad<string>(why);
    },
    (d, x) => {
      d.snippet = x;
    },
  ),
  row('enable-global-auth', L('bool', 'true', 'Low', "false: the ConfigMap's global-auth-url does not apply to this Ingress."), v.bool, (d, x) => {
    d.enableGlobal = x;
  }),
  row('allowlist-source-range', L('cidr list', '', 'Medium', 'Only these client addresses (comma-separated CIDRs, IPv4 and IPv6) may use this Ingress; others get 403.'), cidrList, (d, x) => {
    d.allow = x;
  }),
  row('whitelist-source-range', L('cidr list', '', 'Medium', 'Old name of allowlist-source-range (which wins when both are set).'), cidrList, (d, x) => {
    d.allow ??= x;
  }),
  row('denylist-source-range', L('cidr list', '', 'Medium', 'These client addresses (comma-separated CIDRs) get 403.'), cidrList, (d, x) => {
    d.deny = x;
  }),
  row('satisfy', L('enum', 'all', 'Low', '`any`: an allowed address OR valid credentials suffice; `all`: both are needed.'), v.oneOf(['any', 'all'] as const), (d, x) => {
    d.satisfy = x;
  }),
];

/** Builds the LocationAuth of the draft (nothing when no auth annotation was given); errors name the annotation. */
export function combineAuth(d: Draft, key: (name: string) => string, errors: { annotation: string; reason: string }[]): void {
  const a = d.auth;
  if (Object.keys(a).length === 0) return;
  if ((a.type === undefined) !== (a.secret === undefined)) {
    errors.push({ annotation: key(a.type === undefined ? 'auth-secret' : 'auth-type'), reason: 'auth-type and auth-secret go together' });
  }
  const auth: LocationAuth = {
    enableGlobal: a.enableGlobal ?? true,
    ...(a.type !== undefined && a.secret !== undefined ? { basic: { secret: a.secret, secretType: a.secretType ?? 'auth-file', realm: a.realm ?? 'Authentication Required' } } : {}),
    ...(a.url !== undefined
      ? {
          external: {
            url: a.url,
            redirectParam: a.redirectParam ?? 'rd',
            responseHeaders: a.responseHeaders ?? [],
            cacheDuration: a.cacheDuration ?? ['200', '202', '401', '5m'],
            alwaysSetCookie: a.alwaysSetCookie ?? false,
            global: false,
            ...(a.method !== undefined ? { method: a.method } : {}),
            ...(a.signin !== undefined ? { signin: a.signin } : {}),
            ...(a.requestRedirect !== undefined ? { requestRedirect: a.requestRedirect } : {}),
            ...(a.cacheKey !== undefined ? { cacheKey: a.cacheKey } : {}),
            ...(a.proxySetHeaders !== undefined ? { proxySetHeadersRef: a.proxySetHeaders } : {}),
            ...(a.snippet !== undefined ? { snippet: a.snippet } : {}),
          },
        }
      : {}),
    ...(a.allow !== undefined ? { allow: a.allow } : {}),
    ...(a.deny !== undefined ? { deny: a.deny } : {}),
    ...(a.satisfy !== undefined ? { satisfy: a.satisfy } : {}),
  };
  d.location.auth = auth;
}
