// The audited allowlist of --snippet-mode=safe: each directive, where it may stand and what its arguments may be.
// Why each entry is safe: docs/adr/0012-safe-snippets.md. Variables: VARIABLES below.
import { regexSafety } from '../regex-safety.js';

/** Where a snippet lands: a location (configuration-, location-, auth-snippet), a server, `if` inside those, http, main, stream. */
export type Context = 'location' | 'server' | 'if' | 'http' | 'main' | 'stream';

export interface Rule {
  readonly contexts: readonly Context[];
  /** Why the arguments may not be used, or undefined; `args` are the token values. */
  readonly check: (args: readonly string[]) => string | undefined;
  /** A block directive (`if`, `map`): its body is checked in this context. */
  readonly block?: Context | 'map';
}

const LSI: Context[] = ['location', 'server', 'if'];
const LSH: Context[] = ['location', 'server', 'http'];
const LSHI: Context[] = ['location', 'server', 'http', 'if'];
/** Also at the top of stream{}, where the stream module's directive of the same name takes the same argument. */
const LSHS: Context[] = ['location', 'server', 'http', 'stream'];
const STREAM: Context[] = ['stream'];
const HEADER = /^[A-Za-z0-9][A-Za-z0-9-]{0,63}$/;
const TIME = /^\d{1,7}(ms|s|m|h|d|w|M|y)?$/;
const SIZE = /^\d{1,9}[kKmMgG]?$/;

const count =
  (min: number, max: number) =>
  (a: readonly string[]): string | undefined =>
    a.length < min || a.length > max ? `takes ${min === max ? min : `${min} to ${max}`} argument${max === 1 ? '' : 's'}, not ${a.length}` : undefined;
const all =
  (...checks: ((a: readonly string[]) => string | undefined)[]) =>
  (a: readonly string[]): string | undefined =>
    checks.map((c) => c(a)).find((r) => r !== undefined);
const arg =
  (i: number, re: RegExp, what: string) =>
  (a: readonly string[]): string | undefined =>
    a[i] !== undefined && !re.test(a[i] ?? '') ? `argument ${i + 1} ${JSON.stringify(a[i])} is not ${what}` : undefined;
const oneOf =
  (words: readonly string[]) =>
  (a: readonly string[]): string | undefined =>
    all(count(1, 1), arg(0, new RegExp(`^(${words.join('|')})$`), words.join(' or ')))(a);
const regex =
  (i: number) =>
  (a: readonly string[]): string | undefined => {
    const r = a[i] ?? '';
    const why = regexSafety(r.replace(/^~\*?/, ''));
    return why !== undefined ? `the regular expression ${JSON.stringify(r.slice(0, 60))} is refused: ${why}` : undefined;
  };
const flag = (i: number, flags: readonly string[]): ((a: readonly string[]) => string | undefined) => arg(i, new RegExp(`^(${flags.join('|')})$`), `one of ${flags.join(', ')}`);

/** `more_*_headers` arguments: `-s CODES`, `-t TYPES`, then header specs `Name: value` or `Name`. */
function moreHeaders(a: readonly string[]): string | undefined {
  for (let i = 0; i < a.length; i += 1) {
    const x = a[i] ?? '';
    if (x === '-s' || x === '-t') {
      i += 1;
      if (!/^[A-Za-z0-9/.+*\s-]+$/.test(a[i] ?? '')) return `the ${x} option needs status codes or MIME types`;
      continue;
    }
    if (x.startsWith('-')) return `the option ${JSON.stringify(x)} is not -s or -t`;
    if (!/^[A-Za-z0-9][A-Za-z0-9-]{0,63}(\s*:.*)?$/s.test(x)) return `${JSON.stringify(x.slice(0, 60))} is not "Header: value" or "Header"`;
  }
  return a.length === 0 ? 'takes at least one header' : undefined;
}

/** `error_page CODE... [=[CODE]] URI`: the URI a path, a named location or an http(s) URL. */
function errorPage(a: readonly string[]): string | undefined {
  const uri = a.at(-1) ?? '';
  const codes = a.slice(0, -1);
  if (codes.length === 0 || !codes.every((c, i) => /^[345]\d\d$/.test(c) || (i === codes.length - 1 && /^=([1-5]\d\d)?$/.test(c)))) return 'takes status codes, an optional =CODE and a URI';
  return /^(\/|@[A-Za-z0-9_]+$|https?:\/\/)/.test(uri) ? undefined : `the URI ${JSON.stringify(uri.slice(0, 60))} is not a path, @name or http(s) URL`;
}

/** `if (...)`: a variable, or a variable compared with `=`, `!=`, `~`, `~*`, `!~`, `!~*`; never the file tests (-f, -d, -e, -x). */
function ifCondition(a: readonly string[]): string | undefined {
  const text = a.join(' ');
  const m = /^\((\$[A-Za-z0-9_]+)(?:\s+(=|!=|~|~\*|!~|!~\*)\s+(.+))?\)$/s.exec(text);
  if (!m) return `the condition ${JSON.stringify(text.slice(0, 60))} is not ($variable) or ($variable OP value) with OP one of = != ~ ~* !~ !~*`;
  const op = m[2] ?? '';
  return op.includes('~') ? regex(0)([m[3] ?? '']) : undefined;
}

/** The allowlist. */
export const ALLOWED: Readonly<Record<string, Rule>> = {
  add_header: { contexts: LSHI, check: all(count(2, 3), arg(0, HEADER, 'a header name'), arg(2, /^always$/, 'always')) },
  more_set_headers: { contexts: LSHI, check: moreHeaders },
  more_clear_headers: { contexts: LSHI, check: moreHeaders },
  more_set_input_headers: { contexts: LSHI, check: moreHeaders },
  more_clear_input_headers: { contexts: LSHI, check: moreHeaders },
  proxy_set_header: { contexts: LSH, check: all(count(2, 2), arg(0, HEADER, 'a header name')) },
  proxy_hide_header: { contexts: LSH, check: all(count(1, 1), arg(0, HEADER, 'a header name')) },
  proxy_pass_header: { contexts: LSH, check: all(count(1, 1), arg(0, HEADER, 'a header name')) },
  set: { contexts: LSI, check: all(count(2, 2), arg(0, /^\$[A-Za-z_][A-Za-z0-9_]*$/, 'a variable')) },
  if: { contexts: ['location', 'server'], check: ifCondition, block: 'if' },
  return: {
    contexts: LSI,
    check: all(count(1, 2), (a) => (a.length === 2 || /^\d{3}$/.test(a[0] ?? '') ? arg(0, /^\d{3}$/, 'a status code')(a) : arg(0, /^https?:\/\//, 'a status code or an http(s) URL')(a))),
  },
  rewrite: { contexts: LSI, check: all(count(2, 3), regex(0), flag(2, ['last', 'break', 'redirect', 'permanent'])) },
  expires: {
    contexts: LSHI,
    check: all(count(1, 2), (a) => (a.every((x) => /^(epoch|max|off|modified|[-@]?\d{1,7}(ms|s|m|h|d|w|M|y)?)$/.test(x)) ? undefined : 'takes epoch, max, off, or [modified] [@|-]TIME')),
  },
  gzip: { contexts: LSHI, check: oneOf(['on', 'off']) },
  gzip_types: { contexts: LSH, check: (a) => (a.length > 0 && a.every((x) => /^([a-z0-9.+-]+\/[a-z0-9.+*-]+|\*)$/.test(x)) ? undefined : 'takes MIME types') },
  gzip_min_length: { contexts: LSH, check: all(count(1, 1), arg(0, SIZE, 'a length')) },
  gzip_comp_level: { contexts: LSH, check: all(count(1, 1), arg(0, /^[1-9]$/, 'a level 1-9')) },
  gzip_vary: { contexts: LSH, check: oneOf(['on', 'off']) },
  gzip_proxied: {
    contexts: LSH,
    check: (a) => (a.length > 0 && a.every((x) => /^(off|expired|no-cache|no-store|private|no_last_modified|no_etag|auth|any)$/.test(x)) ? undefined : 'takes gzip_proxied conditions'),
  },
  gzip_http_version: { contexts: LSH, check: oneOf(['1.0', '1.1']) },
  gzip_disable: { contexts: LSH, check: (a) => (a.length > 0 ? a.map((_, i) => regex(i)(a)).find((x) => x !== undefined) : 'takes patterns') },
  gzip_buffers: { contexts: LSH, check: all(count(2, 2), arg(0, /^\d{1,4}$/, 'a number'), arg(1, SIZE, 'a size')) },
  proxy_connect_timeout: { contexts: LSHS, check: all(count(1, 1), arg(0, TIME, 'a time')) },
  proxy_read_timeout: { contexts: LSH, check: all(count(1, 1), arg(0, TIME, 'a time')) },
  proxy_send_timeout: { contexts: LSH, check: all(count(1, 1), arg(0, TIME, 'a time')) },
  proxy_next_upstream_timeout: { contexts: LSHS, check: all(count(1, 1), arg(0, TIME, 'a time')) },
  proxy_intercept_errors: { contexts: LSH, check: oneOf(['on', 'off']) },
  proxy_buffering: { contexts: LSH, check: oneOf(['on', 'off']) },
  proxy_request_buffering: { contexts: LSH, check: oneOf(['on', 'off']) },
  proxy_http_version: { contexts: LSH, check: oneOf(['1.0', '1.1']) },
  proxy_buffer_size: { contexts: LSHS, check: all(count(1, 1), arg(0, SIZE, 'a size')) },
  proxy_buffers: { contexts: LSH, check: all(count(2, 2), arg(0, /^\d{1,4}$/, 'a number'), arg(1, SIZE, 'a size')) },
  client_max_body_size: { contexts: LSH, check: all(count(1, 1), arg(0, SIZE, 'a size')) },
  error_page: { contexts: LSHI, check: errorPage },
  allow: { contexts: LSHS, check: all(count(1, 1), arg(0, /^(all|[0-9a-fA-F.:]{2,45}(\/\d{1,3})?)$/, 'an address, CIDR or all')) },
  deny: { contexts: LSHS, check: all(count(1, 1), arg(0, /^(all|[0-9a-fA-F.:]{2,45}(\/\d{1,3})?)$/, 'an address, CIDR or all')) },
  // stream{} defaults for every TCP/UDP server: timeouts, buffers, retries and access lists; never a server, listen or target.
  proxy_timeout: { contexts: STREAM, check: all(count(1, 1), arg(0, TIME, 'a time')) },
  proxy_next_upstream: { contexts: STREAM, check: oneOf(['on', 'off']) },
  proxy_next_upstream_tries: { contexts: STREAM, check: all(count(1, 1), arg(0, /^\d{1,3}$/, 'a number')) },
  proxy_socket_keepalive: { contexts: STREAM, check: oneOf(['on', 'off']) },
  preread_timeout: { contexts: STREAM, check: all(count(1, 1), arg(0, TIME, 'a time')) },
  tcp_nodelay: { contexts: STREAM, check: oneOf(['on', 'off']) },
  map: { contexts: ['http'], check: all(count(2, 2), arg(0, /^\$[A-Za-z_][A-Za-z0-9_]*$/, 'a variable'), arg(1, /^\$[A-Za-z_][A-Za-z0-9_]*$/, 'a variable')), block: 'map' },
};

/** Variables a safe snippet may read: the request's own, never Portico's or the machine's (files, addresses, processes). */
const VARIABLES = new Set([
  'host',
  'http_host',
  'best_http_host',
  'scheme',
  'https',
  'request_uri',
  'uri',
  'document_uri',
  'args',
  'query_string',
  'is_args',
  'request_method',
  'remote_addr',
  'remote_port',
  'remote_user',
  'server_name',
  'server_port',
  'server_protocol',
  'request_id',
  'req_id',
  'status',
  'request_time',
  'msec',
  'time_iso8601',
  'time_local',
  'content_type',
  'content_length',
  'request_length',
  'body_bytes_sent',
  'bytes_sent',
  'connection',
  'connection_requests',
  'proxy_add_x_forwarded_for',
  'ssl_protocol',
  'ssl_cipher',
  'ssl_server_name',
  'ssl_client_verify',
  'ssl_client_s_dn',
  'ssl_client_i_dn',
  'upstream_status',
  'realip_remote_addr',
  'escaped_request_uri',
  // ingress-nginx's names of what served the request (render/ingress-vars.ts)
  'namespace',
  'ingress_name',
  'service_name',
  'service_port',
  'location_path',
]);
const FAMILIES = /^(http|sent_http|upstream_http|cookie|arg)_[A-Za-z0-9_]{1,64}$|^[1-9]$/;

/** Why a snippet may not read `$name`, or undefined; `own` are the variables the snippet sets itself. */
export function variableRefusal(name: string, own: ReadonlySet<string>): string | undefined {
  if (/^portico_/i.test(name)) return `$${name} is Portico's own (it picks the backend and the log line)`;
  if (own.has(name) || VARIABLES.has(name) || FAMILIES.test(name)) return undefined;
  return `$${name} is not on the list of variables a snippet may read (docs/adr/0012)`;
}

/** Why `set`/`map` may not write `$name`: Portico's variables and the readable ones are not a snippet's to change. */
export function assignmentRefusal(name: string): string | undefined {
  if (/^portico_/i.test(name)) return `$${name} is Portico's own (it picks the backend and the log line)`;
  return VARIABLES.has(name) || FAMILIES.test(name) ? `$${name} is nginx's or Portico's; a snippet sets only variables of its own` : undefined;
}
