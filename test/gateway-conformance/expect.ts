// The conformance suite's expected-response check (conformance/utils/http CompareRoundTrip at v1.6.1), written
// again: what a request should get, and whether one captured round trip meets it. Pure: no I/O.
import type { EchoAnswer } from './echo.js';

export interface ConformanceRequest {
  /** The Host header; the Gateway's address (127.0.0.1) when left out. */
  readonly host?: string;
  readonly method?: string;
  /** Path with its query. */
  readonly path: string;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface Expected {
  readonly request: ConformanceRequest;
  /** What the backend must have seen; by default the request itself (path, method, host when given). */
  readonly expectedRequest?: Partial<ConformanceRequest> & { readonly absentHeaders?: readonly string[] };
  readonly redirectRequest?: { readonly scheme?: string; readonly host?: string; readonly port?: string; readonly path?: string };
  /** Response headers the echo backend is asked to set (X-Echo-Set-Header). */
  readonly backendSetResponseHeaders?: Readonly<Record<string, string>>;
  readonly response?: {
    readonly statusCode?: number;
    readonly statusCodes?: readonly number[];
    readonly headers?: Readonly<Record<string, string>>;
    readonly absentHeaders?: readonly string[];
    /** Each header's value must be one of these (ValidHeaderValues). */
    readonly validHeaderValues?: Readonly<Record<string, readonly string[]>>;
    /** Spaces are left out of both sides of header comparisons (IgnoreWhitespace). */
    readonly ignoreWhitespace?: boolean;
  };
  /** The Service whose pod must answer (its pod name starts with it). */
  readonly backend?: string;
  readonly namespace?: string;
}

export interface Captured {
  readonly status: number;
  /** Response headers by lower-case name, every value. */
  readonly headers: Readonly<Record<string, readonly string[]>>;
  /** The echo answer, when the body was one. */
  readonly echo: EchoAnswer | undefined;
}

export const GATEWAY_HOST = '127.0.0.1';

function statusCodes(e: Expected): readonly number[] {
  const codes = [...(e.response?.statusCodes ?? [])];
  if (e.response?.statusCode !== undefined && !codes.includes(e.response.statusCode)) codes.push(e.response.statusCode);
  return codes.length === 0 ? [200] : codes;
}

const joined = (h: Readonly<Record<string, readonly string[]>>, name: string): string | undefined => h[name.toLowerCase()]?.join(',');

/** Why the captured round trip does not meet `e`, or undefined when it does (upstream's checks, in its order). */
export function mismatch(e: Expected, got: Captured): string | undefined {
  const codes = statusCodes(e);
  if (!codes.includes(got.status)) return `status ${got.status}, expected one of ${codes.join(',')}`;
  if (got.status === 200 || got.status === 204) return okMismatch(e, got);
  if (got.status >= 300 && got.status < 400 && e.redirectRequest !== undefined) return redirectMismatch(e, got);
  return undefined;
}

function okMismatch(e: Expected, got: Captured): string | undefined {
  // Not an echo (a CORS preflight the gateway answers): upstream assumes only that the method was the one sent.
  const echo = got.echo ?? { path: '', host: '', method: e.request.method ?? 'GET', proto: '', headers: {}, namespace: '', pod: '' };
  return seenMismatch(e, echo) ?? responseMismatch(e, got) ?? (echo.pod.startsWith(e.backend ?? '') ? undefined : `pod ${echo.pod}, expected one of ${e.backend ?? ''}`);
}

/** What the backend saw: by default the request itself (host when given, path, method, headers). */
function seenMismatch(e: Expected, echo: EchoAnswer): string | undefined {
  const given = e.expectedRequest;
  const want = given ?? e.request;
  if (want.host !== undefined && want.host !== '' && want.host !== echo.host) return `backend saw host ${echo.host}, expected ${want.host}`;
  const path = want.path ?? e.request.path;
  if (path !== echo.path) return `backend saw path ${echo.path}, expected ${path}`;
  const method = want.method ?? 'GET';
  if (method !== echo.method) return `backend saw method ${echo.method}, expected ${method}`;
  if ((e.namespace ?? '') !== echo.namespace) return `namespace ${echo.namespace}, expected ${e.namespace ?? ''}`;
  for (const [name, value] of Object.entries(want.headers ?? {})) {
    const seen = joined(echo.headers, name);
    if (seen !== value) return `backend saw header ${name}: ${String(seen)}, expected ${value}`;
  }
  for (const name of given?.absentHeaders ?? []) if (echo.headers[name.toLowerCase()] !== undefined) return `backend saw header ${name}`;
  return undefined;
}

function responseMismatch(e: Expected, got: Captured): string | undefined {
  const bare = (v: string): string => (e.response?.ignoreWhitespace === true ? v.replaceAll(' ', '') : v);
  for (const [name, values] of Object.entries(e.response?.validHeaderValues ?? {})) {
    const seen = joined(got.headers, name);
    if (seen === undefined || !values.map(bare).includes(bare(seen))) return `response header ${name}: ${String(seen)}, expected one of ${values.join(' | ')}`;
  }
  for (const [name, value] of Object.entries(e.response?.headers ?? {})) {
    const seen = joined(got.headers, name);
    if (seen === undefined || bare(seen) !== bare(value)) return `response header ${name}: ${String(seen)}, expected ${value}`;
  }
  for (const name of e.response?.absentHeaders ?? []) if (got.headers[name.toLowerCase()] !== undefined) return `response header ${name} present`;
  return undefined;
}

function redirectMismatch(e: Expected, got: Captured): string | undefined {
  const location = joined(got.headers, 'location');
  if (location === undefined) return 'a redirect without Location';
  // Parsed by hand: URL() drops a port that is the scheme's, and the suite tells `:80` from none.
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/:?#]+)(?::(\d+))?([^?#]*)/.exec(location);
  if (m === null) return `Location ${location} is not an absolute URL`;
  const [, scheme = '', hostname = '', port = '', pathname = ''] = m;
  const url = { hostname, port, pathname: pathname === '' ? '/' : pathname };
  const want = e.redirectRequest ?? {};
  const host = want.host ?? url.hostname;
  if (host !== url.hostname) return `redirected host ${url.hostname}, expected ${host}`;
  if (want.port === undefined || want.port === '') {
    if (scheme === 'http' && !['', '80'].includes(url.port)) return `redirected port ${url.port} for http`;
    if (scheme === 'https' && !['', '443'].includes(url.port)) return `redirected port ${url.port} for https`;
  } else if (want.port !== url.port) return `redirected port ${url.port}, expected ${want.port}`;
  if ((want.scheme ?? 'http') !== scheme) return `redirected scheme ${scheme}, expected ${want.scheme ?? 'http'}`;
  const path = want.path ?? e.request.path.split('?')[0];
  if (path !== url.pathname) return `redirected path ${url.pathname}, expected ${path}`;
  return undefined;
}
