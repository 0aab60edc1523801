// ingress-nginx annotations Portico reads without a setting: refused (what that costs the Ingress is refusal.ts's
// rule), documented no-ops, and names removed upstream (a Warning names the replacement).
import { REMOVED_ANNOTATIONS } from './ingress-nginx-lists.js';

export interface AnnotationWithoutSetting {
  readonly key: string;
  /** `refused`: an error (the Ingress keeps its last valid form or is not served); `no-op`: accepted, changes nothing. */
  readonly status: 'refused' | 'no-op';
  readonly why: string;
  /** For refusals: whether this value asks for what Portico cannot give (else the annotation is a no-op). */
  readonly when?: (raw: string) => boolean;
  /** For no-ops: why a value is refused anyway (ingress-nginx's own validation), else undefined. */
  readonly check?: (raw: string) => string | undefined;
}

const truthy = (raw: string): boolean => ['1', 't', 'T', 'true', 'TRUE', 'True'].includes(raw.trim());
const NO_WAF = "ModSecurity is not in Debian's nginx packages that Portico runs";
const row = (key: string, status: AnnotationWithoutSetting['status'], why: string, when?: (raw: string) => boolean): AnnotationWithoutSetting => ({ key, status, why, ...(when ? { when } : {}) });
/** An integer as Go's strconv.Atoi reads it (ingress-nginx's validator for these), of at most 10 digits. */
const integer = (raw: string): string | undefined => (/^[+-]?\d{1,10}$/.test(raw.trim()) ? undefined : `${JSON.stringify(raw.slice(0, 40))} is not an integer`);
const boolean = (raw: string): string | undefined =>
  /^(1|t|T|true|TRUE|True|0|f|F|false|FALSE|False)$/.test(raw.trim()) ? undefined : `${JSON.stringify(raw.slice(0, 40))} is not a boolean (true or false)`;
/**
 * Why auth-keepalive cannot keep connections open (measured: an upstream block with `keepalive 4` for the auth host,
 * 5 requests, 5 connections). Portico asks auth-url through auth_request, whose subrequest is header-only: nginx
 * finalizes it without reading the response body, and so never returns the connection to the pool. ingress-nginx
 * swaps auth_request for a Lua subrequest to keep connections, which its own docs say does not work with HTTP/2, and
 * Portico's HTTPS listener serves HTTP/2.
 */
const NO_AUTH_KEEPALIVE =
  "accepted and validated as ingress-nginx does, but each auth-url request opens its own connection: nginx's auth_request subrequest is header-only, and nginx closes such an upstream connection instead of pooling it (ingress-nginx swaps in a Lua subrequest, which does not work under HTTP/2, which Portico's HTTPS listener serves); answers are the same, only slower under load";
const noop = (key: string, why: string, check: (raw: string) => string | undefined): AnnotationWithoutSetting => ({ key, status: 'no-op', why, check });

export const COMPAT_ANNOTATIONS: readonly AnnotationWithoutSetting[] = [
  row('enable-modsecurity', 'refused', NO_WAF, truthy),
  row('enable-owasp-core-rules', 'refused', NO_WAF, truthy),
  row('modsecurity-snippet', 'refused', NO_WAF),
  row('modsecurity-transaction-id', 'refused', NO_WAF),
  row(
    'ssl-passthrough',
    'no-op',
    'read by the stream section (model/stream.ts): with --enable-ssl-passthrough, TLS connections whose SNI names a rule host of the Ingress go unterminated to the backend of its first path; without the flag the annotation is ignored with a Warning',
  ),
  row('session-cookie-domain', 'refused', "the affinity cookie's Domain attribute is not implemented: its clients would lose affinity across hosts"),
  row('session-cookie-change-on-failure', 'refused', 'not implemented: the affinity cookie keeps its endpoint until the endpoint leaves', truthy),
  row('session-cookie-conditional-samesite-none', 'refused', 'not implemented: SameSite=None is sent to every browser', truthy),
  row('session-cookie-partitioned', 'refused', 'the Partitioned cookie attribute is not implemented', truthy),
  noop('auth-keepalive', NO_AUTH_KEEPALIVE, integer),
  noop('auth-keepalive-requests', 'validated (an integer; 0 or less turns auth-keepalive off in ingress-nginx); only read with auth-keepalive, a no-op here', integer),
  noop('auth-keepalive-timeout', 'validated (an integer of seconds; 0 or less turns auth-keepalive off in ingress-nginx); only read with auth-keepalive, a no-op here', integer),
  noop(
    'auth-keepalive-share-vars',
    "validated (a boolean); Portico's auth_request subrequest shares the request's variables whatever this says, so X-Request-ID is the same for the backend and the auth service",
    boolean,
  ),
  row('http2-push-preload', 'no-op', 'browsers dropped HTTP/2 server push (Chrome 106, Firefox 132); nginx answers as without it'),
];

export const COMPAT_ANNOTATION_BY_KEY: ReadonlyMap<string, AnnotationWithoutSetting> = new Map(COMPAT_ANNOTATIONS.map((a) => [a.key, a]));

/**
 * Removed names that asked for a protection: refused (they fail closed, refusal.ts). secure-backends is not one:
 * ingress-nginx ignores it since 0.21 (backend-protocol replaced it), so it gets the Warning every removed name gets.
 */
const PROTECTIVE_REMOVED = new Set(['secure-verify-ca-secret', 'lua-resty-waf', 'lua-resty-waf-extra-rules']);

/** What Portico answers for a name with the prefix that no table row implements: an error, a warning, or nothing. */
export function compatVerdict(name: string, raw: string): { error?: string; warning?: string } {
  const row1 = COMPAT_ANNOTATION_BY_KEY.get(name);
  const bad = row1?.check?.(raw);
  if (bad !== undefined) return { error: bad };
  if (row1) return row1.status === 'refused' && (row1.when?.(raw) ?? true) ? { error: row1.why } : {};
  const replacement = REMOVED_ANNOTATIONS[name];
  if (replacement !== undefined) {
    const why = `removed from ingress-nginx in an earlier release; use ${replacement}`;
    return PROTECTIVE_REMOVED.has(name) ? { error: why } : { warning: `${why}; ignored` };
  }
  return { warning: 'not an annotation Portico or ingress-nginx knows (a typo?); ignored' };
}
