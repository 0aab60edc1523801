// The only module that runs nginx (its command lines: launch.ts; its configuration endpoint: endpoint.ts; whether it serves: serving.ts): test, start, reload, supervise, stop.
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chown, mkdir, rename, writeFile, chmod, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { NginxTestError, PorticoError, ErrorCodes, errorMessage } from '../errors.js';
import type { Logger } from '../log.js';
import { CONFIG_TOKEN_ENV, UNAVAILABLE_SOCKET } from '../render/conf-main.js';
import { findSetpriv, killGroup, NginxLines, spawnMaster, testConf } from './launch.js';
import { childPids, untilRetired } from './retire.js';
import { putBack, swapIn, untilServing } from './serving.js';
import { fetchMetrics, postConfiguration, type Rejected } from './endpoint.js';

/** The bound on one `nginx -t` of a candidate configuration. */
const TEST_TIMEOUT_MS = 120_000;

/**
 * How long a (re)start may take to serve a configuration whose `nginx -t` took `testMs`: the master parses the same
 * text again, then new workers start. A fixed 15 s failed the first sync at 30,000 Ingresses on a loaded machine (load 20)
 * (the reload took longer, the sync was retried whole, and the retry reloaded again): the bound follows what this
 * configuration costs here and now, at least 15 s, at most the test's own bound.
 */
export function serveTimeoutMs(testMs: number): number {
  return Math.min(TEST_TIMEOUT_MS, Math.max(15_000, 4 * testMs));
}

export { nginxVersion } from './launch.js';

const TEMP_DIRS = ['tmp/client_body', 'tmp/proxy', 'tmp/fastcgi', 'tmp/uwsgi', 'tmp/scgi', 'logs'];

export interface NginxOptions {
  readonly binary: string;
  readonly workDir: string;
  readonly statusPort: number;
  readonly log: Logger;
  /** Called after nginx (re)started on its own, so the caller pushes the dynamic state again. */
  readonly onRestart?: () => void;
  /** Called when nginx exited on its own (before the restart): /healthz fails until the state is pushed again. */
  readonly onCrash?: () => void;
  /** `nginx -t` of a new configuration runs beside its reload, not before it (docs/adr/0053). */
  readonly testBesideReload?: boolean;
  /**
   * Called when the first start failed because nginx exited (a port in use, a file it may not open): nothing ever
   * served, and trying again would fail the same way, so the caller stops Portico with this error.
   */
  readonly onStartFailed?: (err: PorticoError) => void;
}

export { rejectedItems, type Rejected } from './endpoint.js';

/** Runs one nginx master as a child process under a work directory. */
export class Nginx {
  private child: ChildProcess | undefined;
  /** Set by stop(), for good: nginx is not restarted, and a sync still in flight must not start a new one. */
  private closed = false;
  private confHash = '';
  private restarts = 0;
  /** The text of the candidate file when it passed `nginx -t` and has not been swapped in yet. */
  private tested: string | undefined;
  /** How long the last `nginx -t` took (ms): a reload parses the same text again (serveTimeoutMs). */
  private testedMs = 0;
  /** The hash of the last configuration a test beside its reload refused: it is tested first next time. */
  private refusedBeside: string | undefined;
  /**
   * The configuration endpoint's secret for this start (docs/adr/0007): in nginx's environment and in each request
   * to /configuration/*, never in nginx.conf, a log line or /debug.
   */
  private readonly token = randomBytes(32).toString('hex');
  /** Set by quitting(): an exit from now on is the end, not a crash (signals may reach nginx before Portico). */
  private quit = false;
  /** worker_shutdown_timeout of the configuration nginx serves: how long a graceful quit may take. */
  private shutdownTimeoutMs = 240_000;
  /** nginx served once: from then on an exit is a crash to restart; before, a failed start is the caller's to handle. */
  private served = false;
  /** setpriv, looked up once by prepare(): nginx's master quits when Portico dies (launch.ts). */
  private setpriv: string | undefined;

  constructor(private readonly o: NginxOptions) {}

  get pid(): number | undefined {
    return this.child?.pid;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  /**
   * Creates the work directory and nginx's temp folders (docs/adr/0009): as root, the temp folders belong to the
   * workers (they write request bodies there), and `auth` and `l4` are root:workers' group 0750 (they read htpasswd
   * files and TCP/UDP peers tables only, docs/adr/0041).
   */
  async prepare(workerUid: number | undefined, workerGid: number | undefined): Promise<void> {
    const readOnly = ['auth', 'l4'];
    for (const d of ['', ...TEMP_DIRS, ...readOnly]) await mkdir(join(this.o.workDir, d), { recursive: true });
    if (workerUid !== undefined && workerGid !== undefined && process.getuid?.() === 0) {
      for (const d of TEMP_DIRS) await chown(join(this.o.workDir, d), workerUid, workerGid);
      for (const d of readOnly) await chown(join(this.o.workDir, d), 0, workerGid);
    }
    for (const d of readOnly) await chmod(join(this.o.workDir, d), 0o750);
    await chmod(join(this.o.workDir, 'logs'), 0o755);
    this.setpriv = await findSetpriv();
    if (this.setpriv === undefined) this.o.log.warn('setpriv (util-linux) not found: if Portico is killed with SIGKILL, its nginx keeps running');
  }

  /** Runs `nginx -t` on a candidate; throws NginxTestError carrying nginx's own message. */
  async test(conf: string): Promise<string> {
    const candidate = join(this.o.workDir, 'nginx.conf.candidate');
    if (this.tested === conf) return candidate;
    this.tested = undefined;
    await writeFile(candidate, conf, { mode: 0o600 });
    try {
      const t0 = Date.now();
      await testConf(this.o.binary, this.o.workDir, candidate, TEST_TIMEOUT_MS);
      this.testedMs = Date.now() - t0;
    } catch (err) {
      throw new NginxTestError(`nginx -t refused the new configuration: ${errorMessage(err)}`);
    }
    // The candidate on disk is this text, tested: apply() right after need not test it again.
    this.tested = conf;
    return candidate;
  }

  /**
   * Whether a configuration of this `hash` may skip the test before apply: nginx serves, its test runs beside the
   * reload (docs/adr/0053), and no test beside a reload refused it before (then it is tested first, so the quarantine
   * can find its Ingress).
   */
  testsBeside(hash: string): boolean {
    return this.o.testBesideReload === true && this.running && this.served && hash !== this.refusedBeside;
  }

  /**
   * Tests, swaps in and (re)loads a configuration; resolves once nginx serves it. `hash` identifies it;
   * `shutdownTimeoutSeconds` is its worker_shutdown_timeout, as the renderer wrote it (render/nginx-conf.ts).
   */
  async apply(conf: string, hash: string, shutdownTimeoutSeconds?: number): Promise<'started' | 'reloaded'> {
    if (this.closed) throw new Error('nginx is stopped: the configuration is not applied');
    if (shutdownTimeoutSeconds !== undefined) this.shutdownTimeoutMs = shutdownTimeoutSeconds * 1000;
    if (this.tested !== conf && this.testsBeside(hash)) {
      await this.reloadTestingBeside(conf, hash);
      return 'reloaded';
    }
    const candidate = await this.test(conf);
    await rename(candidate, join(this.o.workDir, 'nginx.conf'));
    this.tested = undefined;
    this.confHash = hash;
    if (!this.running) {
      await this.start();
      return 'started';
    }
    // After our own `nginx -t`, SIGHUP is half the cost of `nginx -s reload` (NGINX-NOTES.md).
    const old = await childPids(this.child?.pid);
    this.child?.kill('SIGHUP');
    await this.waitServing(hash, Date.now() + serveTimeoutMs(this.testedMs));
    // Served means every new connection gets it: the old workers still accept for a moment after the new ones answer.
    await untilRetired(old);
    return 'reloaded';
  }

  /**
   * SIGHUP and `nginx -t` of the same text at once (docs/adr/0053): the master parses it as the test does and keeps
   * serving the last good configuration when it fails, so the test's answer is needed only for its message. Refused:
   * nginx.conf is the last good file again, and this hash is tested first next time (testsBeside).
   */
  private async reloadTestingBeside(conf: string, hash: string): Promise<void> {
    const candidate = join(this.o.workDir, 'nginx.conf.candidate');
    this.tested = undefined;
    await writeFile(candidate, conf, { mode: 0o600 });
    await swapIn(this.o.workDir, candidate);
    const before = this.confHash;
    this.confHash = hash;
    const old = await childPids(this.child?.pid);
    const t0 = Date.now();
    let deadline = t0 + TEST_TIMEOUT_MS; // until the test ends and says what this text costs
    const refused = new AbortController();
    // Once the master serves the text it has parsed it as the test would: the test is stopped, its core given back.
    const served = new AbortController();
    const test = testConf(this.o.binary, this.o.workDir, candidate, TEST_TIMEOUT_MS, served.signal).then(
      () => {
        this.testedMs = Date.now() - t0;
        deadline = t0 + this.testedMs + serveTimeoutMs(this.testedMs);
      },
      (err: unknown) => {
        if (!served.signal.aborted) throw err;
      },
    );
    this.child?.kill('SIGHUP');
    const serving = this.waitServing(hash, () => deadline, refused.signal).then(() => {
      served.abort();
    });
    serving.catch(() => undefined); // handled below, after the test: a failure meanwhile is not an unhandled rejection
    try {
      await test;
    } catch (err) {
      refused.abort();
      await serving.catch(() => undefined); // the wait ends at its next poll
      this.confHash = before;
      this.refusedBeside = hash;
      await putBack(this.o.workDir);
      throw new NginxTestError(`nginx -t refused the new configuration (tested beside the reload; nginx kept the last good one): ${errorMessage(err)}`, true);
    }
    await serving;
    await untilRetired(old);
  }

  private async start(): Promise<void> {
    if (this.closed) throw new Error('nginx is stopped: not starting it again');
    // nginx removes its unix sockets when it exits, but not after a SIGKILL; a stale one would fail the bind.
    await rm(join(this.o.workDir, UNAVAILABLE_SOCKET), { force: true });
    // Only the token: nothing else of Portico's environment (service account paths, secrets) reaches nginx.
    const child = spawnMaster({ binary: this.o.binary, workDir: this.o.workDir, env: { [CONFIG_TOKEN_ENV]: this.token }, setpriv: this.setpriv });
    this.child = child;
    const lines = new NginxLines(this.o.log);
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      lines.write(chunk);
    });
    child.on('exit', (code, signal) => {
      this.onExit(child, code, signal);
    });
    const drained = new Promise<void>((resolve) => {
      child.once('close', () => {
        resolve();
      });
    });
    try {
      await this.waitServing(this.confHash, Date.now() + serveTimeoutMs(this.testedMs));
    } catch (err) {
      const exited = !this.running;
      // 'exit' may come before stderr's last lines: nginx's own message is read to the end (bounded) first.
      if (exited) await Promise.race([drained, sleep(1000)]);
      const why = exited && lines.errorText !== undefined ? `nginx exited: ${lines.errorText}` : errorMessage(err);
      const failure = new PorticoError(ErrorCodes.NGINX_START_FAILED, `nginx did not start: ${why}`);
      if (exited && !this.served && !this.closed) this.o.onStartFailed?.(failure);
      throw failure;
    }
  }

  private onExit(child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    if (this.child !== child) return;
    this.child = undefined;
    killGroup(child.pid);
    // Before nginx ever served, start() reports the exit (Portico stops: nothing would serve on a retry either).
    if (this.closed || this.quit || !this.served) return;
    this.restarts += 1;
    this.o.onCrash?.();
    const delay = Math.min(5000, 100 * 2 ** Math.min(this.restarts, 6));
    this.o.log.error({ code, signal, restartInMs: delay }, 'nginx exited unexpectedly; restarting it');
    setTimeout(() => {
      if (this.closed || this.running) return;
      this.start()
        .then(() => {
          this.restarts = 0;
          this.o.onRestart?.();
        })
        .catch((err: unknown) => {
          this.o.log.error({ err: errorMessage(err) }, 'nginx restart failed');
        });
    }, delay).unref();
  }

  /** Until the status server reports the configuration `hash` (serving.ts); `deadline`: epoch ms, or asked each poll. */
  private async waitServing(hash: string, deadline: number | (() => number), signal?: AbortSignal): Promise<void> {
    await untilServing({ statusPort: this.o.statusPort, alive: () => this.running, deadline: typeof deadline === 'number' ? () => deadline : deadline, signal }, hash);
    this.served = true; // after a slow first start too, which a later apply's reload finds serving
  }

  /** POSTs a JSON payload to nginx's Lua configuration endpoint (`backends`, `certificates`). */
  async push(what: string, payload: unknown): Promise<Rejected[]> {
    return this.pushRaw(what, JSON.stringify(payload));
  }

  /** POSTs an already serialized JSON body (endpoint.ts); resolves with the items Lua dropped. */
  async pushRaw(what: string, body: string): Promise<Rejected[]> {
    return postConfiguration(this.o.statusPort, this.token, what, body);
  }

  /** PIDs of the worker processes now (children of the master), for tests and /debug. */
  async workerPids(): Promise<number[]> {
    const pid = this.child?.pid;
    if (pid === undefined) return [];
    const text = await readFile(`/proc/${pid}/task/${pid}/children`, 'utf8').catch(() => '');
    return text
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
      .sort((a, b) => a - b);
  }

  /** Shutdown has begun: nginx keeps serving (and reloading), but an exit is no longer restarted. */
  quitting(): void {
    this.quit = true;
  }

  /** The per-request figures Lua gathered (lua/portico/metrics.lua dump lines); '' when metrics are off. */
  async metrics(): Promise<string> {
    return fetchMetrics(this.o.statusPort, this.token);
  }

  /**
   * Graceful stop: SIGQUIT lets workers finish their requests, which nginx itself bounds by worker_shutdown_timeout;
   * SIGKILL to nginx's whole process group after `graceMs` (default: that timeout and 5 s), so nothing is left.
   */
  async stop(graceMs = this.shutdownTimeoutMs + 5000): Promise<void> {
    this.closed = true;
    const child = this.child;
    if (!child || !this.running) return;
    const exited = new Promise<void>((resolve) => {
      child.once('exit', () => {
        resolve();
      });
    });
    child.kill('SIGQUIT');
    const timer = setTimeout(() => {
      killGroup(child.pid);
    }, graceMs);
    await exited;
    clearTimeout(timer);
  }
}
