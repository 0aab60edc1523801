// The impure side of TLS for the sync: the self-signed fallback, the certificates payload, CA files, expiry warnings.
import { sha256 } from '../hash.js';
import type { Logger } from '../log.js';
import type { Model } from '../model/types.js';
import { certificatesDebug, certificatesPayload } from '../render/tls.js';
import { makeSelfSigned, type Fallback } from './self-signed.js';
import { clientFiles, pruneClientFiles, writeClientFiles } from './files.js';

const DAY_MS = 86_400_000;
const EXPIRY_WARNING_DAYS = 14;

/** What the sync needs to know about the certificates of a model, and to push. */
export interface CertificatesState {
  /** JSON body for POST /configuration/certificates (holds keys: never logged, never kept in debug output). */
  readonly body: string;
  /** sha256 of the body: what the plan compares. */
  readonly digest: string;
  /** sha256 over the client CA and CRL files the configuration names. */
  readonly clientFilesDigest: string;
}

/** Per-process TLS state of the controller. */
export class TlsSync {
  private fallback: Fallback | undefined;
  private warned = new Set<string>();
  /** The certificates payload of the last TLS model asked for. */
  private payload: { readonly tls: Model['tls']; readonly body: string; readonly digest: string } | undefined;

  constructor(
    private readonly workDir: string,
    private readonly log: Logger,
  ) {}

  /** Makes the self-signed certificate once (before the first nginx -t, which needs the static fallback). */
  async prepare(): Promise<void> {
    if (this.fallback) return;
    this.fallback = await makeSelfSigned(this.workDir);
    this.log.info(
      { subject: this.fallback.info.subject, fingerprint: this.fallback.info.fingerprint, notAfter: this.fallback.info.notAfter },
      'generated a self-signed default certificate (give --default-ssl-certificate namespace/name to use your own)',
    );
  }

  state(model: Model): CertificatesState {
    if (!this.fallback) throw new Error('TlsSync.prepare() must run before state()');
    // The payload is the TLS model's alone: a sync whose build left it as it was (the build worker's wire keeps the
    // same object, worker/model-wire.ts) reuses its JSON and digest (several MiB to stringify and hash at 10,000).
    if (this.payload?.tls !== model.tls) {
      const body = JSON.stringify(certificatesPayload(model.tls, this.fallback.pem.reveal()));
      this.payload = { tls: model.tls, body, digest: sha256(body) };
    }
    const files = [...clientFiles(model).keys()].sort().join('\n');
    return { body: this.payload.body, digest: this.payload.digest, clientFilesDigest: sha256(files) };
  }

  /** CA and CRL files must exist before nginx -t reads the new configuration. */
  async beforeReload(model: Model): Promise<void> {
    const written = await writeClientFiles(this.workDir, model);
    if (written > 0) this.log.info({ files: written }, 'wrote CA and client-certificate files; applying them needs a reload');
  }

  async afterReload(model: Model): Promise<void> {
    await pruneClientFiles(this.workDir, model);
  }

  /** Logs a warning once per certificate (by fingerprint) that expires within 14 days or has expired. */
  warnExpiring(model: Model, now: number): void {
    const seen = new Set<string>();
    for (const c of model.tls.certificates) {
      const left = Date.parse(c.notAfter) - now;
      if (left > EXPIRY_WARNING_DAYS * DAY_MS) continue;
      seen.add(c.fingerprint);
      if (this.warned.has(c.fingerprint)) continue;
      const hosts = model.tls.hosts.filter((h) => h.certificate === c.id).map((h) => h.host);
      this.log.warn(
        { secret: c.id, subject: c.subject, notAfter: c.notAfter, hosts, daysLeft: Math.floor(left / DAY_MS) },
        left <= 0 ? `certificate of Secret ${c.id} has expired` : `certificate of Secret ${c.id} expires within ${EXPIRY_WARNING_DAYS} days`,
      );
    }
    this.warned = seen;
  }

  /** `/debug/certs` for a model (no keys). */
  debug(model: Model | undefined): string {
    if (!model || !this.fallback) return '{}';
    return `${JSON.stringify(certificatesDebug(model.tls, this.fallback.info), null, 2)}\n`;
  }
}
