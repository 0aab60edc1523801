// Client-certificate CA and CRL files in the work directory (mode 0600): stock nginx reads them only on a reload.
import { readdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TlsModel } from '../model/tls-types.js';
import { caFile, crlFile } from '../render/tls.js';
import { writeAtomic } from '../workfiles.js';

/** The files the model needs: relative path → content. Public material only (CA bundles and CRLs). */
export function clientFiles(tls: TlsModel): Map<string, string> {
  const files = new Map<string, string>();
  for (const s of tls.servers) {
    const ca = s.clientAuth;
    if (!ca) continue;
    files.set(caFile(ca.caDigest), ca.caPem);
    if (ca.crlDigest && ca.crlPem) files.set(crlFile(ca.crlDigest), ca.crlPem);
  }
  return files;
}

/** Writes the missing files before `nginx -t` reads them. Names are content digests: a file never changes in place. */
export async function writeClientFiles(workDir: string, tls: TlsModel): Promise<number> {
  let written = 0;
  for (const [rel, content] of clientFiles(tls)) {
    const path = join(workDir, rel);
    const exists = await stat(path).then(() => true, () => false);
    if (exists) continue;
    await writeAtomic(path, content);
    written += 1;
  }
  return written;
}

/** Removes CA and CRL files the running configuration no longer names (after a successful reload). */
export async function pruneClientFiles(workDir: string, tls: TlsModel): Promise<void> {
  const keep = new Set([...clientFiles(tls).keys()].map((rel) => rel.slice('ssl/'.length)));
  const names = await readdir(join(workDir, 'ssl')).catch(() => [] as string[]);
  for (const name of names) {
    if (/^(ca|crl)-[0-9a-f]+\.pem$/.test(name) && !keep.has(name)) await rm(join(workDir, 'ssl', name), { force: true });
  }
}
