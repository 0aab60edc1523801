// auth-url and auth-signin with nginx variables, the form every oauth2-proxy guide writes
// (`https://$host/oauth2/auth`, `https://$host/oauth2/start?rd=$escaped_request_uri`): which variables, where, and why.
import * as v from './values.js';

/**
 * The host slot may name the request's own host. Portico never resolves it: a self-host auth-url is proxied to
 * Portico's own traffic listener with that Host header (render/auth.ts), so it re-enters Portico's routing for the
 * request's own host, exactly as a client could, and never reaches a loopback service or Portico's other ports
 * (docs/adr/0012). `$best_http_host` and `$http_host` may carry a port the client chose; they are read as `$host`.
 */
const SELF_HOST = /^(https?):\/\/\$(host|best_http_host|http_host)(?![A-Za-z0-9_])/;
/** Variables a signin URL may carry in its path and query: the request's own URI, host and scheme. */
const SIGNIN_VARS = /\$(escaped_request_uri|request_uri|host|best_http_host|http_host|scheme)(?![A-Za-z0-9_])/g;
const REST = /^([/?][A-Za-z0-9\-._~!&'()*+,;=:@/%?]*)?$/;

/** True for an auth URL whose host is the request's own ($host). */
export function isSelfHostUrl(url: string): boolean {
  return SELF_HOST.test(url);
}

/** auth-url (and global-auth-url): an http(s) URL, or `http(s)://$host/path?query` without other variables. */
export const authUrl: v.Parser<string> = (raw) => {
  const m = SELF_HOST.exec(raw);
  if (!m) {
    const r = v.httpUrl(raw);
    return r.ok || !raw.includes('$') ? r : v.bad(`${v.show(raw)}: variables are allowed only as the whole host ($host, $best_http_host or $http_host), e.g. https://$host/oauth2/auth`);
  }
  const rest = raw.slice(m[0].length);
  if (rest.length > 2048 || !REST.test(rest)) return v.bad(`${v.show(raw)}: after $host, only a literal path and query (no port, no other variable)`);
  return v.ok(`${m[1] ?? 'http'}://$host${rest}`);
};

/** auth-signin (and global-auth-signin): an http(s) URL whose host, path and query may name the request's own URI, host and scheme. */
export const authSignin: v.Parser<string> = (raw) => {
  if (!raw.includes('$')) return v.httpUrl(raw);
  const literal = raw
    .replace(/^\$scheme:\/\//, 'https://')
    .replace(SELF_HOST, '$1://self.invalid')
    .replace(SIGNIN_VARS, 'x');
  if (literal.includes('$') || !v.httpUrl(literal).ok) {
    return v.bad(`${v.show(raw)} is not an http(s) URL whose variables are $scheme, $host, $best_http_host, $http_host, $request_uri or $escaped_request_uri`);
  }
  return v.ok(raw);
};
