// Starts the real `portico` command (local mode, real nginx) for end-to-end tests, and sends it requests.
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** Ports this process handed out: the kernel may give a just-closed port again, and two listeners must not share one. */
const handedOut = new Set<number>();

/**
 * The first port of the kernel's ephemeral range, where outgoing connections take their source port: a port handed out
 * from it (listen(0) picks there) could be taken by any test's client between the check and nginx's bind, which then
 * fails with EADDRINUSE (a Gateway conformance listener refused connections for 30 s once in CI).
 */
function ephemeralFrom(): number {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) || 32768;
  } catch {
    return 32768;
  }
}

/** The ports below the ephemeral range that tests pick from. */
const PICK_FROM = 20_000;

/** Whether `port` can be listened on at 127.0.0.1 now (bound and released). */
function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => {
      resolve(false);
    });
    srv.listen(port, '127.0.0.1', () => {
      srv.close(() => {
        resolve(true);
      });
    });
  });
}

/** A port the kernel picks (listen(0)), in the ephemeral range. */
function kernelPort(): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port: p } = srv.address() as AddressInfo;
      srv.close(() => {
        resolve(p);
      });
    });
  });
}

/**
 * A free 127.0.0.1 port not handed out before in this process: one below the ephemeral range that can be listened on
 * (bounded: 200 tries), else one the kernel picks (50 tries).
 */
export async function freePort(): Promise<number> {
  const below = ephemeralFrom() - 1;
  for (let i = 0; below - PICK_FROM >= 1000 && i < 200; i++) {
    const port = PICK_FROM + Math.floor(Math.random() * (below - PICK_FROM + 1));
    if (handedOut.has(port) || !(await canListen(port))) continue;
    handedOut.add(port);
    return port;
  }
  for (let i = 0; i < 50; i++) {
    const port = await kernelPort();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port not handed out before in 250 tries');
}

export interface Reply {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** One HTTP request to 127.0.0.1 with a Host header, on a fresh connection. */
export function get(port: number, host: string, path: string, opts: { method?: string; headers?: Record<string, string>; body?: string; timeoutMs?: number } = {}): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, path, method: opts.method ?? 'GET', headers: { host, ...opts.headers }, agent: false, timeout: opts.timeoutMs ?? 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
      });
    });
    req.on('timeout', () => {
      req.destroy(new Error(`timeout: ${host}${path}`));
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}

/** Which backend answered (its id), or the status code when no backend did. */
export async function who(port: number, host: string, path: string): Promise<string> {
  const r = await get(port, host, path);
  if (r.status === 200 && typeof r.headers['x-backend'] === 'string') return r.headers['x-backend'];
  return String(r.status);
}

/** True when each [host, path, want] is answered by backend `want` (or the status `want`) right now. */
async function answers(port: number, cases: readonly (readonly [string, string, string])[]): Promise<boolean> {
  for (const [host, path, want] of cases) if ((await who(port, host, path)) !== want) return false;
  return true;
}

/** Polls until every case answers as answers() checks, at most 10 s; throws with `what` otherwise. */
export async function untilServed(port: number, what: string, cases: readonly (readonly [string, string, string])[]): Promise<void> {
  await until(what, () => answers(port, cases), 10_000);
}

/** Polls `fn` until it returns true, at most `timeoutMs`; throws with `what` otherwise. */
export async function until(what: string, fn: () => Promise<boolean> | boolean, timeoutMs = 10_000, stepMs = 25): Promise<number> {
  const start = Date.now();
  let lastErr = '';
  while (Date.now() - start < timeoutMs) {
    try {
      if (await fn()) return Date.now() - start;
    } catch (err) {
      lastErr = String(err);
    }
    await new Promise((r) => setTimeout(r, stepMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what} ${lastErr}`);
}

export interface Running {
  readonly http: number;
  readonly https: number;
  readonly healthz: number;
  readonly status: number;
  readonly workDir: string;
  readonly proc: ChildProcess;
  /** Everything Portico printed (JSON log lines; and the access log when it goes to stdout). */
  readonly output: string[];
  /** With `stdoutFile`: the file Portico's stdout goes to (its stderr still fills `output`). */
  readonly stdoutFile?: string;
  stop(): Promise<number | null>;
}

/**
 * Dynamic routes are on by default (docs/adr/0014, "Default"), so the suite runs on the Lua route table.
 * PORTICO_TEST_DYNAMIC_ROUTES=0 adds `--enable-dynamic-routes=false` to every Portico the tests start (docs/architecture.md, Tests),
 * unless the test sets the flag itself: the whole suite then runs on rendered server blocks, as before the flip.
 */
function withTestSwitches(args: readonly string[]): string[] {
  const given = args.some((a) => /^--?(no-)?enable-dynamic-routes(=|$)/.test(a));
  return process.env['PORTICO_TEST_DYNAMIC_ROUTES'] === '0' && !given ? [...args, '--enable-dynamic-routes=false'] : [...args];
}

/**
 * Starts `portico` with the flags of the command line (every port picked free) and a 0700 mktemp work dir;
 * resolves when /healthz is 200. Portico's stdout is a pipe here, which Node makes a socket pair: nginx cannot open
 * /dev/stdout on it, so the access log goes to the work dir's logs/access.log (run.ts). `stdoutFile: true` gives
 * Portico a file as stdout instead (as a container runtime's FIFO or a terminal would): the access log goes there.
 */
export async function startPortico(
  args: string[],
  opts: {
    waitHealthy?: boolean;
    healthyTimeoutMs?: number;
    env?: NodeJS.ProcessEnv;
    ownGroup?: boolean;
    stdoutFile?: boolean;
    /** Options for node itself, before the script (bench/change-profile: --cpu-prof, which NODE_OPTIONS refuses). */
    nodeArgs?: readonly string[];
    /** Flags that name the traffic ports picked here (for example --gateway-h2c-ports naming --http-port). */
    portArgs?: (ports: { readonly http: number; readonly https: number }) => string[];
  } = {},
): Promise<Running> {
  args = withTestSwitches(args);
  const [http, https, healthz, status] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const workDir = await mkdtemp(join(tmpdir(), 'portico-e2e-'));
  const stdoutFile = opts.stdoutFile === true ? `${workDir}.stdout` : undefined;
  // Opened as a shell's `>` opens it (no O_APPEND): Portico's lines and nginx's appended access lines must both stay.
  const stdoutFd = stdoutFile === undefined ? undefined : openSync(stdoutFile, 'w');
  const proc = spawn(
    process.execPath,
    [
      ...(opts.nodeArgs ?? []),
      join(REPO, 'bin/portico.js'),
      ...args,
      ...(opts.portArgs?.({ http, https }) ?? []),
      `--http-port=${http}`,
      '--https-port',
      String(https),
      '--healthz-port',
      String(healthz),
      '--status-port',
      String(status),
      '--work-dir',
      workDir,
      '--log-level',
      'debug',
    ],
    // ownGroup: Portico leads a process group of its own, as a job in a terminal does (signals to the group: -pid).
    { stdio: ['ignore', stdoutFd ?? 'pipe', 'pipe'], env: { ...process.env, ...opts.env }, detached: opts.ownGroup === true },
  );
  if (stdoutFd !== undefined) closeSync(stdoutFd);
  const output: string[] = [];
  // Lines, not chunks: a chunk may end in the middle of a line.
  const collector = () => {
    let rest = '';
    return (chunk: Buffer) => {
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) if (l) output.push(l);
    };
  };
  proc.stdout?.on('data', collector());
  proc.stderr?.on('data', collector());
  const exited = new Promise<number | null>((resolve) => {
    proc.once('exit', (code) => {
      resolve(code);
    });
  });
  const running: Running = {
    http,
    https,
    healthz,
    status,
    workDir,
    proc,
    output,
    ...(stdoutFile === undefined ? {} : { stdoutFile }),
    stop: async () => {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 15_000);
      const code = await exited;
      clearTimeout(timer);
      await rm(workDir, { recursive: true, force: true });
      if (stdoutFile !== undefined) await rm(stdoutFile, { force: true });
      return code;
    },
  };
  if (opts.waitHealthy !== false) {
    try {
      await until('portico /healthz', async () => proc.exitCode === null && (await get(healthz, 'localhost', '/healthz')).status === 200, opts.healthyTimeoutMs ?? 20_000);
    } catch (err) {
      await running.stop();
      throw new Error(`${String(err)}\n${output.slice(-20).join('\n')}`);
    }
  }
  return running;
}

/** Counts log lines whose msg is `sync` with the given plan (reload / dynamic). */
export function syncCount(output: readonly string[], plan: string): number {
  return output.filter((l) => l.includes('"msg":"sync"') && l.includes(`"plan":"${plan}"`)).length;
}

/** nginx worker PIDs of a running Portico (children of the master named in the work dir's nginx.pid). */
export async function workerPids(p: Running): Promise<number[]> {
  const { readFile } = await import('node:fs/promises');
  const master = (await readFile(join(p.workDir, 'nginx.pid'), 'utf8')).trim();
  const children = await readFile(`/proc/${master}/task/${master}/children`, 'utf8');
  return children
    .split(/\s+/)
    .filter(Boolean)
    .map(Number)
    .sort((a, b) => a - b);
}

/** A metric's value from Portico's /metrics. */
export async function metric(p: Running, name: string): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${p.healthz}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no metric ${name}`);
  return Number(line.split(' ')[1]);
}

/** An nginx that also tells tests the configuration endpoint's token (test/support/bin/token-nginx): give it as --nginx-binary. */
export const TOKEN_NGINX = join(REPO, 'test/support/bin/token-nginx');

/** The configuration endpoint's token of a Portico started with `--nginx-binary TOKEN_NGINX` (docs/adr/0007). */
export async function configToken(p: Running): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  return readFile(join(p.workDir, 'test-config-token'), 'utf8');
}
