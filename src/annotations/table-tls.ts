// The client-certificate rows of the annotation table (auth-tls-*): the one reader of them; model/tls.ts takes the result.
import type { RiskLevel } from '../model/settings.js';
import type { AuthTlsSettings, VerifyClient } from '../model/tls-types.js';
import { regexSafety } from '../model/regex-safety.js';
import type { AnnotationSpec, Draft } from './table.js';
import * as v from './values.js';
import { specRow } from './row.js';

/** What the auth-tls rows write while one Ingress's annotations are read; combineTls turns it into AuthTlsSettings. */
export interface TlsDraft {
  secret?: string;
  verify?: VerifyClient;
  depth?: number;
  errorPage?: string;
  pass?: boolean;
  matchCn?: string;
}

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

/** `name` or `namespace/name` of a Secret (the namespace rule is checked when the model reads it). */
const SECRET_REF = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?\/)?[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const secretRef: v.Parser<string> = (raw) => (SECRET_REF.test(raw) ? v.ok(raw) : v.bad(`${v.show(raw)} is not a Secret name or namespace/name`));
const matchCn: v.Parser<string> = (raw) => {
  const why = matchCnRefusal(raw);
  return why ? v.bad(why) : v.ok(raw);
};

interface Meta {
  type: string;
  default: string;
  risk: RiskLevel;
  doc: string;
}

function row<T>(key: string, meta: Meta, parse: v.Parser<T>, set: (d: TlsDraft, value: T) => void): AnnotationSpec {
  return specRow(key, { ...meta, scope: 'server' }, parse, (d, value) => {
    set(d.tls, value);
  });
}

/** The rows spliced into ANNOTATIONS: validated here (fail closed); model/tls.ts turns them into the server's client-certificate check. */
export const TLS_ANNOTATIONS: readonly AnnotationSpec[] = [
  row(
    'auth-tls-secret',
    { type: 'secret', default: '', risk: 'Medium', doc: 'Secret (`name` or `namespace/name`) with `ca.crt` (and optional `ca.crl`) for client certificates.' },
    secretRef,
    (d, x) => {
      d.secret = x;
    },
  ),
  row(
    'auth-tls-verify-client',
    { type: 'enum', default: 'on', risk: 'Medium', doc: 'Client certificate check: on, off, optional or optional_no_ca.' },
    v.oneOf(['on', 'off', 'optional', 'optional_no_ca'] as const),
    (d, x) => {
      d.verify = x;
    },
  ),
  row('auth-tls-verify-depth', { type: 'int', default: '1', risk: 'Low', doc: 'Depth of the client certificate chain check.' }, v.int(1, 999), (d, x) => {
    d.depth = x;
  }),
  row('auth-tls-error-page', { type: 'url', default: '', risk: 'High', doc: 'URL to redirect to when the client certificate check fails.' }, v.httpUrl, (d, x) => {
    d.errorPage = x;
  }),
  row(
    'auth-tls-match-cn',
    { type: 'regex', default: '', risk: 'High', doc: "Regex naming `CN=` that the client certificate's subject (`CN=client,O=Org`) must match, else 403; nested quantifiers are refused." },
    matchCn,
    (d, x) => {
      d.matchCn = x;
    },
  ),
  row(
    'auth-tls-pass-certificate-to-upstream',
    { type: 'bool', default: 'false', risk: 'Low', doc: 'Passes the client certificate to the backend in the `ssl-client-cert` header.' },
    v.bool,
    (d, x) => {
      d.pass = x;
    },
  ),
];

/** The Ingress's client-certificate settings: only with auth-tls-secret (the other keys alone ask for nothing, as in ingress-nginx). */
export function combineTls(d: Draft): AuthTlsSettings | undefined {
  const t = d.tls;
  if (t.secret === undefined) return undefined;
  return { secret: t.secret, verify: t.verify ?? 'on', depth: t.depth ?? 1, errorPage: t.errorPage, passCertificate: t.pass ?? false, ...(t.matchCn !== undefined ? { matchCn: t.matchCn } : {}) };
}
