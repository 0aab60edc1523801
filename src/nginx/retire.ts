// After a reload, until the old workers stop accepting. nginx's master starts the new workers, sleeps 100 ms, and only
// then tells the old ones to shut down; each closes its listening sockets when it handles that. Until then a new
// connection may still land on an old worker and be answered from the old configuration, so "the new configuration
// is served" holds only once no old worker holds a listening socket. Read from /proc (Linux): the old workers are
// the master's children before the SIGHUP; the listening sockets are the LISTEN rows of /proc/net/tcp and tcp6.
import { readdir, readFile, readlink } from 'node:fs/promises';
import { setTimeout as sleep } from 'node:timers/promises';

/** nginx's pause between starting the new workers and retiring the old ones (ngx_master_process_cycle), plus margin. */
const FALLBACK_MS = 150;

/** The master's child processes now (its workers, cache manager and loader); [] where /proc cannot tell. */
export async function childPids(master: number | undefined): Promise<number[]> {
  if (master === undefined) return [];
  try {
    const text = await readFile(`/proc/${master}/task/${master}/children`, 'utf8');
    return text.split(/\s+/).filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** The inodes of the host's listening TCP sockets. */
async function listeningInodes(): Promise<Set<string>> {
  const out = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = await readFile(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[3] === '0A' && f[9] !== undefined) out.add(f[9]); // st 0A: LISTEN; field 9: inode
    }
  }
  return out;
}

/** Whether process `pid` holds one of `inodes` ('gone' when it exited; undefined when its fds cannot be read). */
async function holdsListener(pid: number, inodes: ReadonlySet<string>): Promise<boolean | 'gone' | undefined> {
  let fds: string[];
  try {
    fds = await readdir(`/proc/${pid}/fd`);
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'gone' : undefined;
  }
  for (const fd of fds) {
    const link = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => '');
    const m = /^socket:\[(\d+)\]$/.exec(link);
    if (m?.[1] !== undefined && inodes.has(m[1])) return true;
  }
  return false;
}

/**
 * Resolves once none of `old` (the workers before a reload) accepts connections any more: each exited or closed its
 * listening sockets. Where their fds cannot be read (another user, no /proc), waits nginx's fixed pause instead.
 * Bounded by `timeoutMs`: a worker stuck in a long request handles the signal late, and the reload still counts.
 */
export async function untilRetired(old: readonly number[], timeoutMs = 2000): Promise<void> {
  if (old.length === 0) return;
  const deadline = Date.now() + timeoutMs;
  let pending = [...old];
  // once: an old worker's listening sockets were all open before the reload (a busy host's table is long to read)
  const inodes = await listeningInodes();
  while (pending.length > 0 && Date.now() < deadline) {
    const next: number[] = [];
    for (const pid of pending) {
      const held = await holdsListener(pid, inodes);
      if (held === undefined) {
        await sleep(FALLBACK_MS);
        return;
      }
      if (held === true) next.push(pid);
    }
    pending = next;
    if (pending.length > 0) await sleep(10);
  }
}
