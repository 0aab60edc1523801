// The traffic-policy rows of the annotation table (rate limits, CORS, canary, mirroring, logs) and their ConfigMap keys.
import type { GlobalSettings, RiskLevel } from '../model/settings.js';
import type { TrafficSettings } from '../model/settings-traffic.js';
import { regexSafety } from '../model/regex-safety.js';
import type { KeySpec } from './configmap.js';
import type { AnnotationSpec, Scope } from './table.js';
import * as v from './values.js';
import { specRow } from './row.js';

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
interface Meta {
  type: string;
  default: string;
  risk: RiskLevel;
  scope: Scope;
  doc: string;
}

function row<T>(key: string, meta: Meta, parse: v.Parser<T>, set: (t: Mutable<TrafficSettings>, value: T) => void): AnnotationSpec {
  return specRow(key, meta, parse, (draft, value) => {
    const t: Mutable<TrafficSettings> = { ...draft.location.traffic };
    set(t, value);
    draft.location.traffic = t;
  });
}

const csv = /\s*,\s*/;

/** An origin `scheme://host[:port]` (any lowercase scheme, as ingress-nginx: tauri://, app://), the host optionally `*.suffix` (the `*` stands for exactly one DNS label), lowercased. */
const ORIGIN = /^[a-z][a-z0-9+.-]{0,31}:\/\/(\*\.)?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*(:\d{1,5})?$/;
const origin: v.Parser<string> = (raw) => {
  const o = raw.toLowerCase();
  return ORIGIN.test(o) && o.length <= 253 ? v.ok(o) : v.bad(`${v.show(raw)} is not an origin (scheme://host[:port], the host may start with *.)`);
};
/**
 * A comma-separated list of origins, as ingress-nginx reads it: empty entries are skipped, a `*` among them allows every
 * origin, and a list with nothing in it is `*`. An entry that is not an origin refuses the Ingress (ingress-nginx
 * skipped it with a log line: docs/migration.md).
 */
const origins: v.Parser<string[]> = (raw) => {
  const entries = raw.split(',').map((e) => e.trim());
  if (entries.includes('*') || entries.every((e) => e === '')) return v.ok(['*']);
  // An origin named twice is one origin (nginx would refuse the duplicate key of the map they become).
  const r = nonEmpty(v.list(origin, csv, 64))(entries.filter((e) => e !== '').join(','));
  return r.ok ? v.ok([...new Set(r.value)]) : r;
};
const method: v.Parser<string> = (raw) => (/^[A-Za-z]{1,20}$/.test(raw) ? v.ok(raw.toUpperCase()) : v.bad(`${v.show(raw)} is not an HTTP method`));
const headerOrStar: v.Parser<string> = (raw) => (raw === '*' ? v.ok('*') : v.headerName(raw));
function nonEmpty<T>(p: v.Parser<T[]>): v.Parser<T[]> {
  return (raw) => {
    const r = p(raw);
    return r.ok && r.value.length === 0 ? v.bad('an empty list') : r;
  };
}

/** A cookie name: an RFC 6265 token. */
const cookieName: v.Parser<string> = (raw) => (/^[A-Za-z0-9!#%&'*+.^_`|~-]{1,64}$/.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a cookie name`));

/**
 * A header pattern for canary-by-header-pattern: printable ASCII, at most 256 characters, and a regular expression
 * JavaScript compiles (PCRE's syntax is a superset of the accepted subset; a leading `(?i)` is allowed). Lua checks
 * it again with ngx.re before it is used. Nested quantifiers are refused (model/regex-safety.ts): the header value is
 * the client's, so a pattern that backtracks exponentially lets any client spend a worker's time.
 */
export const headerPattern: v.Parser<string> = (raw) => {
  if (!/^[\x20-\x7e]{1,256}$/.test(raw)) return v.bad(`${v.show(raw)} is not a pattern (printable ASCII, 1 to 256 characters)`);
  const outside = v.pcreCommon(raw);
  if (outside) return v.bad(`${v.show(raw)}: ${outside}`);
  try {
    new RegExp(raw.replace(/^\(\?i\)/, ''));
  } catch {
    return v.bad(`${v.show(raw)} is not a valid regular expression`);
  }
  const unsafe = regexSafety(raw);
  return unsafe ? v.bad(`${v.show(raw)} is refused: ${unsafe}`) : v.ok(raw);
};

/** An http(s) URL, optionally followed by `$request_uri` (as in ingress-nginx's examples); no other variable. */
const mirrorTarget: v.Parser<string> = (raw) => {
  const base = raw.endsWith('$request_uri') ? raw.slice(0, -'$request_uri'.length) : raw;
  const url = v.httpUrl(base);
  return url.ok ? v.ok(raw) : v.bad(`${v.show(raw)} is not an http(s) URL (optionally ending in $request_uri)`);
};

/** `on` or `off` as ingress-nginx takes them, and the booleans Portico took before. */
const onOffOrBool: v.Parser<boolean> = (raw) => (raw === 'on' ? v.ok(true) : raw === 'off' ? v.ok(false) : v.bool(raw).ok ? v.bool(raw) : v.bad(`${v.show(raw)} is not on or off`));
const L = 'location' as const;
const U = 'upstream' as const;
const rate = v.int(0, 1_000_000);

/** The traffic rows, spliced into ANNOTATIONS. */
export const TRAFFIC_ANNOTATIONS: readonly AnnotationSpec[] = [
  row(
    'limit-rps',
    { type: 'int', default: '0', risk: 'Low', scope: L, doc: 'Requests per second from one client address to this Ingress (0: no limit); above it, limit-req-status-code.' },
    rate,
    (t, x) => {
      t.limit = { ...t.limit, rps: x };
    },
  ),
  row('limit-rpm', { type: 'int', default: '0', risk: 'Low', scope: L, doc: 'Requests per minute from one client address to this Ingress (0: no limit).' }, rate, (t, x) => {
    t.limit = { ...t.limit, rpm: x };
  }),
  row(
    'limit-connections',
    { type: 'int', default: '0', risk: 'Low', scope: L, doc: 'Concurrent connections from one client address (0: no limit, at most 65535); above it, limit-conn-status-code.' },
    v.int(0, 65535),
    (t, x) => {
      t.limit = { ...t.limit, connections: x };
    },
  ),
  row('limit-burst-multiplier', { type: 'int', default: '5', risk: 'Low', scope: L, doc: 'Burst of limit-rps and limit-rpm: the rate times this.' }, v.int(1, 1000), (t, x) => {
    t.limit = { ...t.limit, burstMultiplier: x };
  }),
  row('limit-whitelist', { type: 'cidr list', default: '', risk: 'Low', scope: L, doc: 'Client CIDRs (comma-separated) never rate-limited.' }, v.list(v.cidr, csv, 256), (t, x) => {
    t.limit = { ...t.limit, whitelist: x };
  }),
  row('limit-allowlist', { type: 'cidr list', default: '', risk: 'Low', scope: L, doc: 'Alias of limit-whitelist.' }, v.list(v.cidr, csv, 256), (t, x) => {
    t.limit = { ...t.limit, whitelist: x };
  }),
  row('limit-rate', { type: 'int', default: '0', risk: 'Low', scope: L, doc: 'Response rate per connection, KiB/s (0: no limit).' }, rate, (t, x) => {
    t.limit = { ...t.limit, rate: x };
  }),
  row('limit-rate-after', { type: 'int', default: '0', risk: 'Low', scope: L, doc: 'KiB sent at full speed before limit-rate applies.' }, rate, (t, x) => {
    t.limit = { ...t.limit, rateAfter: x };
  }),
  row(
    'enable-cors',
    { type: 'bool', default: 'false', risk: 'Low', scope: L, doc: 'Answers CORS preflights (204, without the backend) and adds CORS headers for allowed origins.' },
    v.bool,
    (t, x) => {
      t.cors = { ...t.cors, enabled: x };
    },
  ),
  row(
    'cors-allow-origin',
    {
      type: 'origin list',
      default: '*',
      risk: 'Medium',
      scope: L,
      doc: '`*`, or origins (comma-separated; in `https://*.example.com` the `*` is exactly one DNS label); only a matching Origin is echoed.',
    },
    origins,
    (t, x) => {
      t.cors = { ...t.cors, allowOrigin: x };
    },
  ),
  row(
    'cors-allow-methods',
    { type: 'list', default: 'GET, PUT, POST, DELETE, PATCH, OPTIONS', risk: 'Low', scope: L, doc: 'Access-Control-Allow-Methods of preflights.' },
    nonEmpty(v.list(method, csv, 32)),
    (t, x) => {
      t.cors = { ...t.cors, allowMethods: x };
    },
  ),
  row(
    'cors-allow-headers',
    {
      type: 'list',
      default: 'DNT,Keep-Alive,User-Agent,X-Requested-With,If-Modified-Since,Cache-Control,Content-Type,Range,Authorization',
      risk: 'Low',
      scope: L,
      doc: 'Access-Control-Allow-Headers of preflights.',
    },
    nonEmpty(v.list(headerOrStar, csv, 64)),
    (t, x) => {
      t.cors = { ...t.cors, allowHeaders: x };
    },
  ),
  row('cors-allow-credentials', { type: 'bool', default: 'true', risk: 'Low', scope: L, doc: 'Sends Access-Control-Allow-Credentials: true.' }, v.bool, (t, x) => {
    t.cors = { ...t.cors, allowCredentials: x };
  }),
  row('cors-expose-headers', { type: 'list', default: '', risk: 'Low', scope: L, doc: 'Access-Control-Expose-Headers of answers.' }, v.list(headerOrStar, csv, 64), (t, x) => {
    t.cors = { ...t.cors, exposeHeaders: x };
  }),
  row('cors-max-age', { type: 'int', default: '1728000', risk: 'Low', scope: L, doc: 'Seconds a browser may cache a preflight answer.' }, v.int(0, 2 ** 31 - 1), (t, x) => {
    t.cors = { ...t.cors, maxAge: x };
  }),
  row(
    'canary',
    {
      type: 'bool',
      default: 'false',
      risk: 'Low',
      scope: U,
      doc: "Makes this Ingress the canary of the Ingress with the same host and path: its backend gets a share of that path's requests (switched in Lua, no reload).",
    },
    v.bool,
    (t, x) => {
      t.canary = { ...t.canary, enabled: x };
    },
  ),
  row('canary-by-header', { type: 'header', default: '', risk: 'Low', scope: U, doc: 'Header routing to the canary: `always` → canary, `never` → main, else the next rule.' }, v.headerName, (t, x) => {
    t.canary = { ...t.canary, header: x };
  }),
  row('canary-by-header-value', { type: 'string', default: '', risk: 'Low', scope: U, doc: 'Header value that routes to the canary (instead of `always`).' }, v.headerValue, (t, x) => {
    t.canary = { ...t.canary, headerValue: x };
  }),
  row(
    'canary-by-header-pattern',
    { type: 'regex', default: '', risk: 'Medium', scope: U, doc: 'PCRE the header value must match to route to the canary (ignored when canary-by-header-value is set).' },
    headerPattern,
    (t, x) => {
      t.canary = { ...t.canary, headerPattern: x };
    },
  ),
  row('canary-by-cookie', { type: 'token', default: '', risk: 'Low', scope: U, doc: 'Cookie routing to the canary: `always` → canary, `never` → main, else the weight.' }, cookieName, (t, x) => {
    t.canary = { ...t.canary, cookie: x };
  }),
  row('canary-weight', { type: 'int', default: '0', risk: 'Low', scope: U, doc: 'Share of the remaining requests sent to the canary, out of canary-weight-total.' }, v.int(0, 1_000_000), (t, x) => {
    t.canary = { ...t.canary, weight: x };
  }),
  row('canary-weight-total', { type: 'int', default: '100', risk: 'Low', scope: U, doc: 'Total canary-weight is a share of.' }, v.int(1, 1_000_000), (t, x) => {
    t.canary = { ...t.canary, weightTotal: x };
  }),
  row(
    'mirror-target',
    { type: 'url', default: '', risk: 'High', scope: L, doc: 'Copies each request to this URL (optionally ending in `$request_uri`); its answers are ignored.' },
    mirrorTarget,
    (t, x) => {
      t.mirror = { ...t.mirror, target: x };
    },
  ),
  row(
    'mirror-request-body',
    { type: 'on|off', default: 'on', risk: 'Low', scope: L, doc: 'Sends the request body with mirrored requests: `on` or `off` (`true` and `false` also read).' },
    onOffOrBool,
    (t, x) => {
      t.mirror = { ...t.mirror, requestBody: x };
    },
  ),
  row('mirror-host', { type: 'host', default: '', risk: 'High', scope: L, doc: "Host header of mirrored requests (default: mirror-target's host)." }, v.hostPort, (t, x) => {
    t.mirror = { ...t.mirror, host: x };
  }),
  row('enable-access-log', { type: 'bool', default: 'true', risk: 'Low', scope: L, doc: "`false` turns the access log off in this Ingress's locations." }, v.bool, (t, x) => {
    t.accessLog = x;
  }),
  row('enable-rewrite-log', { type: 'bool', default: 'false', risk: 'Low', scope: L, doc: "Logs rewrites of this Ingress's locations to the error log (notice)." }, v.bool, (t, x) => {
    t.rewriteLog = x;
  }),
];

/** A Referer string or `~regex`: no quotes, `$`, `;`, braces or backslashes. */
const referer: v.Parser<string> = (raw) =>
  /^~?\*?[\x21-\x7e][\x20-\x7e]{0,255}$/.test(raw) && !(raw.startsWith('~') ? /["$;{}'`]/ : /["\\$;{}'`]/).test(raw) && v.tildeRegexCompiles(raw)
    ? v.ok(raw)
    : v.bad(`${v.show(raw)} is not a referer string or ~regex (no quotes, '$', ';' or braces; backslashes only in a ~regex that compiles)`);

function key<F extends 'limitReqStatusCode' | 'limitConnStatusCode' | 'blockReferers'>(name: string, field: F, def: string, doc: string, parse: v.Parser<GlobalSettings[F]>): KeySpec {
  return {
    key: name,
    field,
    default: def,
    doc,
    apply: (raw, g) => {
      const r = parse(raw);
      if (!r.ok) return r.reason;
      (g as Mutable<Pick<GlobalSettings, F>>)[field] = r.value;
      return undefined;
    },
  };
}

/** The traffic keys of the global ConfigMap, spliced into CONFIGMAP_KEYS. */
export const TRAFFIC_CONFIGMAP_KEYS: readonly KeySpec[] = [
  key('limit-req-status-code', 'limitReqStatusCode', '503', 'Status answered above limit-rps / limit-rpm.', v.int(400, 599)),
  key('limit-conn-status-code', 'limitConnStatusCode', '503', 'Status answered above limit-connections.', v.int(400, 599)),
  key('block-referers', 'blockReferers', '', 'Referers (comma-separated; `~regex` allowed) refused with 403.', v.list(referer, csv, 256)),
];
