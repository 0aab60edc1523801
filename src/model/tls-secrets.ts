// Reading certificate Secrets: a `tls.crt`/`tls.key` pair checked to belong together, or a `ca.crt` bundle.
import { sha256 } from '../hash.js';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import type { Secret } from './input.js';
import { Sensitive, type Certificate, type CertificateInfo } from './tls-types.js';
import type { ObjectRef } from './types.js';
import { byName } from './lookup.js';
import { refKey } from './keys.js';
import { pairVerdict, type PairRefusal, type PairVerdict } from './tls-verdicts.js';

export type Read<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly reason: string };

const PEM_CERT = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** One key of a Secret as text: `stringData` (manifests in local mode) over base64 `data` (the API). */
export function secretText(secret: Secret, key: string): string | undefined {
  const plain = secret.stringData?.[key];
  if (typeof plain === 'string') return plain;
  const data = secret.data?.[key];
  return typeof data === 'string' ? Buffer.from(data, 'base64').toString('utf8') : undefined;
}

/**
 * The parsed PEM blocks of `text` when it is nothing but PEM blocks (and whitespace), each labelled as `label`
 * allows and each parsed by `parse`; undefined otherwise: a trailing broken block would pass node's parse of the
 * first one and fail nginx's (ngx.ssl) of the whole.
 */
function onlyPemBlocks<T>(text: string, label: RegExp, parse: (block: string) => T): T[] | undefined {
  const blocks = text.match(/-----BEGIN ([A-Z0-9 ]+)-----[\s\S]*?-----END \1-----/g) ?? [];
  const parsed: T[] = [];
  let rest = text;
  for (const b of blocks) {
    if (!label.test(/^-----BEGIN ([A-Z0-9 ]+)-----/.exec(b)?.[1] ?? '')) return undefined;
    try {
      parsed.push(parse(b));
    } catch {
      return undefined;
    }
    rest = rest.replace(b, '');
  }
  return blocks.length > 0 && rest.trim() === '' ? parsed : undefined;
}

/** Finds a Secret in the snapshot by namespace and name. */
export function findSecret(secrets: readonly Secret[], ref: ObjectRef): Secret | undefined {
  return byName(secrets, ref.namespace, ref.name);
}

function oneLine(dn: string): string {
  return dn.split('\n').filter(Boolean).join(', ');
}

/** What may be shown about a parsed certificate. */
export function certificateInfo(x509: X509Certificate): CertificateInfo {
  const dnsNames = (x509.subjectAltName ?? '')
    .split(', ')
    .filter((s) => s.startsWith('DNS:'))
    .map((s) => s.slice(4));
  return {
    subject: oneLine(x509.subject),
    issuer: oneLine(x509.issuer),
    notBefore: new Date(x509.validFrom).toISOString(),
    notAfter: new Date(x509.validTo).toISOString(),
    fingerprint: x509.fingerprint256,
    dnsNames,
  };
}

/**
 * A TLS Secret as a certificate. Refused, with the reason: missing, no `tls.crt`/`tls.key`, not PEM, or a key that
 * does not belong to the certificate. Reasons never quote Secret data.
 */
export function readTlsSecret(secret: Secret | undefined, ref: ObjectRef): Read<Certificate> {
  if (!secret) return { ok: false, reason: `Secret ${ref.namespace}/${ref.name} not found` };
  // Parsing and matching a key costs about a millisecond: a Secret object (frozen, replaced when it changes) is read
  // once, not on every sync and not once per Ingress that names it.
  const key = refKey(ref.namespace, ref.name);
  const cached = readCache.get(secret)?.get(key);
  if (cached) return cached;
  const read = readTlsSecretOnce(secret, ref);
  readCache.set(secret, new Map([...(readCache.get(secret) ?? []), [key, read]]));
  return read;
}

const readCache = new WeakMap<Secret, ReadonlyMap<string, Read<Certificate>>>();

const REFUSALS: Readonly<Record<PairRefusal, string>> = {
  'crt-not-pem': 'tls.crt must hold only PEM CERTIFICATE blocks, each a valid certificate',
  'key-not-pem': 'tls.key must hold exactly one unencrypted PEM private key',
  'crt-unparsed': 'tls.crt is not a PEM certificate',
  'key-mismatch': 'tls.key is not the private key of tls.crt',
  'key-unparsed': 'tls.key is not an unencrypted PEM private key',
};

function readTlsSecretOnce(secret: Secret, ref: ObjectRef): Read<Certificate> {
  const id = refKey(ref.namespace, ref.name);
  const crt = secretText(secret, 'tls.crt');
  const key = secretText(secret, 'tls.key');
  if (!crt || !key) return { ok: false, reason: `Secret ${id} has no tls.crt and tls.key` };
  const verdict = pairVerdict(crt, key, () => judgePair(crt, key));
  if (!verdict.ok) return { ok: false, reason: `Secret ${id}: ${REFUSALS[verdict.refusal]}` };
  const pem = `${crt.trim()}\n${key.trim()}\n`;
  return { ok: true, value: { id, secret: { ...ref, kind: 'Secret' }, ...verdict.info, pem: new Sensitive(pem) } };
}

/** The checks on a pair, each PEM block parsed once: the first certificate of the chain is the one the key must match. */
function judgePair(crt: string, key: string): PairVerdict {
  const chain = onlyPemBlocks(crt, /^CERTIFICATE$/, (b) => new X509Certificate(b));
  if (chain === undefined) return { ok: false, refusal: 'crt-not-pem' };
  const keys = (key.match(/-----BEGIN /g)?.length ?? 0) === 1 ? onlyPemBlocks(key, /^(RSA |EC |)PRIVATE KEY$/, (b) => createPrivateKey(b)) : undefined;
  if (keys === undefined) return { ok: false, refusal: 'key-not-pem' };
  const [x509] = chain;
  const [privateKey] = keys;
  if (x509 === undefined) return { ok: false, refusal: 'crt-unparsed' };
  if (privateKey === undefined) return { ok: false, refusal: 'key-unparsed' };
  try {
    if (!x509.checkPrivateKey(privateKey)) return { ok: false, refusal: 'key-mismatch' };
  } catch {
    return { ok: false, refusal: 'key-unparsed' };
  }
  return { ok: true, info: certificateInfo(x509) };
}

/** True when a certificate serves `host`: SAN (or CN without SAN) for names, the exact `*.suffix` SAN for wildcards. */
export function covers(cert: Certificate, host: string): boolean {
  const cn = /(?:^|, )CN=([^,]+)/.exec(cert.subject)?.[1];
  const names = cert.dnsNames.length > 0 ? cert.dnsNames : cn ? [cn] : [];
  return names.some((n) => {
    const name = n.toLowerCase();
    if (host.startsWith('*.') || !name.startsWith('*.')) return name === host;
    const dot = host.indexOf('.');
    return dot > 0 && host.slice(dot) === name.slice(1);
  });
}

export interface CaBundle {
  readonly caPem: string;
  readonly crlPem: string | undefined;
  readonly caDigest: string;
  readonly crlDigest: string | undefined;
}

/** A Secret holding `ca.crt` (one or more PEM certificates) and optionally `ca.crl`, for client-certificate auth. */
export function readCaSecret(secret: Secret | undefined, ref: ObjectRef): Read<CaBundle> {
  const id = refKey(ref.namespace, ref.name);
  if (!secret) return { ok: false, reason: `Secret ${id} not found` };
  const ca = secretText(secret, 'ca.crt');
  if (!ca) return { ok: false, reason: `Secret ${id} has no ca.crt` };
  const blocks = ca.match(PEM_CERT) ?? [];
  try {
    if (blocks.length === 0) throw new Error('no certificate');
    for (const b of blocks) new X509Certificate(b);
  } catch {
    return { ok: false, reason: `Secret ${id}: ca.crt is not a bundle of PEM certificates` };
  }
  const caPem = `${blocks.join('\n')}\n`;
  const crl = secretText(secret, 'ca.crl');
  if (crl !== undefined && !/^-----BEGIN X509 CRL-----[\s\S]+-----END X509 CRL-----\s*$/.test(crl.trim())) {
    return { ok: false, reason: `Secret ${id}: ca.crl is not a PEM CRL` };
  }
  const crlPem = crl === undefined ? undefined : `${crl.trim()}\n`;
  return { ok: true, value: { caPem, crlPem, caDigest: sha256(caPem), crlDigest: crlPem ? sha256(crlPem) : undefined } };
}
