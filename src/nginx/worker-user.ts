// Chooses the unprivileged user nginx workers run as and lets them reach the work directory (docs/adr/0009).
import { chmod, chown, readFile, stat } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import type { Logger } from '../log.js';

export interface WorkerUser {
  /** User and group for nginx's `user` directive; undefined when Portico is not root (workers run as Portico's user). */
  readonly name: readonly [string, string] | undefined;
  readonly uid: number | undefined;
  readonly gid: number | undefined;
}

/** Portico not root: no `user` directive, workers run as Portico's user and open what it can. */
const SAME_USER: WorkerUser = Object.freeze({ name: undefined, uid: undefined, gid: undefined });

const NAME = /^[a-z_][a-z0-9_-]{0,31}$/i;
const fields = (text: string): string[][] => text.split('\n').map((l) => l.split(':'));

/**
 * Pure: the workers' user from /etc/passwd and /etc/group text. `requested` is --worker-user; without it, `www-data`
 * (Debian's nginx user; uid 101 in ingress-nginx's image) when it exists, else `nobody`. Throws when the user is unknown.
 */
export function resolveWorkerUser(requested: string | undefined, passwd: string, group: string): WorkerUser {
  const users = fields(passwd).filter((f) => f.length >= 4 && NAME.test(f[0] ?? ''));
  const name = requested ?? (users.some((f) => f[0] === 'www-data') ? 'www-data' : 'nobody');
  const entry = users.find((f) => f[0] === name);
  const uid = Number(entry?.[2]);
  const gid = Number(entry?.[3]);
  if (!entry || !Number.isInteger(uid) || !Number.isInteger(gid)) {
    const how = requested === undefined ? 'neither www-data nor nobody is in /etc/passwd' : `user ${JSON.stringify(name)} is not in /etc/passwd`;
    throw new ConfigError(`--worker-user: ${how}; name an existing unprivileged user for the nginx workers`);
  }
  const groupName = fields(group).find((f) => f[2] === String(gid) && NAME.test(f[0] ?? ''))?.[0];
  if (groupName === undefined) throw new ConfigError(`--worker-user: the primary group ${gid} of ${JSON.stringify(name)} is not in /etc/group`);
  return { name: [name, groupName], uid, gid };
}

/** As root: the workers' user (a warning when it is root, which only --worker-user=root gives). Otherwise SAME_USER. */
export async function chooseWorkerUser(requested: string | undefined, log: Logger): Promise<WorkerUser> {
  if (process.getuid?.() !== 0) {
    if (requested !== undefined) log.info({ workerUser: requested }, '--worker-user is ignored: Portico is not root, nginx workers run as its user');
    return SAME_USER;
  }
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  const groups = await readFile('/etc/group', 'utf8').catch(() => '');
  const user = resolveWorkerUser(requested, passwd, groups);
  if (user.uid === 0) log.warn('--worker-user=root: nginx workers run as root; a flaw in nginx or its Lua code then owns the pod');
  return user;
}

interface Mode {
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/** Pure: whether a process of `uid`/`gid` (no supplementary groups) may search (traverse) a directory. */
export function canTraverse(d: Mode, uid: number, gid: number): boolean {
  if (uid === 0) return true;
  if (d.uid === uid) return (d.mode & 0o100) !== 0;
  if (d.gid === gid) return (d.mode & 0o010) !== 0;
  return (d.mode & 0o001) !== 0;
}

/**
 * Pure: what makes a work directory the workers cannot search searchable by them, giving nobody else more than that:
 * with no group bits in use, group := workers' group and g+x (0700 → 0710); else o+x (search, never listing).
 */
export function traverseFix(d: Mode, uid: number, gid: number): { gid: number; mode: number } | undefined {
  if (canTraverse(d, uid, gid)) return undefined;
  if (d.uid === uid) return { gid: d.gid, mode: d.mode | 0o100 };
  return (d.mode & 0o070) === 0 ? { gid, mode: d.mode | 0o010 } : { gid: d.gid, mode: d.mode | 0o001 };
}

/**
 * Lets the workers reach `workDir` and `luaDir`: fixes the work directory's own mode (see traverseFix); refuses to
 * start when a directory above either is closed to them, since changing those is the operator's call.
 */
export async function grantTraverse(workDir: string, luaDir: string, user: WorkerUser, log: Logger): Promise<void> {
  const { uid, gid, name } = user;
  if (uid === undefined || gid === undefined || uid === 0) return;
  const dir = resolve(workDir);
  const st = await stat(dir);
  const fix = traverseFix(st, uid, gid);
  if (fix) {
    if (fix.gid !== st.gid) await chown(dir, st.uid, fix.gid);
    await chmod(dir, fix.mode & 0o7777);
    log.info({ workDir: dir, mode: (fix.mode & 0o7777).toString(8), gid: fix.gid }, 'work directory made searchable (not listable) by the nginx workers');
  }
  for (const [target, first] of [
    [dir, dirname(dir)],
    [resolve(luaDir), resolve(luaDir)],
  ] as const) {
    for (let d = first; ; d = dirname(d)) {
      const s = await stat(d);
      if (!canTraverse(s, uid, gid)) {
        throw new ConfigError(
          `nginx workers (user ${name?.[0] ?? uid}) cannot reach ${target}: ${d} is mode ${(s.mode & 0o777).toString(8)} ` +
            `owned by uid ${s.uid}; use a --work-dir under directories they can search (e.g. /tmp, /var/lib), or another --worker-user`,
        );
      }
      if (d === dirname(d)) break;
    }
  }
}
