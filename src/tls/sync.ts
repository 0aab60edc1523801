// The impure side of TLS for the sync: the self-signed fallback, the certificates payload, CA files, expiry warnings.
import { sha256 } from '../hash.js';
import type { Logger } from '../log.js';
import type { Model } from '../model/types.js';
import { certificatesDebug, certificatesPayload } from '../render/tls.js';
import { makeSelfSigned, type Fallback } from './self-signed.js';
import { CertificateEntriesMaker, type CertificateEntries } from '../render/cert-entries.js';
import { clientFiles, pruneClientFiles, writeClientFiles } from './files.js';

const DAY_MS = 86_400_000;
const EXPIRY_WARNING_DAYS = 14;

/** What the sync needs to know about the certificates of a model, and to push. */
export interface CertificatesState {
  /** The payload by host (render/cert-entries.ts), for a delta push; holds keys: never logged, never in debug output. */
  readonly entries: ReadonlyMap<string, string>;
  /** JSON body for POST /configuration/certificates, made when a whole push needs it (holds keys, as above). */
  readonly whole: () => string;
  /** sha256 over the entries: what the plan compares. */
  readonly digest: string;
  /** sha256 over the client CA and CRL files the configuration names. */
  readonly clientFilesDigest: string;
}

/** Per-process TLS state of the controller. */
export class TlsSync {
  private fallback: Fallback | undefined;
  private making: Promise<void> | undefined;
  private warned = new Set<string>();
  /** The certificates payload of the last TLS model asked for, by entry. */
  private payload: { readonly tls: Model['tls']; readonly entries: CertificateEntries } | undefined;
  private readonly entriesMaker = new CertificateEntriesMaker();

  constructor(
    private readonly workDir: string,
    private readonly log: Logger,
  ) {}

  /**
   * Makes the self-signed certificate once (before the first nginx -t, which needs the static fallback). The controller
   * asks for it as it starts, so that `openssl` runs beside the first read instead of on the first sync's way
   * (30-60 ms, docs/adr/0067); a call while one is under way waits for it, and one after a failure tries again.
   */
  prepare(): Promise<void> {
    if (this.fallback) return Promise.resolve();
    this.making ??= this.make().finally(() => {
      this.making = undefined;
    });
    return this.making;
  }

  private async make(): Promise<void> {
    const made = await makeSelfSigned(this.workDir);
    this.fallback = made;
    this.log.info(
      { subject: made.info.subject, fingerprint: made.info.fingerprint, notAfter: made.info.notAfter },
      'generated a self-signed default certificate (give --default-ssl-certificate namespace/name to use your own)',
    );
  }

  state(model: Model): CertificatesState {
    if (!this.fallback) throw new Error('TlsSync.prepare() must run before state()');
    // The payload is the TLS model's alone: a sync whose build left it as it was (the build worker's wire keeps the
    // same object, worker/model-wire.ts) reuses its entries and digest; a new one encodes and hashes only the PEMs the
    // last one did not have.
    if (this.payload?.tls !== model.tls) {
      this.payload = { tls: model.tls, entries: this.entriesMaker.of(certificatesPayload(model.tls, this.fallback.pem.reveal())) };
    }
    const { entries, whole, digest } = this.payload.entries;
    const files = [...clientFiles(model).keys()].sort().join('\n');
    return { entries, whole, digest, clientFilesDigest: sha256(files) };
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
