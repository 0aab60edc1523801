// The TLS annotations of one Ingress, read directly with the configured prefix (to move into the annotation table).
import { regexSafety } from './regex-safety.js';
import type { VerifyClient } from './tls-types.js';

/** What the TLS annotations of one Ingress ask for; `problems` say which values were ignored and why. */
export interface TlsAnnotations {
  readonly sslRedirect: boolean | undefined;
  readonly forceSslRedirect: boolean | undefined;
  readonly authTls: AuthTlsAnnotations | undefined;
  readonly problems: readonly { readonly field: string; readonly reason: string }[];
}

export interface AuthTlsAnnotations {
  /** `name` or `namespace/name` as written. */
  readonly secret: string;
  readonly verify: VerifyClient;
  readonly depth: number;
  readonly errorPage: string | undefined;
  readonly passCertificate: boolean;
  /** auth-tls-match-cn: a regex the client certificate's subject DN must match, else 403. */
  readonly matchCn?: string;
}

const VERIFY: readonly VerifyClient[] = ['on', 'off', 'optional', 'optional_no_ca'];
/** Go's strconv.ParseBool, which ingress-nginx uses for boolean annotations. */
const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);
/** An absolute http(s) URL without spaces, quotes, `$`, braces or `;` (it is rendered into `error_page`). */
const ERROR_PAGE = /^https?:\/\/[A-Za-z0-9._~:/?#@!&'()*+,=%[\]-]{1,2000}$/;

/**
 * Why an auth-tls-match-cn value is refused, else undefined. ingress-nginx asks for a regex naming `CN=`, matched
 * against nginx's $ssl_client_s_dn (RFC 2253, `CN=client,O=Org`). Printable ASCII without spaces or quotes, a
 * regex JavaScript compiles, and none of the shapes that backtrack exponentially: the subject is the client's.
 */
export function matchCnRefusal(raw: string): string | undefined {
  const show = JSON.stringify(raw.slice(0, 80));
  if (!/^[\x21-\x7e]{1,256}$/.test(raw) || /["'`]/.test(raw)) return `${show} is not a pattern (printable ASCII without spaces or quotes, 1 to 256 characters)`;
  if (!raw.includes('CN=')) return `${show} does not name CN= (a regex matched against the certificate's subject, e.g. CN=client or CN=(a|b))`;
  try {
    new RegExp(raw);
  } catch {
    return `${show} is not a regular expression`;
  }
  const slow = regexSafety(raw);
  return slow ? `${show}: ${slow}` : undefined;
}

/** Reads ssl-redirect, force-ssl-redirect and auth-tls-* under `prefix`; invalid values fall back to the default. */
export function readTlsAnnotations(annotations: Readonly<Record<string, string>> | undefined, prefix: string): TlsAnnotations {
  const problems: { field: string; reason: string }[] = [];
  const key = (name: string): string => `${prefix}/${name}`;
  const field = (name: string): string => `metadata.annotations[${key(name)}]`;
  const raw = (name: string): string | undefined => annotations?.[key(name)];
  const bool = (name: string): boolean | undefined => {
    const v = raw(name);
    if (v === undefined) return undefined;
    if (TRUE.has(v.trim())) return true;
    if (FALSE.has(v.trim())) return false;
    problems.push({ field: field(name), reason: `${JSON.stringify(v.slice(0, 40))} is not a boolean; the default is used` });
    return undefined;
  };
  const sslRedirect = bool('ssl-redirect');
  const forceSslRedirect = bool('force-ssl-redirect');
  const secret = raw('auth-tls-secret')?.trim();
  if (!secret) return { sslRedirect, forceSslRedirect, authTls: undefined, problems };

  const verifyRaw = raw('auth-tls-verify-client')?.trim() ?? 'on';
  const verify = VERIFY.find((v) => v === verifyRaw);
  if (!verify) problems.push({ field: field('auth-tls-verify-client'), reason: `${JSON.stringify(verifyRaw.slice(0, 40))} is not one of ${VERIFY.join(', ')}; "on" is used` });
  const depthRaw = raw('auth-tls-verify-depth')?.trim() ?? '1';
  const depthOk = /^[1-9][0-9]{0,2}$/.test(depthRaw);
  if (!depthOk) problems.push({ field: field('auth-tls-verify-depth'), reason: `${JSON.stringify(depthRaw.slice(0, 40))} is not an integer 1-999; 1 is used` });
  const pageRaw = raw('auth-tls-error-page')?.trim();
  const pageOk = pageRaw === undefined || pageRaw === '' || ERROR_PAGE.test(pageRaw);
  if (!pageOk) problems.push({ field: field('auth-tls-error-page'), reason: 'not an absolute http(s) URL without spaces, quotes, $ or ;; ignored' });
  const pass = bool('auth-tls-pass-certificate-to-upstream') ?? false;
  const cnRaw = raw('auth-tls-match-cn')?.trim();
  const cnBad = cnRaw ? matchCnRefusal(cnRaw) : undefined;
  if (cnBad) problems.push({ field: field('auth-tls-match-cn'), reason: `${cnBad}; no subject matches` });
  return {
    sslRedirect,
    forceSslRedirect,
    authTls: {
      secret,
      verify: verify ?? 'on',
      depth: depthOk ? Number(depthRaw) : 1,
      errorPage: pageOk && pageRaw ? pageRaw : undefined,
      passCertificate: pass,
      // A refused value matches nothing (the table refused it first): never a fallback that accepts any subject.
      ...(cnBad ? { matchCn: '(?!)' } : cnRaw ? { matchCn: cnRaw } : {}),
    },
    problems,
  };
}
