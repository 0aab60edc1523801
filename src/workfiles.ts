// Files Portico writes into its work directory for nginx to read: written whole and renamed into place.
import { chown, rename, writeFile } from 'node:fs/promises';

/** Writes `content` to `path` atomically (a reader sees the old file or the new one), mode 0600, optionally chowned. */
export async function writeAtomic(path: string, content: string, owner?: { uid: number; gid: number }): Promise<void> {
  await writeFile(`${path}.tmp`, content, { mode: 0o600 });
  if (owner) await chown(`${path}.tmp`, owner.uid, owner.gid);
  await rename(`${path}.tmp`, path);
}
