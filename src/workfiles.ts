// Files Portico writes into its work directory for nginx to read: written whole and renamed into place.
import { chmod, chown, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** Writes `content` to `path` atomically (a reader sees the old file or the new one), mode 0600 unless told, optionally chowned. */
export async function writeAtomic(path: string, content: string | Uint8Array, owner?: { uid: number; gid: number }, mode = 0o600): Promise<void> {
  await writeFile(`${path}.tmp`, content, { mode });
  // The mode of writeFile is masked by the umask and ignored for an existing file: set it for sure.
  await chmod(`${path}.tmp`, mode);
  if (owner) await chown(`${path}.tmp`, owner.uid, owner.gid);
  await rename(`${path}.tmp`, path);
}

/**
 * Writes, in `dir` (created 0750), each file of `files` (path → content) whose content changed, atomically, 0640,
 * owned by Portico and by the group of `dir`, which Nginx.prepare() gives the workers' group: workers read them, never
 * write them (docs/adr/0009). Returns the number of files written.
 */
export async function writeChangedFiles(dir: string, files: ReadonlyMap<string, string>): Promise<number> {
  if (files.size === 0) return 0;
  await mkdir(dir, { recursive: true, mode: 0o750 });
  const owner = process.getuid?.() === 0 ? { uid: 0, gid: (await stat(dir)).gid } : undefined;
  let written = 0;
  for (const [path, content] of files) {
    const old = await readFile(path, 'utf8').catch(() => undefined);
    if (old === content) continue;
    await writeAtomic(path, content, owner, 0o640);
    written += 1;
  }
  return written;
}

/** Removes the files of `dir` whose names match `pattern` and are not in `keep`; returns how many. */
export async function pruneFiles(dir: string, pattern: RegExp, keep: ReadonlySet<string>): Promise<number> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!pattern.test(name) || keep.has(name)) continue;
    await rm(join(dir, name), { force: true });
    removed += 1;
  }
  return removed;
}
