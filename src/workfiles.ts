// Files Portico writes into its work directory for nginx to read: written whole and renamed into place.
import { chmod, chown, rename, writeFile } from 'node:fs/promises';

/** Writes `content` to `path` atomically (a reader sees the old file or the new one), mode 0600 unless told, optionally chowned. */
export async function writeAtomic(path: string, content: string | Uint8Array, owner?: { uid: number; gid: number }, mode = 0o600): Promise<void> {
  await writeFile(`${path}.tmp`, content, { mode });
  // The mode of writeFile is masked by the umask and ignored for an existing file: set it for sure.
  await chmod(`${path}.tmp`, mode);
  if (owner) await chown(`${path}.tmp`, owner.uid, owner.gid);
  await rename(`${path}.tmp`, path);
}
