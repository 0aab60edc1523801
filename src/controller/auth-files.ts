// Files of auth: htpasswd files in the work dir (one per Ingress, rewritten in place: no reload), the system resolvers.
import { mkdir, readdir, readFile, rm, stat } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Model } from '../model/types.js';
import { writeAtomic } from '../workfiles.js';

/** The files the model names: relative path → htpasswd text (checked user:hash lines). */
function authFiles(model: Model): Map<string, string> {
  const files = new Map<string, string>();
  for (const s of model.servers) {
    for (const l of s.locations) {
      const b = l.target.kind === 'upstream' ? l.target.settings?.auth?.basic : undefined;
      if (b?.file !== undefined && b.users !== undefined) files.set(b.file, b.users.reveal());
    }
  }
  return files;
}

/**
 * Writes the files whose content changed, atomically (temp file + rename). nginx workers open auth_basic_user_file on
 * every request, so a changed Secret takes effect without a reload. Files are 0640, owned by Portico and by the group
 * of the `auth` folder, which Nginx.prepare() gives the workers' group: workers read them, never write them, and
 * other users read nothing (docs/adr/0009). Returns the number of files written.
 */
export async function writeAuthFiles(workDir: string, model: Model): Promise<number> {
  const files = authFiles(model);
  if (files.size === 0) return 0;
  const dir = join(workDir, 'auth');
  await mkdir(dir, { recursive: true, mode: 0o750 });
  const owner = process.getuid?.() === 0 ? { uid: 0, gid: (await stat(dir)).gid } : undefined;
  let written = 0;
  for (const [rel, content] of files) {
    const path = join(workDir, rel);
    const old = await readFile(path, 'utf8').catch(() => undefined);
    if (old === content) continue;
    await writeAtomic(path, content, owner, 0o640);
    written += 1;
  }
  return written;
}

/** Removes htpasswd files the served configuration no longer names (after it is applied). */
export async function pruneAuthFiles(workDir: string, model: Model): Promise<number> {
  const keep = new Set([...authFiles(model).keys()].map((rel) => rel.slice('auth/'.length)));
  const names = await readdir(join(workDir, 'auth')).catch(() => [] as string[]);
  let removed = 0;
  for (const name of names) {
    if (!/\.htpasswd(\.tmp)?$/.test(name) || keep.has(name)) continue;
    await rm(join(workDir, 'auth', name), { force: true });
    removed += 1;
  }
  return removed;
}

/** The name servers of /etc/resolv.conf (IP addresses only), for auth-url host names; none when unreadable. */
export async function systemResolvers(file = '/etc/resolv.conf'): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const found = [...text.matchAll(/^\s*nameserver\s+([0-9a-fA-F.:]{2,39})\s*$/gm)].map((m) => m[1] ?? '');
  return [...new Set(found.filter((a) => isIP(a) !== 0))].slice(0, 3);
}
