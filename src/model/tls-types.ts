// The TLS part of the model: certificates per host, client-certificate auth per server, redirect and HSTS settings.
import { sha256 } from '../hash.js';
import type { ObjectRef } from './types.js';

const REDACTED = '[redacted]';

/** Set only inside contentJson(): a Sensitive then serializes as the digest of its value. */
let digesting = false;

/**
 * Key material (a PEM chain plus its private key). It never serializes: JSON, util.inspect, template strings and
 * logs all see `[redacted]`; only `reveal()` gives the text, and only the Lua payload calls it.
 */
export class Sensitive {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return digesting ? `sensitive:${sha256(this.#value)}` : REDACTED;
  }

  toString(): string {
    return REDACTED;
  }

  [Symbol.for('nodejs.util.inspect.custom')](): string {
    return REDACTED;
  }
}

/**
 * JSON of `value` in which each Sensitive is the sha256 of its value, never the value: a content key that changes
 * when a secret does (src/worker/model-wire.ts), for comparing only; not for showing.
 */
export function contentJson(value: unknown): string {
  digesting = true;
  try {
    return JSON.stringify(value);
  } finally {
    digesting = false;
  }
}

/** What may be shown about a certificate: never the key. */
export interface CertificateInfo {
  readonly subject: string;
  readonly issuer: string;
  /** ISO 8601. */
  readonly notBefore: string;
  readonly notAfter: string;
  /** SHA-256 of the DER, colon-separated upper-case hex (as openssl and node:crypto print it). */
  readonly fingerprint: string;
  readonly dnsNames: readonly string[];
}

/** A usable `kubernetes.io/tls` Secret: its certificate chain and key, checked to belong together. */
export interface Certificate extends CertificateInfo {
  /** `namespace/name` of the Secret. */
  readonly id: string;
  readonly secret: ObjectRef;
  readonly pem: Sensitive;
}

/** Which certificate serves one TLS host (an exact name or `*.suffix`). */
export interface HostCertificate {
  readonly host: string;
  /** The oldest Ingress listing the host in spec.tls. */
  readonly ingress: ObjectRef;
  /** Certificate id, or undefined when the host is served with the default certificate. */
  readonly certificate: string | undefined;
}

export type VerifyClient = 'on' | 'off' | 'optional' | 'optional_no_ca';

/** What the auth-tls-* annotations of one Ingress asked for, as the annotation table read them (annotations/table-tls.ts). */
export interface AuthTlsSettings {
  /** `name` or `namespace/name` as written. */
  readonly secret: string;
  readonly verify: VerifyClient;
  readonly depth: number;
  readonly errorPage: string | undefined;
  readonly passCertificate: boolean;
  /** auth-tls-match-cn: a regex the client certificate's subject DN must match, else 403. */
  readonly matchCn?: string;
}

/** Client-certificate authentication of one server (stock nginx sets it per server, from files: a reload). */
export interface ClientAuth {
  readonly ingress: ObjectRef;
  readonly secret: ObjectRef;
  /** PEM of the CA bundle (`ca.crt`) and the optional CRL (`ca.crl`): public material. */
  readonly caPem: string;
  readonly crlPem: string | undefined;
  /** sha256 of the PEM: names the file written in the work directory. */
  readonly caDigest: string;
  readonly crlDigest: string | undefined;
  readonly verify: VerifyClient;
  readonly depth: number;
  readonly errorPage: string | undefined;
  readonly passCertificate: boolean;
  /** auth-tls-match-cn: a regex (checked by model/regex-safety.ts) $ssl_client_s_dn must match, else 403. */
  readonly matchCn?: string | undefined;
  /** A Gateway's frontend validation (model/gateway/client-cert.ts): refused clients are closed on, not answered 400; `Refused`: no usable CA, every HTTPS request is (render/client-cert.ts). */
  readonly gatewayMode?: 'AllowValidOnly' | 'AllowInsecureFallback' | 'Refused';
}

/** TLS decisions about one model server. */
export interface TlsServer {
  readonly host: string;
  /** The host is listed in spec.tls of some Ingress: it redirects HTTP (ssl-redirect) and sends HSTS. */
  readonly tls: boolean;
  readonly clientAuth: ClientAuth | undefined;
  /** The host's TLS is a Gateway HTTPS listener's: Gateway API has no ssl-redirect (render/tls.ts tlsLocationPolicy). */
  readonly gateway?: true;
}

/** Per-Ingress settings for the locations that Ingress owns. */
export interface IngressTls {
  readonly sslRedirect: boolean;
  readonly forceSslRedirect: boolean;
  /** Set when the Ingress asked for client-certificate auth that cannot be applied: its paths answer 503. */
  readonly denied: string | undefined;
}

/** The statuses ingress-nginx allows for its redirects (`http-redirect-code`). */
export const REDIRECT_CODES = [301, 302, 307, 308] as const;
export type RedirectCode = (typeof REDIRECT_CODES)[number];

/** Global TLS settings, from the ConfigMap (`ssl-protocols`, `ssl-ciphers`, `use-http2`, `ssl-redirect`, `http-redirect-code`, `hsts*`). */
export interface TlsSettings {
  readonly protocols: string;
  readonly ciphers: string;
  readonly http2: boolean;
  readonly sslRedirect: boolean;
  /** Status of the HTTP to HTTPS redirect (ConfigMap `http-redirect-code`). */
  readonly redirectCode: RedirectCode;
  readonly hsts: boolean;
  readonly hstsMaxAge: number;
  readonly hstsIncludeSubdomains: boolean;
  readonly hstsPreload: boolean;
  /** ConfigMap no-tls-redirect-locations: Ingress paths starting with one of these are never redirected (ACME HTTP-01); absent: the default. */
  readonly noRedirectLocations?: readonly string[];
  /** ConfigMap ssl-session-* and ssl-buffer-size; absent: DEFAULT_TLS_SESSION. */
  readonly session?: TlsSession;
  /** ConfigMap ssl-reject-handshake: the catch-all server refuses handshakes for unknown names instead of the default certificate. */
  readonly rejectHandshake?: boolean;
  /** ConfigMap ssl-dh-param: `namespace/name` of a Secret with `dhparam.pem`. */
  readonly dhParam?: string;
}

/** TLS session resumption and record size (ssl_session_cache, ssl_session_timeout, ssl_session_tickets, ssl_buffer_size). */
export interface TlsSession {
  readonly cache: boolean;
  /** nginx size of the shared cache, e.g. `10m`. */
  readonly cacheSize: string;
  /** nginx time, e.g. `10m`. */
  readonly timeout: string;
  readonly tickets: boolean;
  readonly bufferSize: string;
  /** ssl-session-ticket-key: 48 or 80 bytes (base64), shared by every replica so tickets resume anywhere; its file is named by digest. */
  readonly ticketKey?: { readonly digest: string; readonly key: Sensitive };
}

/** ingress-nginx's defaults: a shared 10m cache kept 10 minutes, no tickets, 4k records. */
export const DEFAULT_TLS_SESSION: TlsSession = Object.freeze({ cache: true, cacheSize: '10m', timeout: '10m', tickets: false, bufferSize: '4k' });

export interface TlsModel {
  readonly settings: TlsSettings;
  /** Usable certificates, sorted by id. */
  readonly certificates: readonly Certificate[];
  /** TLS hosts, sorted. */
  readonly hosts: readonly HostCertificate[];
  /** Id of the `--default-ssl-certificate`, or undefined: the self-signed certificate generated at start. */
  readonly defaultCertificate: string | undefined;
  /** One entry per model server host that has TLS or client auth, sorted. */
  readonly servers: readonly TlsServer[];
  /** `namespace/name` of an Ingress → its settings; Ingresses with every default are left out. */
  readonly ingresses: Readonly<Record<string, IngressTls>>;
  /**
   * An HTTPS listener without hostname (model/gateway/tls.ts gatewayDefaultTls): its certificate answers SNI names
   * that have no certificate of their own, except `plain`, the names another namespace owns (docs/security.md 2a),
   * which keep the default certificate.
   */
  readonly gatewayDefault?: { readonly gateway: ObjectRef; readonly certificate: string; readonly plain: readonly string[] };
  /** ssl-dh-param, read and checked (model/tls-dhparam.ts): the PEM nginx reads for DHE suites, its file named by digest. */
  readonly dhParam?: { readonly pem: string; readonly digest: string };
}

/** ingress-nginx's defaults (`ssl-protocols`, `ssl-ciphers`, `use-http2`, `ssl-redirect`, `hsts*`). */
export const DEFAULT_TLS_SETTINGS: TlsSettings = Object.freeze({
  protocols: 'TLSv1.2 TLSv1.3',
  ciphers:
    'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:' +
    'ECDHE-RSA-AES256-GCM-SHA384:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305:' +
    'DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384',
  http2: true,
  sslRedirect: true,
  redirectCode: 308,
  hsts: true,
  hstsMaxAge: 31536000,
  hstsIncludeSubdomains: true,
  hstsPreload: false,
});

/** ingress-nginx's default no-tls-redirect-locations. */
export const DEFAULT_NO_REDIRECT_LOCATIONS: readonly string[] = Object.freeze(['/.well-known/acme-challenge']);

/** The parts of the configuration TLS translation depends on. */
export interface TlsOptions {
  readonly annotationsPrefix: string;
  readonly defaultCertificate: { readonly namespace: string; readonly name: string } | undefined;
  readonly settings: TlsSettings;
}

export const DEFAULT_TLS_OPTIONS: TlsOptions = Object.freeze({ annotationsPrefix: 'nginx.ingress.kubernetes.io', defaultCertificate: undefined, settings: DEFAULT_TLS_SETTINGS });
