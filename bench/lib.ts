// Shared pieces of the benchmarks: hand-written nginx instances, wrk runs, CPU pinning, small statistics.
// Everything listens on 127.0.0.1 only; every process is stopped by its PID; every loop is bounded.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);
export const NGINX = '/usr/sbin/nginx';
export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** A hand-written nginx (master + workers) started by the bench, pinned with taskset. */
export interface HandNginx {
  readonly dir: string;
  readonly proc: ChildProcess;
  workers(): Promise<number[]>;
  stop(): Promise<void>;
}

/** Children of a process (the nginx workers of a master). */
export async function childPids(pid: number): Promise<number[]> {
  const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
  return text
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .sort((a, b) => a - b);
}

/** Starts `nginx -c <conf>` in a fresh directory (0755 so that `nobody` workers can use it), pinned to `cpus`. */
export async function startNginx(name: string, conf: (dir: string) => string, cpus: string, probePort: number, binary = NGINX): Promise<HandNginx> {
  const dir = await mkdtemp(join(tmpdir(), `portico-bench-${name}-`));
  await chmod(dir, 0o755);
  await mkdir(join(dir, 'logs'));
  await mkdir(join(dir, 'tmp'));
  await writeFile(join(dir, 'nginx.conf'), conf(dir));
  const proc = spawn('taskset', ['-c', cpus, binary, '-p', dir, '-e', 'stderr', '-c', join(dir, 'nginx.conf'), '-g', 'daemon off; master_process on;'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr?.setEncoding('utf8').on('data', (c: string) => {
    if (stderr.length < 20_000) stderr += c;
  });
  const exited = new Promise<void>((resolve) => {
    proc.once('exit', () => {
      resolve();
    });
  });
  const handle: HandNginx = {
    dir,
    proc,
    workers: async () => (proc.pid === undefined ? [] : childPids(proc.pid)),
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGQUIT');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
      await rm(dir, { recursive: true, force: true });
    },
  };
  for (let i = 0; i < 1200; i += 1) {
    // 30 s: under valgrind nginx + LuaJIT start slowly
    if (proc.exitCode !== null) break;
    const ok = await fetch(`http://127.0.0.1:${probePort}/`, { headers: { connection: 'close' } }).then(
      () => true,
      () => false,
    );
    if (ok) return handle;
    await sleep(25);
  }
  await handle.stop();
  throw new Error(`nginx ${name} did not start:\n${stderr}`);
}

/** Pins a process to `cpus` (all of its threads). */
export async function pin(pid: number, cpus: string): Promise<void> {
  await run('taskset', ['-a', '-p', '-c', cpus, String(pid)]);
}

/** Nanoseconds a process has run on a CPU (from /proc/PID/schedstat). */
export async function cpuNs(pid: number): Promise<number> {
  const text = await readFile(`/proc/${pid}/schedstat`, 'utf8').catch(() => '0');
  return Number(text.split(' ')[0] ?? 0);
}

/** User and system CPU time of a process in clock ticks (from /proc/PID/stat). */
export async function cpuTicks(pid: number): Promise<{ user: number; system: number }> {
  const text = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  const f = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { user: Number(f[11] ?? 0), system: Number(f[12] ?? 0) };
}

export interface WrkResult {
  readonly requests: number;
  readonly rps: number;
  readonly p50ms: number;
  readonly p99ms: number;
  readonly non2xx: number;
  readonly socketErrors: number;
}

function ms(text: string | undefined): number {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text ?? '');
  if (!m?.[1]) return Number.NaN;
  const v = Number(m[1]);
  return m[2] === 'us' ? v / 1000 : m[2] === 's' ? v * 1000 : v;
}

/** One wrk run (1 thread) pinned to `cpus`, bounded by `seconds` (+ a kill timer); `headers`: more `-H` values. */
export async function wrk(url: string, host: string, o: { seconds: number; connections: number; cpus: string; headers?: readonly string[] }): Promise<WrkResult> {
  const extra = (o.headers ?? []).flatMap((h) => ['-H', h]);
  const { stdout } = await run('taskset', ['-c', o.cpus, 'wrk', '-t1', `-c${o.connections}`, `-d${o.seconds}s`, '--timeout', '2s', '--latency', '-H', `Host: ${host}`, ...extra, url], {
    timeout: (o.seconds + 15) * 1000,
    killSignal: 'SIGKILL',
  });
  const line = (re: RegExp): RegExpExecArray | null => re.exec(stdout);
  const sock = line(/Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/);
  return {
    requests: Number(line(/(\d+) requests in/)?.[1] ?? 0),
    rps: Number(line(/Requests\/sec:\s+([\d.]+)/)?.[1] ?? 0),
    p50ms: ms(line(/^\s+50%\s+(\S+)/m)?.[1]),
    p99ms: ms(line(/^\s+99%\s+(\S+)/m)?.[1]),
    non2xx: Number(line(/Non-2xx or 3xx responses: (\d+)/)?.[1] ?? 0),
    socketErrors: sock ? sock.slice(1).reduce((a, b) => a + Number(b), 0) : 0,
  };
}

/** A side of an interleaved comparison: its URL and the requests/s of each round. */
export interface RoundSide {
  readonly name: string;
  readonly url: string;
  readonly rps: number[];
}

/**
 * Interleaved rounds of wrk -t1 -c50 on `cpus` (the sides' order turns each round), after a 1 s warm-up of each side,
 * with `Connection: close` when `close`: prints each side's median requests/s and its ratio to `sides[base]`, the
 * errors of any round, then empties the rounds for the next comparison.
 */
export async function interleaved(title: string, sides: RoundSide[], o: { host: string; cpus: string; rounds: number; seconds: number; close: boolean; base: number }): Promise<void> {
  const once = (url: string, seconds: number): Promise<WrkResult> => wrk(url, o.host, { seconds, connections: 50, cpus: o.cpus, headers: o.close ? ['Connection: close'] : [] });
  for (const s of sides) await once(s.url, 1);
  for (let r = 0; r < o.rounds; r += 1) {
    for (const s of sides.map((_, i) => sides[(i + r) % sides.length]!)) {
      const w = await once(s.url, o.seconds);
      s.rps.push(w.rps);
      if (w.non2xx + w.socketErrors > 0) console.log(`  ${s.name}: ${w.non2xx + w.socketErrors} errors in round ${r + 1}`);
      await sleep(200);
    }
  }
  const base = median(sides[o.base]!.rps);
  console.log(`${title}: ${sides.map((s) => `${s.name} ${fmt(median(s.rps))} req/s (ratio ${fmt(median(s.rps) / base, 2)}; rounds ${s.rps.map((x) => fmt(x)).join(' ')})`).join('; ')}`);
  for (const s of sides) s.rps.length = 0;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** Nearest-rank percentile (p in 0..100). */
export function percentile(xs: readonly number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  if (s.length === 0) return Number.NaN;
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]!;
}

export const fmt = (n: number, digits = 0): string => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');

/** Reads `--name value` / `--name=value` integer options with defaults and bounds. */
export function intArg(argv: readonly string[], name: string, def: number, min: number, max: number): number {
  let raw: string | undefined;
  for (let i = 0; i < argv.length; i += 1) {
    const a = argv[i]!;
    if (a === `--${name}`) raw = argv[i + 1];
    else if (a.startsWith(`--${name}=`)) raw = a.slice(name.length + 3);
  }
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new Error(`--${name}: expected an integer ${min}-${max}, got ${raw}`);
  return n;
}

/** Connections the backend nginx has accepted so far (stub_status on its `statusPort`), or NaN. */
export async function backendAccepts(statusPort: number): Promise<number> {
  const text = await fetch(`http://127.0.0.1:${statusPort}/`, { headers: { connection: 'close' } }).then(
    (r) => r.text(),
    () => '',
  );
  const m = /\n\s*(\d+)\s+(\d+)\s+(\d+)/.exec(text);
  return m?.[1] ? Number(m[1]) : Number.NaN;
}

/**
 * A tiny, fast backend: hand-written nginx answering `return 200` on each port, one worker pinned to `cpus`; with
 * `statusPort`, also stub_status there (to count the connections proxies open: keepalive should keep it near 0).
 */
export function backendConf(ports: readonly number[], statusPort?: number): (dir: string) => string {
  return (dir) => `worker_processes 1;
pid ${dir}/nginx.pid;
events { worker_connections 16384; multi_accept on; }
http {
    access_log off;
    keepalive_timeout 300s; keepalive_requests 1000000;
${ports.map((p) => `    server { listen 127.0.0.1:${p} backlog=4096; location / { return 200 "ok ${p}\\n"; } }`).join('\n')}
${statusPort ? `    server { listen 127.0.0.1:${statusPort}; location / { stub_status; } }` : ''}
}
`;
}

/**
 * callgrind: an nginx wrapper that runs nginx under `valgrind --tool=callgrind` (one profile file per process), and
 * the instructions a process executed between zeroing and dumping its counters. Instructions per request are
 * deterministic to a fraction of a percent, where requests/s on a shared machine is not.
 */
export async function callgrindWrapper(dir: string): Promise<string> {
  const script = join(dir, 'nginx-callgrind.sh');
  // callgrind_control cannot reach forked workers, so nginx runs as one process (master_process off): the master
  // is the worker. Fine for a benchmark that never reloads.
  await writeFile(
    script,
    `#!/bin/bash
args=(); for a in "$@"; do args+=("\${a/master_process on;/master_process off;}"); done
exec valgrind -q --tool=callgrind --smc-check=all-non-file --callgrind-out-file=${dir}/cg.%p.out ${NGINX} "\${args[@]}"
`,
    { mode: 0o755 },
  );
  return script;
}

export async function callgrindZero(pid: number): Promise<void> {
  await run('callgrind_control', ['-z', String(pid)], { timeout: 30_000 });
}

/** Dumps `pid`'s counters and returns the instructions since the last zero. */
export async function callgrindDump(dir: string, pid: number): Promise<number> {
  const before = new Set(await readdir(dir));
  await run('callgrind_control', ['-d', String(pid)], { timeout: 30_000 });
  for (let i = 0; i < 200; i += 1) {
    const fresh = (await readdir(dir)).filter((f) => f.startsWith(`cg.${pid}.out.`) && !before.has(f));
    if (fresh.length > 0) {
      await sleep(200);
      const text = await readFile(join(dir, fresh[0]!), 'utf8');
      const m = /^(?:summary|totals): (\d+)/m.exec(text);
      if (m?.[1]) return Number(m[1]);
    }
    await sleep(50);
  }
  throw new Error(`no callgrind dump for ${pid} in ${dir}: ${(await readdir(dir)).join(' ')}`);
}

/**
 * Runs `load` with `strace -c -f` attached to `pids` and returns the calls per syscall name. strace slows the traced
 * process down several times, so only the counts per request mean anything, never the times.
 */
export async function syscallCounts(pids: readonly number[], load: () => Promise<number>): Promise<{ requests: number; calls: Map<string, number> }> {
  const dir = await mkdtemp(join(tmpdir(), 'portico-bench-strace-'));
  const out = join(dir, 'strace.txt');
  const tracer = spawn('strace', ['-c', '-f', '-o', out, ...pids.flatMap((p) => ['-p', String(p)])], { stdio: ['ignore', 'ignore', 'inherit'] });
  try {
    await sleep(500); // attached
    const requests = await load();
    const exited = new Promise((r) => tracer.once('exit', r));
    tracer.kill('SIGINT');
    await Promise.race([exited, sleep(5000)]);
    const calls = new Map<string, number>();
    for (const line of (await readFile(out, 'utf8')).split('\n')) {
      const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(\w+)\s*$/.exec(line);
      if (m?.[2] && m[2] !== 'total') calls.set(m[2], Number(m[1]));
    }
    return { requests, calls };
  } finally {
    if (tracer.exitCode === null) tracer.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
  }
}
