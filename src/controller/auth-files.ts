// Files of auth: htpasswd files in the work dir (one per Ingress, rewritten in place: no reload), the system resolvers.
import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { join } from 'node:path';
import type { Model, Server } from '../model/types.js';
import type { Sensitive } from '../model/tls-types.js';
import { ListFold } from '../model/list-fold.js';
import { pruneFiles, writeChangedFiles } from '../workfiles.js';

/** Each server's htpasswd files. */
function serverFiles(s: Server): readonly (readonly [string, Sensitive])[] {
  const found: [string, Sensitive][] = [];
  for (const l of s.locations) {
    const b = l.target.kind === 'upstream' ? l.target.settings?.auth?.basic : undefined;
    if (b?.file !== undefined && b.users !== undefined) found.push([b.file, b.users]);
  }
  return found;
}

/** The servers' htpasswd files, gathered from the servers a sync changed (model/list-fold.ts). */
const gathered = new ListFold(serverFiles);

/** The files the model names: relative path → htpasswd text (checked user:hash lines). */
function authFiles(model: Model): Map<string, string> {
  return new Map([...gathered.of(model.servers)].map(([file, users]) => [file, users.reveal()]));
}

/** Gathers `model`'s files ahead of the sync that writes them (a whole build's model, while the worker renders it). */
export function warmAuthFiles(model: Model): void {
  gathered.of(model.servers);
}

/**
 * Writes the files whose content changed (workfiles.ts writeChangedFiles: atomic, 0640, the workers' group). nginx
 * workers open auth_basic_user_file on every request, so a changed Secret takes effect without a reload; other users
 * read nothing (docs/adr/0009). Returns the number of files written.
 */
export async function writeAuthFiles(workDir: string, model: Model): Promise<number> {
  const files = new Map([...authFiles(model)].map(([rel, content]) => [join(workDir, rel), content]));
  return writeChangedFiles(join(workDir, 'auth'), files);
}

/** Removes htpasswd files the served configuration no longer names (after it is applied). */
export async function pruneAuthFiles(workDir: string, model: Model): Promise<number> {
  const keep = new Set([...authFiles(model).keys()].map((rel) => rel.slice('auth/'.length)));
  return pruneFiles(join(workDir, 'auth'), /\.htpasswd(\.tmp)?$/, keep);
}

/** The name servers of /etc/resolv.conf (IP addresses only), for auth-url host names; none when unreadable. */
export async function systemResolvers(file = '/etc/resolv.conf'): Promise<string[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const found = [...text.matchAll(/^\s*nameserver\s+([0-9a-fA-F.:]{2,39})\s*$/gm)].map((m) => m[1] ?? '');
  return [...new Set(found.filter((a) => isIP(a) !== 0))].slice(0, 3);
}
