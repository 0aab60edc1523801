// How process.ts runs the nginx binary (the master tied to Portico's life, -t, -v) and hears it (stderr at nginx's level).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { access, constants, open, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { errorMessage } from '../errors.js';
import type { Logger } from '../log.js';

/**
 * util-linux's setpriv (Essential in Debian, so in every Debian image): `--pdeathsig QUIT` asks the kernel to send
 * nginx's master SIGQUIT when Portico dies, SIGKILL included, so no nginx outlives it holding the ports. Absolute
 * paths: the environment is cli/'s and config/'s to read.
 */
const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'];

/** The setpriv binary, or undefined when there is none (nginx then starts without the tie to Portico's life). */
export async function findSetpriv(): Promise<string | undefined> {
  for (const p of SETPRIV) {
    if (
      await access(p, constants.X_OK).then(
        () => true,
        () => false,
      )
    )
      return p;
  }
  return undefined;
}

export interface MasterLaunch {
  readonly binary: string;
  readonly workDir: string;
  /** Environment of nginx: the configuration endpoint's token only. */
  readonly env: Readonly<Record<string, string>>;
  /** findSetpriv()'s answer. */
  readonly setpriv: string | undefined;
}

/**
 * Spawns the master in the foreground. stdout is Portico's own, so an access log on /dev/stdout (the default) lands
 * where `kubectl logs` reads; stderr is piped to Portico's log (nginxLines). Its own process group: a signal to
 * Portico's group (Ctrl-C, a container without init) reaches Portico only, which then quits nginx gracefully; nginx's
 * SIGTERM would be a fast shutdown that drops requests in flight. setpriv execs nginx: the PID is the master's.
 */
export function spawnMaster(l: MasterLaunch): ChildProcess {
  const args = ['-p', l.workDir, '-e', 'stderr', '-c', join(l.workDir, 'nginx.conf'), '-g', 'daemon off; master_process on;'];
  const [file, argv] = l.setpriv === undefined ? [l.binary, args] : [l.setpriv, ['--pdeathsig', 'QUIT', '--', l.binary, ...args]];
  return spawn(file, argv, { stdio: ['ignore', 'inherit', 'pipe'], env: { ...l.env }, detached: true });
}

/** SIGKILL to what is left of a master's process group (workers of a killed master would hold the ports). */
export function killGroup(pid: number | undefined): void {
  if (pid === undefined) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is gone already
  }
}

/**
 * Runs `nginx -t` on `conf`; resolves when it passes, rejects with nginx's stderr when it does not. stdout is Portico's
 * own, as the master's will be: an access log on /dev/stdout opens (or fails) in the test exactly as at the start.
 * execFile would hand nginx a socket pair, which /dev/stdout cannot open (ENXIO). `signal` aborted: the test is killed
 * and the promise rejects (a test beside a reload the master already serves has nothing left to say).
 */
export function testConf(binary: string, workDir: string, conf: string, timeoutMs: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['-t', '-q', '-p', workDir, '-e', 'stderr', '-c', conf], { stdio: ['ignore', 'inherit', 'pipe'], timeout: timeoutMs, ...(signal ? { signal } : {}) });
    let stderr = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) resolve();
      else reject(new Error(stderr.trim() || `nginx -t exited with ${signal ?? String(code)}`));
    });
  });
}

type Level = 'debug' | 'info' | 'warn' | 'error';

/**
 * Pure: the log level of an nginx error log line (`2026/01/01 00:00:00 [emerg] 12#12: …`, or `nginx: [emerg] …` before
 * its error log is open); info when it names none.
 */
export function nginxLevel(line: string): Level {
  const level = /^(?:\d{4}\/\d\d\/\d\d \d\d:\d\d:\d\d|nginx:) \[([a-z]+)\]/.exec(line)?.[1];
  switch (level) {
    case 'debug':
      return 'debug';
    case 'warn':
      return 'warn';
    case 'error':
    case 'crit':
    case 'alert':
    case 'emerg':
      return 'error';
    default:
      return 'info';
  }
}

/**
 * Logs a child's stderr line by line at nginx's own level ([error] and worse at error, [warn] at warn), and keeps the
 * distinct lines at error level, which say why a master that exited at start did (a bind() failure, then "still
 * could not bind()").
 */
export class NginxLines {
  private buffered = '';
  private readonly errors: string[] = [];

  constructor(private readonly log: Logger) {}

  /** The distinct error lines so far (at most 5, without nginx's timestamp and PIDs), or undefined when none. */
  get errorText(): string | undefined {
    return this.errors.length === 0 ? undefined : this.errors.join('; ');
  }

  write(chunk: string): void {
    this.buffered += chunk;
    const lines = this.buffered.split('\n');
    this.buffered = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      const level = nginxLevel(line);
      this.log[level]({ nginx: line }, 'nginx');
      const short = line.replace(/^(?:\S+ \S+ (\[[a-z]+\]) \d+#\d+:|nginx: (\[[a-z]+\])) /, '$1$2 ');
      if (level === 'error' && this.errors.length < 5 && !this.errors.includes(short)) this.errors.push(short);
    }
  }
}

/**
 * Whether nginx can open /dev/stdout for its access log: not when Portico's stdout is a socket (systemd's journal),
 * where open() fails with ENXIO; then the access log goes to a file (run.ts).
 */
export async function stdoutOpenable(): Promise<boolean> {
  try {
    const fh = await open('/dev/stdout', 'a');
    await fh.close();
    return true;
  } catch {
    return false;
  }
}

const run = promisify(execFile);

/** `nginx -v` and the Debian package version, logged at start (NGINX-NOTES.md: security backports). */
export async function nginxVersion(binary: string): Promise<{ nginx: string; package: string }> {
  // Two child processes that do not wait on each other (`portico --version` start-up): side by side.
  const [v, pkg] = await Promise.all([
    run(binary, ['-v'])
      .then((r) => (r.stderr || r.stdout).trim())
      .catch((e: unknown) => `unknown (${errorMessage(e)})`),
    run('dpkg-query', ['-W', '-f=${Version}', 'nginx'])
      .then((r) => r.stdout.trim())
      .catch(() => 'unknown'),
  ]);
  return { nginx: v, package: pkg };
}

/**
 * The hard limit of open files nginx starts under (Portico's own, which the master and its workers inherit), from
 * /proc/self/limits; undefined when unlimited or unreadable. With max-worker-open-files 0 the render gives workers this
 * less 1024, as ingress-nginx does.
 */
export async function openFilesHardLimit(file = '/proc/self/limits'): Promise<number | undefined> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const hard = /^Max open files\s+\S+\s+(\d+)\s/m.exec(text)?.[1];
  return hard === undefined ? undefined : Number(hard);
}
