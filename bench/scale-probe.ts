// bench/scale's probes: bounded polling of routes through Portico, RSS from /proc, nginx -t and SIGHUP timings; and the
// environment the image starts Portico with, which the scale benches start it with too.
import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { REPO } from '../test/support/portico.js';
import { childPids, NGINX, sleep } from './lib.js';

const run = promisify(execFile);
const agent = new Agent({ keepAlive: true, maxSockets: 8 });

/** Status and body of one GET through Portico (status 0 on an error), bounded by a 2 s timeout. */
export function ask(port: number, host: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path, headers: { host }, agent, timeout: 2000 }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        body += c;
      });
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, body: body.trim() });
      });
      res.on('error', () => {
        resolve({ status: 0, body: '' });
      });
    });
    req.on('timeout', () => {
      req.destroy();
    });
    req.on('error', () => {
      resolve({ status: 0, body: '' });
    });
    req.end();
  });
}

export function closeAgent(): void {
  agent.destroy();
}

/** Polls `ok` every `stepMs` until it holds; the ms it took, or NaN after `timeoutMs`. */
export async function pollMs(ok: () => Promise<boolean>, timeoutMs: number, stepMs = 5, t0 = performance.now()): Promise<number> {
  while (performance.now() - t0 < timeoutMs) {
    if (await ok()) return performance.now() - t0;
    await sleep(stepMs);
  }
  return Number.NaN;
}

/** True when every route answers 200 from a backend ("ok <port>"); asks them 10 at a time. */
export async function allServed(port: number, routes: readonly { host: string; path: string }[]): Promise<boolean> {
  for (let i = 0; i < routes.length; i += 10) {
    const answers = await Promise.all(routes.slice(i, i + 10).map((r) => ask(port, r.host, r.path)));
    if (!answers.every((a) => a.status === 200 && a.body.startsWith('ok '))) return false;
  }
  return true;
}

/** Resident set size of a process in MiB (VmRSS), 0 when it is gone. */
export async function rssMiB(pid: number): Promise<number> {
  const text = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/VmRSS:\s+(\d+)/.exec(text)?.[1] ?? 0) / 1024;
}

/** CPU time (user + system, every thread) a process has used so far, in seconds; 0 when it is gone. */
export async function cpuSeconds(pid: number): Promise<number> {
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  // fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11] ?? 0) + Number(fields[12] ?? 0)) / 100;
}

/** The nginx master PID of a Portico work directory. */
export async function masterPid(workDir: string): Promise<number> {
  return Number((await readFile(join(workDir, 'nginx.pid'), 'utf8')).trim());
}

/** RSS of nginx master + workers (MiB), and the worker count. */
export async function nginxRss(master: number): Promise<{ mib: number; workers: number }> {
  const kids = await childPids(master);
  let mib = await rssMiB(master);
  for (const k of kids) mib += await rssMiB(k);
  return { mib, workers: kids.length };
}

/** `nginx -t` on Portico's own nginx.conf, as Portico runs it (ms), bounded at 120 s. */
export async function nginxTestMs(workDir: string): Promise<number> {
  const t0 = performance.now();
  await run(NGINX, ['-t', '-q', '-p', workDir, '-e', 'stderr', '-c', join(workDir, 'nginx.conf')], { timeout: 120_000 });
  return performance.now() - t0;
}

/**
 * SIGHUP to the master → as many new workers as before (ms): the reload itself, without Portico's sync. Returns once
 * the old workers have exited too (not counted): at 10,000 Ingresses each spends ~0.7 s of CPU freeing its
 * configuration, which took the 2 cores from the change measured next (a new Ingress 1.0 s instead of ~0.4 s).
 */
export async function sighupMs(master: number, timeoutMs: number): Promise<number> {
  const before = new Set(await childPids(master));
  const t0 = performance.now();
  process.kill(master, 'SIGHUP');
  const ms = await pollMs(async () => (await childPids(master)).filter((p) => !before.has(p)).length >= before.size, timeoutMs, 5, t0);
  await pollMs(async () => (await childPids(master)).every((p) => !before.has(p)), timeoutMs, 20);
  return ms;
}

/**
 * The ENV lines of the Dockerfile's last stage, as `NAME: value` (what the image's entrypoint runs with: glibc's malloc
 * trim threshold, docs/adr/0058), for the benches that measure the controller as installed.
 */
export async function imageEnv(): Promise<Record<string, string>> {
  const text = await readFile(join(REPO, 'Dockerfile'), 'utf8');
  const last = text.slice(text.lastIndexOf('\nFROM '));
  const env: Record<string, string> = {};
  for (const m of last.matchAll(/^ENV\s+([A-Za-z_][A-Za-z0-9_]*)=(\S+)\s*$/gm)) env[m[1]!] = m[2]!;
  return env;
}
