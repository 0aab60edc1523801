// The TLS annotations of one Ingress, read directly with the configured prefix (to move into the annotation table).
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
}

const VERIFY: readonly VerifyClient[] = ['on', 'off', 'optional', 'optional_no_ca'];
/** Go's strconv.ParseBool, which ingress-nginx uses for boolean annotations. */
const TRUE = new Set(['1', 't', 'T', 'true', 'TRUE', 'True']);
const FALSE = new Set(['0', 'f', 'F', 'false', 'FALSE', 'False']);
/** An absolute http(s) URL without spaces, quotes, `$`, braces or `;` (it is rendered into `error_page`). */
const ERROR_PAGE = /^https?:\/\/[A-Za-z0-9._~:/?#@!&'()*+,=%[\]-]{1,2000}$/;

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
  return {
    sslRedirect,
    forceSslRedirect,
    authTls: {
      secret,
      verify: verify ?? 'on',
      depth: depthOk ? Number(depthRaw) : 1,
      errorPage: pageOk && pageRaw ? pageRaw : undefined,
      passCertificate: pass,
    },
    problems,
  };
}
