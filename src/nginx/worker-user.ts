// Chooses the user nginx workers run as, so they can open files in any --work-dir (docs/adr/0002).
import { readFile, stat } from 'node:fs/promises';

export interface WorkerUser {
  /** User and group for nginx's `user` directive; undefined when Portico is not root (workers run as Portico's user). */
  readonly name: readonly [string, string] | undefined;
  readonly uid: number | undefined;
  readonly gid: number | undefined;
}

/** As root: the owner of the work directory (created if missing). Otherwise: no `user` directive. */
export async function chooseWorkerUser(workDir: string): Promise<WorkerUser> {
  if (process.getuid?.() !== 0) return { name: undefined, uid: undefined, gid: undefined };
  const st = await stat(workDir);
  const passwd = await readFile('/etc/passwd', 'utf8').catch(() => '');
  const groups = await readFile('/etc/group', 'utf8').catch(() => '');
  const userName = passwd.split('\n').map((l) => l.split(':')).find((f) => f[2] === String(st.uid))?.[0];
  const groupName = groups.split('\n').map((l) => l.split(':')).find((f) => f[2] === String(st.gid))?.[0];
  const name = userName && /^[a-z_][a-z0-9_-]*$/i.test(userName) ? userName : 'root';
  const group = groupName && /^[a-z_][a-z0-9_-]*$/i.test(groupName) ? groupName : name;
  return { name: [name, group], uid: st.uid, gid: st.gid };
}
